# Markdown 报告：标题、表格行和报告自己的句子。名称、引用的原文和 id 作为参数传入。

md-title = # 活动报告：{ $name }
md-campaign-id = | 活动 id | `{ $id }` |
md-target = | 评测对象 | { $name }（{ $model }） |
md-status = | 状态 | { $status } |
md-line-formal = | 线路 | 正式线（真实时间） |
md-line-accelerated = | 线路 | 加速调试线（时间倍率 { $scale }） |
md-window = | 窗口 | { $start } → { $end } |
md-generated = | 生成时间 | { $at } |
md-list-separator = 、
md-clause-separator = ；
md-yes = 是
md-no = 否

md-fixed = ## 固定场景
md-pass-rate = **通过率：{ $rate }**（通过 { $passed }，未通过 { $failed }；通过率 = 通过 ÷（通过 + 未通过））。出错的运行：{ $errors }。已跳过：{ $skipped }。尚未运行：{ $pending }。探索数据从不计入这个数字。
md-metric-header = | 指标 | 数值 |
md-runs-finished = | 已完成 / 计划的运行 | { $finished } / { $planned } |
md-completion = | 完成率 | { $rate } |
md-pass-rate-interval = | 通过率的 95% 区间（威尔逊得分法） | { $interval } |
md-coverage = | 关键字段覆盖率 | { $rate } |
md-latency = | 延迟 p50 / p95 | { $p50 } / { $p95 } |
md-tokens = | 输入 / 输出 token | { $tokens_in } / { $tokens_out } |
md-cost = | 估算成本 | { $cost } |
md-per-scenario = ### 各场景
md-per-scenario-header = | 场景 | 场景包 | 运行 | 通过 | 未通过 | 出错 | 通过率 |
md-per-group = ### 各难度组
md-per-tag = ### 各标签
md-group-header = | 名称 | 运行 | 通过 | 未通过 | 出错 | 通过率 |
md-failed-checks = ### 未通过的检查
md-failed-check = - **{ $title }** · { $kind } × { $count }：{ $detail }（例如：{ $run }）
md-guarded = ### 由探索发现、现已纳入回归的场景
md-guarded-header = | 场景 | 发现于 | 发现 | 本周期 |
md-guarded-found = 会话 { $session } 第 { $turn } 轮
md-guarded-result = 通过 { $passed }，未通过 { $failed }（{ $rate }）
md-errors = ### 出错的运行

md-human = ### 人工评审
md-runs-rated = | 已评分的运行 | { $count }（平均 { $mean }） |
md-sessions-rated = | 已评分的会话 | { $count }（平均 { $mean }） |
md-overrides = | 推翻评审结论 | { $count } |
md-agreement = | 评审与人工一致率 | { $rate }（共比较 { $compared } 项） |

md-analysis = ## 附录：智能分析
md-analysis-template-unavailable = *根据数据生成的模板分析（分析模型不可用），{ $at }。*
md-analysis-template = *根据数据生成的模板分析（未配置分析模型），{ $at }。*
md-analysis-model = *由分析模型 { $model } 撰写，{ $at }。*
md-analysis-note = > 说明：{ $reason }
md-cites = （{ $cites }）

md-comparison = ## 附录：周期对比
md-comparison-this = 本周期：已判定 { $judged } 次运行，通过率 { $rate }。探索数据不参与对比。
md-comparison-within = 本周期内，重复运行的场景中有 { $rate } 既有通过也有未通过（噪声基线）。
md-comparison-pass-k = 场景重复运行时的稳定性：{ $values }。
md-comparison-header = | 之前的周期 | 通过率 | 变化 | 95% 区间 | 翻转率 | 解读 |
md-points = { $points } 个百分点
md-interval = { $low } 到 { $high }
md-comparison-warning = > 提醒（{ $name }）：{ $warning }
md-comparison-flipped = - 自 { $name } 以来结论翻转的场景：{ $scenarios }

md-provenance = ## 数据是否离开了本机
md-provenance-none = 没有数据离开本机：没有联系任何主机（内置智能体在进程内运行）。
md-provenance-loopback = 没有数据离开本机：联系过的主机都在本机上（回环地址）。
md-provenance-outside = 有请求离开了本机：联系了 { $count } 个本机以外的主机。
md-provenance-header = | 角色 | 主机 | 请求数 | 输入 token | 输出 token | 在本机上 |
host-role-target = 评测对象
host-role-virtual_user = 虚拟用户
host-role-judge = 评审
host-role-analyst = 分析师

md-degraded = > 部分数据缺失：{ $what }。
md-degraded-judge = { $count } 次评审复核失败（评审模型不可用），这些会话没有质量评分
md-degraded-user = { $count } 个会话以“虚拟用户出错”结束（虚拟用户模型出错），不计入评测对象的问题

