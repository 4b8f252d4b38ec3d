# 命令行自己的句子：CI 门禁的结论。

gate-passed = 门禁通过。
gate-passed-notes = 门禁通过：{ $notes }。
gate-failed = 门禁未通过：{ $why }。
gate-below-minimum = 通过率 { $rate } 低于最低要求 { $min }
gate-meets-minimum = 通过率 { $rate } 达到最低要求 { $min }
gate-interval = ，95% 区间 { $low } 到 { $high }
gate-dropped = 与基线相比，通过率下降了 { $drop } 个百分点，超出噪声范围（{ $change } 个百分点{ $interval }）
gate-within-noise = 与基线相比的变化（{ $change } 个百分点{ $interval }）在噪声范围内
gate-too-few = 基线中已判定的运行太少，无法对比
gate-regressed = { $count } 个场景在基线中总是通过、现在总是未通过：{ $scenarios }
gate-flaky-failing = 不稳定的场景（已设 `--fail-on-flaky`）：{ $scenarios }
gate-flaky = 不稳定的场景，不影响门禁：{ $scenarios }
gate-models-unrecorded = { $side } 没有记录由哪些模型扮演用户和评审；只比较评测对象的身份

# `agenteval run` 在标准输出上的摘要。
run-title = AgentEval 运行：{ $name }
run-campaign = {"  "}活动：      { $id }（数据：{ $data }）
run-target = {"  "}评测对象：  { $name }（{ $model }）
run-pass-rate = {"  "}通过率：    { $rate }；通过 { $passed }，未通过 { $failed }，出错 { $errors }
run-scenarios = {"  "}场景：      { $count }（通过 { $passed }，未通过 { $failed }，不稳定 { $flaky }，出错 { $errors }）
run-flaky-none = {"  "}不稳定：    无
run-flaky = {"  "}不稳定：    { $list }
run-flaky-item = { $id }（{ $runs } 次运行中通过 { $passed } 次）
run-rubric-judge = {"  "}评分细则评审：与人工标注的一致性 κ = { $kappa }（{ $labels } 个标注），{ $status }
run-errors = {"  "}出错：      { $list }
run-exploration = {"  "}探索：      { $sessions } 个会话，目标达成率 { $rate }，{ $issues } 个问题，{ $reviews } 次评审复核
run-issue = {"    "}- { $issue }（{ $count } 个会话）
run-exports = {"  "}导出：      { $files }
run-baseline = {"  "}基线：      { $label }（{ $name }）：通过率之前 { $then }，现在 { $now }。{ $verdict }
run-flipped = {"    "}结论翻转（多数结论改变）：{ $list }
run-regressed = {"    "}退化（之前总是通过，现在总是未通过）：{ $list }
run-warning = {"    "}提醒：{ $warning }
run-note = {"    "}说明：{ $note }
rate-interval = { $rate }（95% 区间 { $low } 到 { $high }，已判定 { $runs } 次运行）
rate-no-judged = { $rate }（没有已判定的运行）
run-passed-of = 通过 { $passed }/{ $judged }
run-in-error = （出错 { $count }）

# `agenteval demo` 的摘要（脚本读取的活动、数据库和报告三行保持原样）。
demo-title = AgentEval 演示（离线：内置演示智能体，无需 API 密钥）
demo-data-folder = {"  "}数据文件夹：{ $path }
demo-scenarios = {"  "}场景：已从 { $sources } 加载 { $count } 个
demo-target-name = 演示智能体
demo-campaign-name = 演示活动 { $at }
demo-campaign = {"  "}活动：{ $name }（{ $id }），加速调试线：{ $seconds } 秒内跑完{ $span }
demo-one-week = 一周
demo-hours = { $hours } 小时的活动时间
demo-pass-rate = {"  "}通过率：{ $rate }（通过 { $passed }，未通过 { $failed }，出错 { $errors }）
demo-exploration = {"  "}探索：{ $sessions } 个会话，目标达成率 { $rate }，{ $issues } 个问题，{ $reviews } 次评审复核
sources-shipped = 内置场景包
sources-and = 和

## scenarios from-session
cli-regression-written = 已将 { $id } 写入 { $path }
  防止再次出现：{ $finding }
demo-where-campaign = {"  "}活动：  { $id }
demo-where-database = {"  "}数据库：{ $path }
demo-where-report = {"  "}报告：  { $path }
