"""Production-like GenAI traces made with the official OpenTelemetry SDK.

Two conversations of a shop assistant, recorded as the GenAI semantic
conventions say (a `chat` span per model call, the messages in
`gen_ai.input.messages` / `gen_ai.output.messages`, the conversation in
`gen_ai.conversation.id`), with a tool call and its result, personal data
in the user's words, and a span of another kind beside them.

    genai_traces.py file OUT.jsonl
        writes OTLP/JSON, one ExportTraceServiceRequest a line, as a
        collector's file exporter does (trace and span ids in hex);
    genai_traces.py http URL KEY
        sends the same spans to URL/v1/traces with the SDK's OTLP/HTTP
        (protobuf) exporter, with the API key in X-API-Key.
"""

import base64
import json
import sys

from google.protobuf.json_format import MessageToDict
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as gen_ai
from opentelemetry.trace import SpanKind


def text(role, content):
    return {"role": role, "parts": [{"type": "text", "content": content}]}


def chat(tracer, conversation, inputs, outputs, model="shop-model"):
    with tracer.start_as_current_span(f"chat {model}", kind=SpanKind.CLIENT) as span:
        span.set_attribute(gen_ai.GEN_AI_OPERATION_NAME, "chat")
        span.set_attribute(gen_ai.GEN_AI_REQUEST_MODEL, model)
        span.set_attribute(gen_ai.GEN_AI_RESPONSE_MODEL, model)
        span.set_attribute(gen_ai.GEN_AI_CONVERSATION_ID, conversation)
        span.set_attribute(
            gen_ai.GEN_AI_SYSTEM_INSTRUCTIONS,
            json.dumps([{"type": "text", "content": "You are the shop's assistant."}]),
        )
        span.set_attribute(gen_ai.GEN_AI_INPUT_MESSAGES, json.dumps(inputs, ensure_ascii=False))
        span.set_attribute(gen_ai.GEN_AI_OUTPUT_MESSAGES, json.dumps(outputs, ensure_ascii=False))


def record(processor):
    provider = TracerProvider(resource=Resource.create({"service.name": "shop-assistant"}))
    provider.add_span_processor(processor)
    tracer = provider.get_tracer("shop-assistant")

    # An English conversation over two model calls: a tool call, its result.
    with tracer.start_as_current_span("POST /chat", kind=SpanKind.SERVER) as http:
        http.set_attribute("http.request.method", "POST")
        first = text("user", "Where is order A1024? Reach me at ada@example.com or +44 20 7946 0958.")
        call = {
            "role": "assistant",
            "parts": [{"type": "tool_call", "id": "call_1", "name": "get_order", "arguments": {"order_id": "A1024"}}],
        }
        chat(tracer, "conv-en", [first], [call])
        result = {"role": "tool", "parts": [{"type": "tool_call_response", "id": "call_1", "response": {"status": "shipped"}}]}
        answer = dict(text("assistant", "Order A1024 has shipped and arrives tomorrow."), finish_reason="stop")
        chat(tracer, "conv-en", [first, call, result], [answer])

    # A Chinese conversation in another trace: the assistant asks back.
    with tracer.start_as_current_span("POST /chat", kind=SpanKind.SERVER):
        ask = text("user", "退款什么时候到账？我的手机是13812345678")
        back = dict(text("assistant", "请问您的订单号是多少？"), finish_reason="stop")
        chat(tracer, "conv-zh", [ask], [back])
        again = text("user", "订单号是A2048")
        done = dict(text("assistant", "退款将在3到5个工作日内到账。"), finish_reason="stop")
        chat(tracer, "conv-zh", [ask, back, again], [done])
    provider.shutdown()


def hex_ids(node):
    """OTLP/JSON writes trace and span ids in hex, not protobuf's base64."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("traceId", "spanId", "parentSpanId") and value:
                node[key] = base64.b64decode(value).hex()
            else:
                hex_ids(value)
    elif isinstance(node, list):
        for item in node:
            hex_ids(item)
    return node


def main():
    mode = sys.argv[1]
    if mode == "file":
        exporter = InMemorySpanExporter()
        record(SimpleSpanProcessor(exporter))
        with open(sys.argv[2], "w", encoding="utf-8") as out:
            # One export a conversation's trace, as a collector batches them.
            spans = exporter.get_finished_spans()
            by_trace = {}
            for span in spans:
                by_trace.setdefault(span.context.trace_id, []).append(span)
            for trace_spans in by_trace.values():
                request = encode_spans(trace_spans)
                out.write(json.dumps(hex_ids(MessageToDict(request, use_integers_for_enums=True)), ensure_ascii=False) + "\n")
    elif mode == "http":
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        exporter = OTLPSpanExporter(endpoint=sys.argv[2].rstrip("/") + "/v1/traces", headers={"X-API-Key": sys.argv[3]})
        record(SimpleSpanProcessor(exporter))
    else:
        sys.exit(f"unknown mode {mode}: use file or http")


if __name__ == "__main__":
    main()
