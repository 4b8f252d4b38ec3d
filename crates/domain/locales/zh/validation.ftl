# 平台拒绝的输入：哪里不对（指出字段及其范围）以及该怎么做。

error-plain = { $text }
error-field-range = `{ $field }` 应在 { $min } 到 { $max } 之间，实际为 { $got }

error-period-form = 周期“{ $period }”的格式不对，应为 <数字><m|h|d>
error-period-form-suggestion = 请写成 `30m`、`6h` 或 `1d` 这样的周期。
error-plan-rounds-and-every = 计划条目 { $scenario }：`rounds` 和 `every` 只能给一个
error-plan-rounds-and-every-suggestion = 请只给 `rounds`（在窗口内均匀分布）或 `every`（定期运行）其中之一。
error-plan-rounds-range = 计划条目 { $scenario }：`rounds` 应在 1 到 { $max } 之间，实际为 { $got }
error-plan-rounds-range-suggestion = 请把 `rounds` 设为 1 或更多；定期运行请改用 `every`。
error-plan-every = 计划条目 { $scenario }：`every` { $reason }
error-plan-at-needs-every = 计划条目 { $scenario }：`at`“{ $at }”需要同时给出 `every`（例如 `every: 1d`）
error-plan-at-needs-every-suggestion = 每天定时运行请同时给出 `every: 1d` 和 `at: HH:MM`，否则去掉 `at`。
error-plan-at-form = 计划条目 { $scenario }：`at`“{ $at }”不是 `HH:MM` 格式的时间
error-plan-at-form-suggestion = 请把时间写成 `HH:MM`，例如 09:00。
error-plan-too-many-runs = 计划安排的运行超过 { $max } 次
error-plan-too-many-runs-suggestion = 请减少轮数、拉长周期或缩短窗口。

error-budget-max-sessions-suggestion = 例如每个窗口 8 个会话；不填则使用默认值。
error-budget-max-turns-suggestion = 例如每个会话 12 轮用户消息；不填则使用默认值。
error-budget-interval-suggestion = 填 0 表示不限间隔，或例如 30。

seed-kind-persona = 人设
seed-kind-goal = 目标
error-seed-persona-twice = 人设 id“{ $id }”在种子集中出现了两次
error-seed-persona-twice-suggestion = 请给每个种子人设一个不同的 id。
error-seed-persona-no-name = 人设“{ $id }”没有名称
error-seed-persona-no-name-suggestion = 请给每个种子人设起一个名称。
error-seed-goal-twice = 目标 id“{ $id }”在种子集中出现了两次
error-seed-goal-twice-suggestion = 请给每个种子目标一个不同的 id。
error-seed-goal-no-title = 目标“{ $id }”没有标题
error-seed-goal-no-title-suggestion = 请给每个种子目标写一个标题，说明用户想办成什么。
error-seed-slot-blank = 目标“{ $id }”：有一个信息项的名称为空
error-seed-slot-blank-suggestion = 请按信息项所承载的事实命名，例如 `to`、`date`、`order_id`。
error-seed-set-too-large = 种子集超过 256 KiB
error-seed-set-too-large-suggestion = 请把人设和目标写得简短些：描述它们，不要粘贴整篇文档。
error-seed-id-form = { $kind } id“{ $id }”应为 1 到 64 个字母、数字或 `-` `_` `.`
error-seed-id-form-suggestion = 请给{ $kind }一个简短且固定的 id，例如 { $example }。
error-persona-field-range = 人设“{ $id }”：`{ $field }` 应在 { $min } 到 { $max } 之间，实际为 { $got }
error-persona-patience-suggestion = 请用 1（很快放弃）到 5（非常有耐心）；不填则为 3。
error-persona-technical-level-suggestion = 请用 1（新手）到 5（专家）；不填则为 3。
error-persona-change-mind-suggestion = 请填一个概率：0（从不改主意）到 1（总会改一次）。
error-persona-language = 人设“{ $id }”：`language` 只能是 `zh` 或 `en`，实际为“{ $got }”
error-persona-language-suggestion = 中文用 `zh`，英文用 `en`；不填则跟随目标的语言。

