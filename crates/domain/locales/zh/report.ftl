# 报告的结论：周期对比的结论与提醒，模板分析。

comparison-within-noise = 通过率变化 { $change } 个百分点，在噪声范围内（95% 区间 { $low } 到 { $high }）：看不出真实的变化。
comparison-improved = 通过率提高了 { $change } 个百分点，超出噪声范围（95% 区间 { $low } 到 { $high }）。
comparison-dropped = 通过率下降了 { $change } 个百分点，超出噪声范围（95% 区间 { $low } 到 { $high }）。
comparison-not-enough = 其中一个周期已判定的运行太少，无法对比。
comparison-warning-target = 评测对象的模型不同：之前是 { $then }，现在是 { $now }
comparison-warning-user = 两个周期的虚拟用户模型不同
comparison-warning-judge = 两个周期的评审模型不同

analysis-summary = { $fixed }{ $exploration }{ $nothing }
analysis-fixed = 固定场景：已判定 { $judged } 次运行，通过率 { $rate }（通过 { $passed }，未通过 { $failed }）；另有 { $errors } 次运行出错，单独统计。
analysis-exploration = 探索（独立的证据线）：虚拟用户共进行 { $sessions } 个会话，目标达成率 { $achieved }。
analysis-fixed-all-errored = 固定场景：{ $errors } 次运行全部出错，没有一次得到判定，因此没有通过率。
analysis-errors = { $count } 次运行出错：{ $error }。
analysis-nothing = 没有未通过的场景，也没有探索中发现的问题。
analysis-scenario-fails = 场景“{ $title }”在 { $judged } 次已判定的运行中有 { $failed } 次未通过。
analysis-scenario-fails-because = 场景“{ $title }”在 { $judged } 次已判定的运行中有 { $failed } 次未通过：{ $detail }（{ $kind }）。
analysis-issue = 虚拟用户在 { $count } 个会话中遇到“{ $issue }”。
analysis-fallback-malformed = 分析模型的回答不是要求的 JSON：{ $detail }
analysis-fallback-failed = 分析模型出错：{ $detail }

## 报告如何称呼它引用的运行和会话
evidence-run = { $scenario } 第 { $number } 次运行
evidence-run-id = 运行 { $id }
evidence-session = { $persona } × { $goal } 第 { $ordinal } 次会话
evidence-session-id = 会话 { $id }
evidence-turn = { $session } 第 { $turn } 轮

## 由发现起草的回归场景
regression-title = 探索发现：{ $finding }
regression-rubric = 回复不得再出现探索时在此处发现的问题：{ $finding }
regression-flagged-turn = 人工在第 { $turn } 轮标记：不得再出现类似“{ $reply }”的回复
regression-rubric-flagged = 第 { $turn } 轮的回复不得再像人工标记的那样：“{ $reply }”
