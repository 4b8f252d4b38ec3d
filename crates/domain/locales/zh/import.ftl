## 导入生产环境追踪数据（`OpenTelemetry`）。

import-line-not-otlp = 第 { $line } 行：是 `JSON`，但不是 `OTLP/JSON` 追踪导出（第 { $column } 列），已跳过
import-line-cut-short = 第 { $line } 行：`JSON` 在第 { $column } 列就结束了，内容不完整（该行可能被截断），已跳过
import-line-not-json = 第 { $line } 行：不是 `JSON`（第 { $column } 列），已跳过
import-line-no-spans = 第 { $line } 行：没有 `resourceSpans`，不是追踪导出，已跳过
import-body-not-protobuf = 请求体不是 `OTLP/protobuf` 追踪导出
import-span-no-messages = 第 { $line } 行：跨度“{ $span }”（{ $operation }）没有任何消息（既没有 `gen_ai.input.messages`，也没有 `gen_ai.*.message` 事件），已跳过
import-span-bad-messages = 第 { $line } 行：跨度“{ $span }”的 { $attribute } 不是消息列表，已跳过
import-summary = 从 { $spans } 个 `GenAI` 跨度重建了 { $conversations } 段对话（用户发言 { $user_turns } 轮，消息 { $messages } 条）
import-redacted = 保存前已替换：{ $counts }
import-redacted-none = 未做脱敏（加上 `--redact` 可替换邮箱、电话号码和证件号）
import-problems = 跳过了 { $problems } 行或跨度：
trace-title = 来自生产环境：{ $first }
trace-rubric = 回复要像生产环境中那样帮到用户：“{ $reply }”
error-trace-no-user-turn = 这段对话没有用户发言，无法生成场景
error-trace-no-user-turn-suggestion = 请选择一段有用户发言的对话。
trace-persona-name = 生产环境用户 { $n }
persona-style-terse = 简洁
persona-style-detailed = 详细
trace-persona-description = 生产环境中出现过的用户，开头说的是“{ $first }”
error-trace-seeds-suggestion = 请选择 1 到 { $max } 段导入的对话。
error-otlp-body-suggestion = 请发送 `ExportTraceServiceRequest`：`protobuf` 格式配 `Content-Type: application/x-protobuf`，或 `OTLP/JSON` 格式配 `application/json`。
error-query-import-suggestion = 可用的参数：`target_id`（评测对象的 id）、`redact`（`true` 或 `false`）、`source`（名称）、`text`、`offset` 和 `limit`。
error-import-empty = 输入为空：没有可导入的追踪数据
error-import-empty-suggestion = 请提供采集器文件导出器写出的 `OTLP/JSON`，或 `OTLP/protobuf` 导出数据。
trace-seeds-analyst-failed = 分析模型未能提出种子（{ $detail }），已改由规则提出
trace-seeds-analyst-malformed = 分析模型提出的种子无法使用（{ $detail }），已改由规则提出
