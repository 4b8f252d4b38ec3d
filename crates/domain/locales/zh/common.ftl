# 引擎句子里用到的名称：结束原因、状态、情绪、结论、等级、维度、检查类型、
# 会话由谁扮演。名称的键为 `<类别>-<取值>`，取值与 API 中的写法相同。

end-reason-user_goal_met = 目标达成
end-reason-user_gave_up = 用户放弃
end-reason-max_turns = 达到轮数上限
end-reason-target_error = 评测对象出错
end-reason-simulator_error = 虚拟用户出错
end-reason-budget_exhausted = 预算用尽
end-reason-expired = 已过期
end-reason-stopped = 用户主动结束
end-reason-abandoned = 已放弃（无人继续）

session-status-running = 进行中
session-status-completed = 已完成
session-status-failed = 失败
session-status-expired = 已过期

campaign-status-draft = 草稿
campaign-status-scheduled = 已排期
campaign-status-running = 运行中
campaign-status-finalized = 已结算
campaign-status-cancelled = 已取消

emotion-satisfied = 满意
emotion-neutral = 平静
emotion-confused = 困惑
emotion-frustrated = 沮丧
emotion-angry = 生气
emotion-delighted = 愉快
emotion-anxious = 焦虑

verdict-passed = 通过
verdict-failed = 未通过
verdict-error = 出错
verdict-skipped = 已跳过
verdict-pending = 待运行

grade-poor = 差
grade-fair = 一般
grade-good = 好

dimension-attitude = 态度
dimension-professionalism = 专业性
dimension-hallucination = 编造事实
dimension-simulator = 虚拟用户
dimension-trajectory = 操作步骤

trajectory-kind-unknown-tool = 调用了未提供的工具
trajectory-kind-repeated-failed-call = 原样重复失败的调用
trajectory-kind-claimed-failed = 声称已完成但调用失败
trajectory-kind-claimed-no-step = 声称已完成但没有对应调用
trajectory-kind-step-limit = 达到步数上限
trajectory-kind-other = 其他步骤问题

check-kind-contains = 包含
check-kind-not_contains = 不包含
check-kind-regex = 匹配正则
check-kind-json_path = JSON 路径
check-kind-max_latency_ms = 延迟上限
check-kind-tool_called = 调用工具
check-kind-asks_clarification = 追问澄清
check-kind-no_repeat = 不重复上一条回复
check-kind-document = 文档内容
check-kind-file_exists = 文件已生成
check-kind-no_unverified_numbers = 无未经核实的数字
check-kind-tool_sequence = 工具调用顺序
check-kind-tool_not_called = 未调用指定工具
check-kind-no_unknown_tools = 没有调用未知工具
check-kind-recovers_from_error = 从工具错误中恢复
check-kind-max_steps = 步数上限
check-kind-rubric = 评分标准

fault-kind-invented_fact = 编造了事实
fault-kind-left_language = 没有使用人设的语言
fault-kind-quit_early = 过早放弃
fault-kind-went_on_after_goal = 目标达成后仍继续
fault-kind-drifted = 偏离了目标
fault-kind-record_disagrees = 体验记录与结束原因矛盾

played-by-person = 真人
played-by-assistant = 外部助手
played-by-builtin = 内置人设引擎
played-by-model = 模型

trigger-auto = 巡检（自动发起）
trigger-manual = 按需发起

issue-kind-blocker = 卡点
issue-kind-misled = 被误导

value-na = 无
grade-severe = 严重
grade-unrated = 未评级

## 下一周期的默认名称
campaign-next-period-name = { $name }（下一周期）
model-answer-no-json = 回答中没有 JSON 对象
model-answer-off-schema = 回答不符合约定的格式
model-answer-off-schema-at = 回答在 { $path } 处不符合约定的格式
model-answer-empty-summary = 回答的摘要为空

# A scenario's difficulty group.
group-basic = 基础
group-intermediate = 进阶
group-advanced = 高级
