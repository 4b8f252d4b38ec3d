# 探索预算的拒绝：每条说明原因以及智能体可以怎么做。

guard-turn-limit = 会话 { $id } 已用完 { $max } 轮用户消息
guard-turn-limit-suggestion = 请填写体验记录并关闭会话（`end_reason` 为 `max_turns`）。
guard-session-not-running = 会话 { $id } 的状态是“{ $status }”
guard-session-ended = 会话 { $id } 的状态是“{ $status }”（{ $reason }）
guard-session-not-running-suggestion = 预算允许的话请开始新的会话；这个会话不再接受消息。
guard-campaign-not-running = 活动 { $id } 未在运行：{ $why ->
    [finalized] 它已结算
    [cancelled] 它已取消
    [draft] 它还是草稿
    [ended] 它的窗口已于 { $at } 结束
   *[not-started] 它的窗口将于 { $at } 开始
}
guard-campaign-not-running-suggestion = 请只探索窗口开放中的活动；`GET /api/exploration/patrol` 会列出它们。
guard-accelerated = 活动 { $id } 运行在加速调试线上（时间倍率 { $scale }）：只允许按需发起的会话
guard-accelerated-suggestion = 如需在此活动上调试探索，请发送 `trigger: "manual"`。
guard-no-seeds = 活动 { $id } 的种子集为空，不参与自动探索
guard-no-seeds-suggestion = 调试请发送 `trigger: "manual"`，或新建一个带种子人设和目标的活动。
guard-unknown-persona = `seed_ref.persona_id`“{ $id }”不是该活动种子集中的人设
guard-unknown-persona-suggestion = 请使用 `GET /api/exploration/patrol` 列出的人设 id（`seeds.personas`）。
guard-unknown-goal = `seed_ref.goal_id`“{ $id }”不是该活动种子集中的目标
guard-unknown-goal-suggestion = 请使用 `GET /api/exploration/patrol` 列出的目标 id（`seeds.goals`）。
guard-auto-needs-seed = 自动触发的会话需要 `seed_ref`（`persona_id`、`goal_id`）
guard-auto-needs-seed-suggestion = 请指明会话来自哪个种子人设和目标；衍生变体另加 `seed_ref.variant`。
guard-budget = 活动 { $id } 在本窗口内的 { $max } 个探索会话已用完
guard-budget-suggestion = 请停止为此活动派发会话；它的固定计划照常进行。
guard-interval = 上一个会话开始还不到 { $minutes } 分钟（活动时间）；下一个会话可在 { $next } 开始
guard-interval-suggestion = 请等到 `next_allowed_at` 之后再开始下一个会话。

error-seed-value-empty = `{ $field }` 不能为空
error-seed-value-shape = `{ $field }` 必须是 JSON 对象或一段文字
error-seed-value-suggestion = 请描述 `{ $field }`，例如 `{"{"}"name": "...", ...{"}"}` 或一句话。
error-seed-value-large = `{ $field }` 超过 16 KiB
error-seed-value-large-suggestion = 请把 `{ $field }` 写得简短些：描述它，不要粘贴整篇文档。
error-user-model-played-by = 给出了 `user_model`，但 `played_by` 是 `{ $played_by }`
error-user-model-played-by-suggestion = 只有在 `played_by: "model"` 时才发送 `user_model`，否则不要填写。
error-user-model-length = `user_model` 应为 1 到 { $max } 个字符
error-user-model-length-suggestion = 请填写扮演用户的模型名称，例如 `qwen2.5-7b-instruct`。
error-end-reason-on-close = `end_reason` 为 `{ $reason }` 时由平台设定，关闭会话时不能指定
error-end-reason-on-close-suggestion = 请使用 `user_goal_met`、`user_gave_up`、`stopped`、`max_turns`、`simulator_error` 或 `budget_exhausted`。
error-person-simulator-error = 由人扮演的会话不能以 `simulator_error` 结束
error-person-simulator-error-suggestion = 请以 `user_goal_met`、`user_gave_up` 或 `stopped` 关闭：人不是模拟器。
error-discard-not-running = 会话 { $id } 已经结束；只有进行中的会话可以丢弃
error-discard-not-running-suggestion = 已结束的会话保留其记录，无需丢弃。
error-variant-note-long = `seed_ref.variant.note` 超过 { $max } 个字符
error-variant-note-long-suggestion = 请简要说明该变体与其种子有何不同。
error-message-empty = `content` 不能为空
error-message-empty-suggestion = 请发送虚拟用户接下来要说的话。
error-message-long = `content` 超过 { $max } KiB
error-message-long-suggestion = 请像真实用户那样发送较短的消息。
error-seed-cell-unknown = 人设 { $persona } × 目标 { $goal } 不在活动 { $campaign } 的种子集中
error-seed-cell-unknown-suggestion = 请使用该活动种子集中的人设 id 和目标 id。
error-patrol-agent-absent = 本进程中没有运行巡检代理
error-patrol-agent-absent-suggestion = 启动 `agenteval serve` 时不要加 `--no-patrol`，巡检代理才会运行。