error-target-name = 评测对象名称应为 1 到 200 个字符
error-target-name-suggestion = 请给评测对象起一个简短、好认的名称。
error-target-concurrency-suggestion = 请填评测对象能同时处理的请求数。
error-target-rate-suggestion = 请填评测对象允许的每秒请求数（0.5 即每两秒一次）；不填则不限速。
error-target-timeout-suggestion = 例如 15000（15 秒）；较慢的模型可能需要 60000 或更多。
error-target-retries-suggestion = 例如重试 2 次。
error-price = `{ $field }` 应为 0 或更大的数，实际为 { $got }
error-price-suggestion = 请填每百万词元的价格；不关心成本时填 0。
error-url = `{ $field }` 应为 `http://` 或 `https://` 开头的地址，实际为“{ $got }”
error-url-suggestion = 请填写完整地址，例如 `http://127.0.0.1:8000/v1`

error-campaign-name = 活动名称应为 1 到 200 个字符
error-campaign-name-suggestion = 请按评测内容和时间给活动命名，例如“客服机器人 第 48 周”。
error-campaign-target-missing = `target_id` { $id } 不对应任何评测对象
error-campaign-target-missing-suggestion = 请先创建评测对象（`POST /api/targets`），或从 `GET /api/targets` 中选一个。
error-campaign-target-archived = 评测对象 { $name }（{ $id }）已归档
error-campaign-target-archived-suggestion = 请选一个仍在使用的评测对象（`GET /api/targets`），或新建一个。
error-campaign-time-scale-suggestion = 正式线填 1；也可以例如填 168，在一小时内跑完一周。
error-campaign-ids-and-plan = `scenario_ids` 和 `plan` 只能给一个
error-campaign-ids-and-plan-suggestion = 每个场景各跑一次请用 `scenario_ids`；需要轮数或周期请用 `plan`。
error-scenario-not-loaded = 场景“{ $id }”未加载
error-scenario-not-loaded-suggestion = 请用 `GET /api/scenarios` 列出已加载的场景，并使用其中的 id。
error-campaign-duration = `duration_hours` 应在 { $min }（36 秒）到 { $max }（一年）之间，实际为 { $got }
error-campaign-duration-suggestion = 例如一周的窗口填 168。
error-campaign-end-and-duration = `window_end` 和 `duration_hours` 只能给一个
error-campaign-end-and-duration-suggestion = `duration_hours` 是活动时间；`window_end` 是真实的结束时间。
error-campaign-no-window = 活动需要一个窗口：请给出 `window_end` 或 `duration_hours`
error-campaign-no-window-suggestion = 例如一周的窗口用 `duration_hours: 168`。
error-campaign-window-order = `window_end` 必须晚于 `window_start`
error-campaign-window-order-suggestion = 请检查日期，或改用 `duration_hours`。
error-campaign-nothing = 活动没有可评测的内容：既没有场景，也没有可探索的人设和目标
error-campaign-nothing-suggestion = 请至少添加一个场景，或一个人设和一个目标。

error-body-too-large = 请求体超过 1 MiB
error-body-too-large-suggestion = 请发送更小的请求体。
error-body-unreadable = 无法读取请求体：{ $detail }
error-body-unreadable-suggestion = 请发送 JSON 请求体。
error-body-structure = 请求的结构不对：{ $detail }
error-body-structure-suggestion = 请对照 API 文档（`GET /api/openapi.json`）检查消息中指出的字段。
error-body-not-json = 请求体不是有效的 JSON：{ $detail }
error-body-not-json-suggestion = 请发送格式正确的 JSON 对象。
error-query = 查询参数无效：{ $detail }
error-query-limit-suggestion = `limit` 应为 1 到 50 的数字，例如 `?limit=10`。
error-query-archived-suggestion = 请用 `include_archived=true` 或 `include_archived=false`。
error-query-format-suggestion = 请只给一种格式，例如 `?format=md`。
error-query-compare-suggestion = 请指定作为基准的活动，例如 `?with=<活动 id>`。
error-query-regression-suggestion = 请以从 1 开始的整数给出轮次，例如 `?turn=2`。
error-query-subject-suggestion = 请用 `?subject_id=<id>` 指明评测运行或探索会话。
error-query-pairs-suggestion = 请以 URL 编码的 `name=value` 形式发送参数。
error-unauthorized = API 密钥缺失或错误
error-unauthorized-suggestion = 请在 `X-API-Key` 请求头中发送密钥（见 `agenteval serve --api-key` 或 `AGENTEVAL_API_KEY`）。
error-forbidden-read-only = 密钥 { $name } 的角色是 { $role }，只能读取（`GET`）
error-forbidden-admin-only = 密钥 { $name } 的角色是 { $role }，不能管理密钥（仅限管理员）
error-forbidden-suggestion = 请向管理员申请一个允许此操作的角色的密钥（`agenteval keys create --role editor`）。
error-no-route = 没有这个路由
error-no-route-suggestion = 路由列表见 `GET /api/openapi.json`。
error-method-not-allowed = 此路由不支持该请求方法
error-method-not-allowed-suggestion = 各路由支持的方法见 `GET /api/openapi.json`。

