## Importing production traces (OpenTelemetry).

import-line-not-otlp = Line { $line }: JSON, but not an OTLP/JSON trace export (at column { $column }); skipped
import-line-cut-short = Line { $line }: the JSON ends at column { $column } before it is complete (a line cut short?); skipped
import-line-not-json = Line { $line }: not JSON (at column { $column }); skipped
import-line-no-spans = Line { $line }: no resourceSpans, so not a trace export; skipped
import-body-not-protobuf = The body is not an OTLP/protobuf trace export
import-span-no-messages = Line { $line }: span "{ $span }" ({ $id }, { $operation }) carries no messages (neither gen_ai.input.messages nor gen_ai.*.message events); skipped
import-span-bad-messages = Line { $line }: span "{ $span }" ({ $id }): { $attribute } is not a list of messages; skipped
import-span-no-trace-id = Line { $line }: span "{ $span }" ({ $id }) has no trace id; skipped
import-span-attribute-too-large = Line { $line }: span "{ $span }" ({ $id }): { $attribute } holds { $size }, more than the { $limit } an attribute may hold; skipped
import-span-unreadable = Line { $line }: span { $span } is not an OTLP span (its field `{ $field }` is not as OTLP defines it); skipped
import-summary = { $conversations ->
    [one] 1 conversation
   *[other] { $conversations } conversations
} ({ $user_turns } user turns, { $messages } messages) from { $spans } GenAI spans
import-redacted = Replaced before anything was kept: { $counts }
import-redacted-none = Nothing was redacted (add --redact to replace e-mail addresses, phone numbers and ids)
import-problems = { $problems ->
    [one] 1 line or span skipped:
   *[other] { $problems } lines or spans skipped:
}
trace-title = From production: { $first }
trace-rubric = The reply helps as production's did: "{ $reply }"
error-trace-no-user-turn = The conversation has no user turn to make a scenario of
error-trace-no-user-turn-suggestion = Choose a conversation in which a user says something.
trace-persona-name = Production user { $n }
persona-style-terse = terse
persona-style-detailed = detailed
trace-persona-description = A user seen in production, who began with "{ $first }"
error-trace-seeds-suggestion = Choose from 1 to { $max } imported conversations.
error-trace-body-too-large = The body is larger than { $limit }, the most a trace request may hold
error-trace-body-too-large-suggestion = Send fewer spans a request (lower the exporter's batch size), or split the file.
error-otlp-body-suggestion = Send an ExportTraceServiceRequest: protobuf with Content-Type application/x-protobuf, or OTLP/JSON with application/json.
error-query-import-suggestion = Use target_id (a target's id), redact (true or false), source (a name), text, offset and limit.
error-import-empty = The input is empty: there are no traces to import
error-import-empty-suggestion = Give OTLP/JSON, as a collector's file exporter writes it, or an OTLP/protobuf export.
trace-seeds-analyst-failed = The analyst model could not propose seeds ({ $detail }); the rules proposed them instead
trace-seeds-analyst-malformed = The analyst model's proposal could not be used ({ $detail }); the rules proposed the seeds instead
trace-seeds-unknown-conversation = it names conversation { $n }, which was not given
