# 内置虚拟用户报告的问题，每个问题一种说法；次数是报告它的各会话中出现的范围。

issue-target_empty_reply = 对方回复为空
issue-target_repeated_reply = 对方重复了同样的回复
issue-target_refused = 对方拒绝或说帮不了
issue-kept_asking_after_everything_given = 给全信息后对方仍在发问
issue-asked_twice = 对方重复询问{ $slot }
issue-ignored_correction = 回复无视了我对{ $slot }的更正
issue-done_before_given = 我还没提供{ $slot }，对方就说已经办好了
issue-unverified_figure = 对方给出了我没提供、目标里也没有的数字（{ $figure }）
issue-gave_up = 连续 { $count } 次没有得到有用的回复，放弃了
issue-out_of_turns = 轮数用完，目标仍未达成
issue-target_stopped_answering = 对方无法访问
issue-budget_cut_short = 探索预算用完，会话被截断

slot-to = 收件人
slot-subject = 主题
slot-body = 正文
slot-date = 日期
slot-time = 时间
slot-city = 地点
slot-amount = 金额
slot-name = 姓名
slot-phone = 电话
slot-order_id = 订单号
slot-cc = 抄送
slot-unnamed = 需要的信息

# 内置虚拟用户对会话的备注，使用人设的语言。
user-notes = { $persona }（{ $strategy }）目标“{ $goal }”：{ $achieved }，共 { $turns } 轮，结束原因：{ $end }。{ $changed }
user-notes-changed = 中途把{ $slot }从{ $old }改为{ $new }。
user-notes-achieved = 已达成
user-notes-not-achieved = 未达成
strategy-persistent = 坚持追问
strategy-rephrase = 换个说法
strategy-escalate = 要求升级处理

# Why the platform ended a session as failed.
session-user-broke-off = 虚拟用户没能完成这次会话

# The virtual user or the judge could not do its part.
user-model-failed = 虚拟用户模型出错：{ $detail }
user-model-malformed = 虚拟用户模型两次给出的输出都无法使用：{ $detail }
user-model-said-nothing = 虚拟用户决定继续，却什么也没说
user-could-not-continue = 虚拟用户无法继续：{ $problem }
judge-model-failed = 评审模型出错：{ $detail }
judge-model-malformed = 评审模型两次给出的输出都无法使用：{ $detail }