error-explore-no-seeds = 活动 { $id } 没有种子人设或种子目标：没有可探索的内容
error-explore-no-seeds-suggestion = 请在活动的种子集中至少添加一个人设和一个目标，或开始一个手动会话。
error-explore-all-covered = 活动 { $id } 的每个“人设 × 目标”组合都已有会话
error-explore-all-covered-suggestion = 请选择要再次探索的组合，或在下一周期中添加人设或目标。
error-explore-too-many-cells = 一次请求了 { $count } 个组合；每次最多 { $max } 个
error-explore-too-many-cells-suggestion = 请每次少探索一些组合；会话预算本身也会限制数量。
error-explore-cell-unknown = `{ $field }`“{ $id }”不在活动 { $campaign } 的种子集中
error-explore-cell-unknown-suggestion = 请使用活动种子集中的人设 id 和目标 id。
error-rating-suggestion = 请评 1（差）到 5（优秀）分。
error-comment-too-long = 评语超过 { $max } 个字符
error-comment-too-long-suggestion = 请缩短评语。
error-override-score = `judge_override.score` 应在 1 到 5 之间
error-override-score-suggestion = 请给 1 到 5 的分数。
error-page-limit = `limit` { $got } 超出范围：每页 1 到 { $max } 行
error-page-limit-suggestion = 每页最多取 { $max } 行，用 `offset` 翻页。
error-verdict-filter = 结论“{ $got }”不是 `passed`、`failed`、`error`、`skipped`、`pending` 之一
error-verdict-filter-suggestion = 请按 `passed`、`failed`、`error`、`skipped` 或 `pending` 筛选，或不填。
error-too-many-ids = 给出了 { $count } 个会话 id；最多 { $max } 个
error-too-many-ids-suggestion = 请每次少查询一些会话。
error-key-role = 角色只能是 `viewer`、`editor` 或 `admin`，实际为“{ $got }”
error-key-role-suggestion = 角色可选：`viewer`（只读）、`editor`（除密钥外都可操作）或 `admin`。
error-key-name-suggestion = 请用 1 到 64 个字母、数字、`.`、`_` 或 `-`，以字母或数字开头（例如 `alice` 或 `ci-nightly`）。
error-key-name-empty = 密钥名称为空
error-key-name-long = 密钥名称超过 { $max } 个字符
error-key-name-character = 密钥名称“{ $name }”含有不允许的字符
error-key-name-server = 密钥名称 { $name } 是服务器自己的密钥（`--api-key`）
error-key-name-taken-suggestion = 请换一个名称。
error-key-exists = 名为 { $name } 的密钥已存在
error-key-exists-suggestion = 请换一个名称，或吊销该密钥后用新名称创建。
error-key-unknown = 没有名为 { $name } 的密钥
error-key-unknown-suggestion = 请列出密钥（`agenteval keys list`、`GET /api/keys`），并使用其中一个名称。
error-target-model-empty = `channel.model` 不能为空
error-target-model-empty-suggestion = 请填写该接口提供的模型名称，例如 `gpt-4o-mini`。
error-target-key-ref = `channel.api_key_ref` 不是该评测对象的密钥
error-target-key-ref-suggestion = 请发送该评测对象已有的 `api_key_ref`，或一个新的 `api_key`。
error-export-format = 没有“{ $format }”这种导出格式
error-export-format-suggestion = 请用 `format=md`、`json`、`csv`、`sessions_csv` 或 `junit`。

