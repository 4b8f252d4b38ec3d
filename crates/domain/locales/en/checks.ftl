# Why a check of a scenario passed or failed. Quoted values are the
# scenario's and the reply's own text.

check-contains-pass = the reply contains "{ $value }"
check-contains-fail = the reply does not contain "{ $value }"
check-contains-none = the reply contains none of: { $values }
check-forbidden = the reply contains forbidden text: { $values }
check-regex-pass = the reply matches /{ $pattern }/ at "{ $at }"
check-regex-fail = the reply does not match /{ $pattern }/
check-regex-bad = the pattern /{ $pattern }/ is invalid: { $detail }
check-repeat-fail = the reply repeats the previous one word for word: "{ $reply }"
check-repeat-pass = the reply differs from the previous one
check-repeat-first = the first reply: nothing to repeat
check-latency-pass = the reply took { $took } ms, within the limit of { $limit } ms
check-latency-fail = the reply took { $took } ms, over the limit of { $limit } ms
check-numbers-none = the reply states no numbers
check-numbers-pass = all { $count } number(s) in the reply appear in the facts, the user's messages or the tools' results
check-numbers-fail = unverified number(s) { $numbers }: they appear neither in the scenario's facts, nor in the user's messages, nor in any tool result
check-ask-acted = the target acted instead of asking: it called { $tools }
check-ask-none = the reply asks nothing back (no question mark or question words): "{ $reply }"
check-ask-pass = the reply asks back ("{ $question }") and makes no tool call
check-ask-field-pass = the reply asks back for `{ $field }` and makes no tool call
check-ask-field-missing = the reply asks a question but does not mention the missing `{ $field }`: "{ $reply }"
check-json-bad-path = `{ $path }` is not a valid JSONPath: { $detail }
check-doc-reply = the reply's JSON
check-doc-tool = the arguments of tool call `{ $tool }`
check-json-no-document = the reply holds no JSON and made no tool call, so there is nothing to query
check-json-has = { $document } has { $path } = { $value }
check-json-expected = expected { $path } = { $want }, but { $seen }
check-json-nothing = { $path } finds nothing in the reply's JSON or the tool calls' arguments
check-tool-none-made = it made no tool call
check-tool-others = it called { $tools }
check-tool-not-called = the target did not call `{ $tool }`; { $made }
check-tool-called = the target called `{ $tool }`
check-tool-bad-schema = the arguments schema is invalid: { $detail }
check-tool-valid = the target called `{ $tool }` with arguments that match the schema: { $arguments }
check-tool-invalid = the target called `{ $tool }` but its arguments do not match the schema: { $problems }

check-sequence-pass = the calls followed the sequence { $tools }
check-sequence-wrong = step { $step } should call `{ $tool }`, but the target called `{ $called }`
check-sequence-short = the sequence expects `{ $tool }` next, but the target made only { $made } call(s): { $tools }
check-sequence-extra = the sequence is complete, but the target went on to call `{ $called }` at step { $step }
check-sequence-missing = `{ $tool }` (with the expected arguments) was not called after the { $after } call(s) already matched; the calls were: { $tools }
check-sequence-never = `{ $tool }` (with the expected arguments) was never called; the calls were: { $tools }
check-not-called-pass = the target did not call `{ $tool }`
check-not-called-fail = the target called `{ $tool }` at step { $step }
check-unknown-tool = step { $step } called `{ $tool }`, which is not offered
check-invalid-arguments = step { $step } called `{ $tool }` with invalid arguments: “{ $detail }”
check-known-tools-pass = all { $count } call(s) named an offered tool with valid arguments
check-recover-no-error = no tool returned an error
check-recover-repeated = step { $step } repeats the call of `{ $tool }` that failed at step { $failed } (`{ $code }`); the identical failing call was made { $times } more time(s)
check-recover-kept-calling = after { $errors } consecutive tool errors the target kept calling tools (step { $step }) instead of telling the user
check-recover-silent = after { $errors } consecutive tool errors the target said nothing to the user
check-recover-pass = the target recovered from { $errors } tool error(s) without repeating a failing call
check-step-limit = step limit reached ({ $max } tool rounds): the target was still calling tools

rubric-empty = the reply is empty
rubric-short = the reply is very short ({ $chars } characters)
rubric-refuses = the reply refuses or says it cannot help
rubric-repeats = the reply repeats the same sentences
rubric-substantive = a substantive reply that uses { $hits } of the rubric's terms
rubric-plausible = a plausible reply; nothing obviously wrong
rubric-heuristic = offline heuristic scored { $score }/5 (needs { $min }): { $why }
rubric-judged = judge scored { $score }/5 (needs { $min }): { $reason }
rubric-fallback = { $why_not }; { $grade }
rubric-judge-unusable = the judge's answer had no usable score
rubric-judge-unreachable = the judge could not be reached ({ $detail })

check-document-none = no document was created or changed matching `{ $path }`: the agent wrote none
check-document-other = no document was created or changed matching `{ $path }`; the agent wrote { $made }
check-document-pass = `{ $path }` holds what the task asks for
check-document-missing = `{ $path }` lacks { $values }
check-document-no-section = `{ $path }` has no heading { $sections }
check-file-exists = `{ $found }` exists (matches `{ $path }`)
check-file-missing = no file in the workspace matches `{ $path }`
check-numbers-document-fail = unverified number(s) { $numbers } in `{ $path }`: they appear neither in the scenario's facts, nor in the user's messages, nor in any tool result
