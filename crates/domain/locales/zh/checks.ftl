# 场景检查通过或未通过的原因。引号里是场景和回复的原文。

check-contains-pass = 回复包含“{ $value }”
check-contains-fail = 回复不包含“{ $value }”
check-contains-none = 回复不包含以下任何一项：{ $values }
check-forbidden = 回复包含禁止出现的内容：{ $values }
check-regex-pass = 回复在“{ $at }”处匹配 `/{ $pattern }/`
check-regex-fail = 回复不匹配 `/{ $pattern }/`
check-regex-bad = 模式 `/{ $pattern }/` 无效：{ $detail }
check-repeat-fail = 回复与上一条一字不差：“{ $reply }”
check-repeat-pass = 回复与上一条不同
check-repeat-first = 第一条回复：没有可重复的
check-latency-pass = 回复用时 { $took } 毫秒，未超过 { $limit } 毫秒的上限
check-latency-fail = 回复用时 { $took } 毫秒，超过了 { $limit } 毫秒的上限
check-numbers-none = 回复中没有数字
check-numbers-pass = 回复中的 { $count } 个数字都出现在给定事实、用户的消息或工具返回的结果中
check-numbers-fail = 未经核实的数字 { $numbers }：既不在场景给定的事实中，也不在用户的消息或任何工具结果中
check-ask-acted = 评测对象没有反问就直接执行了：调用了 { $tools }
check-ask-none = 回复没有反问（没有问号或疑问词）：“{ $reply }”
check-ask-pass = 回复进行了反问（“{ $question }”），且没有调用工具
check-ask-field-pass = 回复反问了缺少的 `{ $field }`，且没有调用工具
check-ask-field-missing = 回复提了问题，但没有提到缺少的 `{ $field }`：“{ $reply }”
check-json-bad-path = `{ $path }` 不是有效的 JSONPath：{ $detail }
check-doc-reply = 回复中的 JSON
check-doc-tool = 工具调用 `{ $tool }` 的参数
check-json-no-document = 回复中没有 JSON，也没有调用工具，无从查询
check-json-has = { $document }中 `{ $path }` = { $value }
check-json-expected = 期望 `{ $path }` = { $want }，但{ $seen }
check-json-nothing = 在回复的 JSON 和工具调用的参数中都找不到 `{ $path }`
check-tool-none-made = 它没有调用任何工具
check-tool-others = 它调用了 { $tools }
check-tool-not-called = 评测对象没有调用 `{ $tool }`；{ $made }
check-tool-called = 评测对象调用了 `{ $tool }`
check-tool-bad-schema = 工具的参数定义（JSON Schema）无效：{ $detail }
check-tool-valid = 评测对象调用了 `{ $tool }`，参数符合工具定义的格式：{ $arguments }
check-tool-invalid = 评测对象调用了 `{ $tool }`，但参数不符合工具定义的格式：{ $problems }

check-sequence-pass = 调用顺序符合预期：{ $tools }
check-sequence-wrong = 第 { $step } 步应调用 `{ $tool }`，评测对象却调用了 `{ $called }`
check-sequence-short = 接下来应调用 `{ $tool }`，但评测对象只调用了 { $made } 次：{ $tools }
check-sequence-extra = 预期的调用已全部完成，评测对象却在第 { $step } 步又调用了 `{ $called }`
check-sequence-missing = 在已匹配的 { $after } 次调用之后，没有（以预期参数）调用 `{ $tool }`；实际调用：{ $tools }
check-sequence-never = 从未（以预期参数）调用 `{ $tool }`；实际调用：{ $tools }
check-not-called-pass = 评测对象没有调用 `{ $tool }`
check-not-called-fail = 评测对象在第 { $step } 步调用了 `{ $tool }`
check-unknown-tool = 第 { $step } 步调用了未提供的工具 `{ $tool }`
check-invalid-arguments = 第 { $step } 步调用 `{ $tool }` 的参数无效：“{ $detail }”
check-known-tools-pass = 全部 { $count } 次调用都使用了已提供的工具，参数有效
check-recover-no-error = 没有工具返回错误
check-recover-repeated = 第 { $step } 步重复了第 { $failed } 步失败的 `{ $tool }` 调用（`{ $code }`）；同样的失败调用又做了 { $times } 次
check-recover-kept-calling = 连续 { $errors } 次工具出错后，评测对象没有告知用户，而是继续调用工具（第 { $step } 步）
check-recover-silent = 连续 { $errors } 次工具出错后，评测对象没有对用户说任何话
check-recover-pass = 评测对象从 { $errors } 次工具错误中恢复，没有重复失败的调用
check-step-limit = 达到步数上限（{ $max } 轮工具调用）：评测对象仍在调用工具

rubric-empty = 回复为空
rubric-short = 回复很短（{ $chars } 个字符）
rubric-refuses = 回复拒绝了，或说帮不了
rubric-repeats = 回复重复了同样的句子
rubric-substantive = 回复内容充实，用到了评分标准中的 { $hits } 个关键词
rubric-plausible = 回复合理，没有明显问题
rubric-heuristic = 离线启发式打分 { $score }/5（需要 { $min }）：{ $why }
rubric-judged = 评审打分 { $score }/5（需要 { $min }）：{ $reason }
rubric-fallback = { $why_not }；{ $grade }
rubric-judge-unusable = 评审的回答里没有可用的分数
rubric-judge-unreachable = 无法连接评审（{ $detail }）

check-document-none = 没有创建或修改与 `{ $path }` 匹配的文档：智能体一份文档也没写
check-document-other = 没有创建或修改与 `{ $path }` 匹配的文档；智能体写的是 { $made }
check-document-pass = `{ $path }` 包含任务要求的内容
check-document-missing = `{ $path }` 缺少 { $values }
check-document-no-section = `{ $path }` 没有标题 { $sections }
check-file-exists = `{ $found }` 已存在（与 `{ $path }` 匹配）
check-file-missing = 工作区中没有与 `{ $path }` 匹配的文件
check-numbers-document-fail = `{ $path }` 中有未经核实的数字 { $numbers }：既不在场景给定的事实中，也不在用户的消息或任何工具结果中
