"""Writes tests/otlp/sample.jsonl, the file the browser test imports.

The two conversations of genai_traces.py and two more (a return with a
tool call, in English; a change of address with a tool call, in Chinese),
one trace each, recorded with the official OpenTelemetry SDK and written
as OTLP/JSON lines, as a collector's file exporter does; then one line
broken by hand (line 3), which an import skips and names.

    python make_sample.py OUT.jsonl
"""

import json
import sys

from genai_traces import chat, hex_ids, record, text
from google.protobuf.json_format import MessageToDict
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind


def tool_call(call_id, name, arguments):
    return {"role": "assistant", "parts": [{"type": "tool_call", "id": call_id, "name": name, "arguments": arguments}]}


def tool_result(call_id, response):
    return {"role": "tool", "parts": [{"type": "tool_call_response", "id": call_id, "response": response}]}


def more(processor):
    provider = TracerProvider(resource=Resource.create({"service.name": "shop-assistant"}))
    provider.add_span_processor(processor)
    tracer = provider.get_tracer("shop-assistant")

    with tracer.start_as_current_span("POST /chat", kind=SpanKind.SERVER):
        ask = text("user", "I want to return the blue jacket from order B3300. How do I get a refund?")
        call = tool_call("call_7", "start_return", {"order_id": "B3300", "item": "blue jacket"})
        chat(tracer, "conv-return", [ask], [call])
        result = tool_result("call_7", {"return_id": "R-88", "refund": "59.90"})
        answer = dict(text("assistant", "I started return R-88 for the blue jacket. The refund of 59.90 reaches your card within 5 days."), finish_reason="stop")
        chat(tracer, "conv-return", [ask, call, result], [answer])

    with tracer.start_as_current_span("POST /chat", kind=SpanKind.SERVER):
        ask = text("user", "我想把订单A5120的收货地址改成上海市浦东新区世纪大道100号")
        call = tool_call("call_9", "update_address", {"order_id": "A5120", "address": "上海市浦东新区世纪大道100号"})
        chat(tracer, "conv-address", [ask], [call])
        result = tool_result("call_9", {"ok": True})
        answer = dict(text("assistant", "已把订单A5120的收货地址改为上海市浦东新区世纪大道100号。"), finish_reason="stop")
        chat(tracer, "conv-address", [ask, call, result], [answer])
    provider.shutdown()


def main():
    # Each provider's shutdown shuts its exporter: one exporter each.
    spans = []
    for conversations in (record, more):
        exporter = InMemorySpanExporter()
        conversations(SimpleSpanProcessor(exporter))
        spans.extend(exporter.get_finished_spans())
    by_trace = {}
    for span in spans:
        by_trace.setdefault(span.context.trace_id, []).append(span)
    lines = [
        json.dumps(hex_ids(MessageToDict(encode_spans(spans), use_integers_for_enums=True)), ensure_ascii=False)
        for spans in by_trace.values()
    ]
    # A line cut short, as a file copied while it was written would have it.
    lines.insert(2, lines[0][:120])
    with open(sys.argv[1], "w", encoding="utf-8") as out:
        out.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