error-min-kappa-suggestion = 请用 0.6（高度一致），除非团队约定了别的标准。
error-min-items-suggestion = 请至少标注 30 个会话，kappa 才值得信赖。
error-min-self-agreement-suggestion = 请用 0.8：评审两次复核中有 8 成给出相同的分数。
error-queue-limit-suggestion = 请每次取少量条目，例如 `limit=10`。
error-label-score-suggestion = 每项标准请打 1（差）到 5（优秀）分；编造事实一项 5 分表示没有编造。
error-reviewer-long = 评审人名称超过 200 个字符
error-reviewer-long-suggestion = 请填写姓名或缩写。
error-label-not-judged = 会话 { $id } 没有可供比较的评审评分
error-label-not-judged-suggestion = 请从盲评队列中标注会话：队列里的都是评审打过分的会话。
error-label-twice = 会话 { $id } 已经标注过了
error-label-twice-suggestion = 每个会话只盲标一次；请从队列中取下一个。
error-run-scores-empty = `scores` 为空
error-run-scores-suggestion = 请按 `check_index` 给队列条目列出的每个评分检查打分。
error-run-score-range = 检查 { $check } 的分数应在 1 到 5 之间，实际为 { $got }
error-run-score-range-suggestion = 每个评分检查请打 1（不符合评分标准）到 5（完全符合）分。
error-run-scores-mismatch = `scores` 必须给评测运行 { $id } 的每个评分检查各打一次分：应为检查 { $wanted }，实际为 { $given }
error-run-label-twice = 评测运行 { $id } 已经标注过了
error-run-label-twice-suggestion = 每次运行只盲标一次；请从队列中取下一个。
error-run-not-judged = 评测运行 { $id } 没有评审打过分的评分检查可供比较
error-run-not-judged-suggestion = 请从盲评队列中标注运行：队列里的都是评审给评分检查打过分的已完成运行。
error-mcp-trigger = 触发方式 “{ $trigger }” 不是 `auto` 或 `manual`。
error-mcp-trigger-suggestion = 省略 `trigger`（巡检自行发起即为 `auto`），或填写 `manual`。
error-mcp-seed-pair = 会话需要画像和目标：要么同时给出两个种子 ID（`persona_id` 与 `goal_id`），要么同时给出两个对象（`persona` 与 `goal`）。
error-mcp-seed-pair-suggestion = 从 `patrol` 中取一个单元格：使用活动种子集中对应的 `persona_id` 和 `goal_id`。
error-mcp-record = 无法读取体验记录：{ $detail }。
error-mcp-record-suggestion = 请给出 `goal_achieved`（`true` 或 `false`）；如需给出 `end_reason`，取值为 `user_goal_met`、`user_gave_up`、`max_turns`、`simulator_error` 或 `budget_exhausted`。

# What the YAML reader found wrong in a pack file.
yaml-top = 文件顶层
yaml-invalid-type = { $place }的类型不对：应为{ $expected }，实际是{ $found }
yaml-missing-field = { $place }缺少字段 { $field }
yaml-unknown-field = { $place }有未知字段 { $name }（可用：{ $expected }）
yaml-unknown-variant = { $place }的取值 { $name } 无法识别（可选：{ $expected }）
yaml-other = YAML 无法解析：{ $detail }
yaml-at-column = { $problem }（第 { $column } 列）
yaml-at-end = { $problem }（在文件末尾）
yaml-kind-map = 对象（键: 值）
yaml-kind-list = 列表
yaml-kind-text = 文本
yaml-kind-integer = 整数
yaml-kind-number = 数字
yaml-kind-boolean = 布尔值（`true` 或 `false`）
yaml-kind-null = 空值（`null`）

# 用来派生场景包的技能清单。
error-skill-manifest-unreadable = 技能清单无法读取，第 { $line } 行：{ $problem }
error-skill-manifest-unreadable-suggestion = 请提供至少含 `name` 和 `parameters` 的 JSON（或 YAML）清单，参照 `examples/send_email.skill.json`。
error-skill-no-name = 技能清单没有可用的 `name`
error-skill-no-name-suggestion = 请给技能起一个由字母、数字和下划线组成的名字，例如 `send_email`。
error-skill-no-parameters = 技能 `{ $name }` 没有声明任何参数，因此没有可检查的内容
error-skill-no-parameters-suggestion = 请列出技能的 `parameters`，写明 `required`、`validation` 和取值限制。
error-skill-bad-pattern = 参数 `{ $parameter }` 的校验表达式无法编译：{ $detail }
error-skill-bad-pattern-suggestion = 请修正清单中 `validation` 的正则表达式。

# 审计日志的保留天数，来自环境变量或命令行。
error-audit-retention = 审计日志保留天数必须是不小于 1 的整数，实际为 { $got }
error-audit-retention-suggestion = 请把 `{ $env }` 或 `--audit-retention-days` 设为例如 90。