md-calibrated = 已校准
md-advisory = 仅供参考
md-kappa-no-interval = { $kappa } [区间：无]
calibration-calibrated = 已校准
calibration-advisory-rubric = 仅供参考（需要在至少 { $min_items } 个人工标注的评分检查上 kappa >= { $min_kappa }）
calibration-advisory-sessions = 仅供参考（需要在至少 { $min_items } 个人工标注的会话上 kappa >= { $min_kappa }）
md-rubric = ### 评分标准检查
md-rubric-note = 评分标准检查由评审（模型或离线启发式）按 1-5 分打分。已盲标的评分检查：{ $items }（已标注的运行：{ $labelled }；尚未标注的运行：{ $unlabelled }）。一致率 { $agreement }，kappa { $kappa }。评审的评分标准数据{ $status }。
md-calibration = ### 评审校准
md-calibration-note = 由人按评审自己的标准（1-5 分）对评审抽样的会话（以及固定运行的评分检查）进行盲标。Kappa 为线性加权的 Cohen's kappa，附 95% bootstrap 区间；某项标准在至少 { $min_items } 个标注项上 kappa >= { $min_kappa } 时视为已校准，在此之前本报告中该项的评审数据仅供参考。已标注 { $labelled } 个，另有 { $unlabelled } 个已复核的会话尚未标注。
md-calibration-header = | 标准 | 已标注 | 一致率 | Kappa [95% 区间] | 评审数据 |
md-consistency = ### 评审一致性
md-consistency-note = 评审把抽样内容按相反的轮次顺序（评审模型还会改写评分标准）再复核一次。自我一致率是两次打分相同的会话所占比例；低于 { $min } 说明评审自相矛盾。
md-consistency-header = | 标准 | 复核两次 | 自我一致率 | Kappa | 评审 |
md-contradicts = 自相矛盾
md-consistent = 一致

md-none = 无
md-not-recorded = 未记录
md-structured = { $who }（结构化输出：`{ $mode }`）
md-exploration = ## 附录：探索发现
md-exploration-intro = 探索是独立的证据线：虚拟用户扮演种子人设，追求种子目标。它从不计入上面的通过率。
md-sessions = | 会话 | { $count }（{ $by_status }） |
md-goal-achievement = | 目标达成 | { $rate }（{ $records } 份体验记录中有 { $achieved } 份达成） |
md-end-reasons = | 结束原因 | { $counts } |
md-triggers = | 触发方式 | { $counts } |
md-emotions = | 情绪 | { $counts } |
md-played-by = | 扮演者 | 虚拟用户：{ $user }；评审：{ $judge } |
md-simulator-sessions = | 归因于虚拟用户的会话 | { $count }（虚拟用户出了问题，不计入评测对象） |
md-fault-kind = { $kind } { $faults }（{ $sessions } 个会话）
md-simulator-faults = | 检查发现的虚拟用户问题 | { $kinds } |
md-judge-review = | 评审复核 | 已复核 { $reviewed }，失败 { $failed }，待复核 { $pending }{ $dimensions } |
md-judge-dimensions = ；{ $dimensions }
md-issues = ### 发现的问题
md-issues-header = | 类型 | 问题 | 会话数 | 对话记录 |
md-and-more = 等，另有 { $count } 个
md-more-issues = 另有 { $count } 个较少出现的问题：请在应用或 JSON 导出中查看。
md-findings = ### 评审发现（差的在前）
md-evidence = {" "}——“{ $evidence }”
md-more-findings = 另有 { $count } 条发现：请在应用或 JSON 导出中查看。
md-coverage-grid = ### 覆盖情况（人设 × 目标：会话 / 达成 / 问题）
md-coverage-grid-production = ### 覆盖情况（人设 × 目标：会话 / 达成 / 问题 / 生产环境对话）
md-coverage-header = | 人设 | { $goals } |
md-unseeded = 没有种子的会话（手动）：{ $count }。
md-production-coverage = 该评测对象的 { $total } 段生产环境对话中有 { $placed } 段落在这些格子上；{ $unplaced } 段与任何目标都不相似。
md-production-untried = 生产环境涉及、探索却从未尝试过的格子：{ $cells }。
md-transcripts = ## 附录：探索对话记录
md-transcripts-some = 上文链接到的 { $shown } 个会话；其余 { $others } 个请在应用和会话 CSV 导出中查看。
md-session = ### { $name }
md-session-id = - 会话编号：`{ $id }`
md-session-persona = - 人设：{ $persona }
md-session-goal = - 目标：{ $goal }
md-session-status = - 状态：{ $status } · 结束原因：{ $end_reason } · 触发方式：{ $trigger } · 用户轮数：{ $turns }
md-session-experience = - 体验：目标{ $goal } · 情绪：{ $emotion } · 卡点：{ $blockers } · 被误导：{ $misled }
md-achieved = 已达成
md-not-achieved = 未达成
md-session-notes = - 备注：“{ $notes }”
md-user = 用户
md-target-speaker = 评测对象
md-latency-ms = （{ $ms } 毫秒）
md-offline-user = 离线人设引擎
md-offline-judge = 离线启发式评审
md-dimension-score = { $dimension } { $score }/5（{ $status }）
md-finding = - **{ $grade }**{ $dimension }：{ $text }{ $evidence }（{ $session }）
md-quoted-list = { $items }
