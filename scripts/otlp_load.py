"""Load on the OTLP/HTTP receiver (`POST /v1/traces`) of a running server.

Run by scripts/bench-otlp.sh with the OpenTelemetry SDK's venv
(scripts/python-venv.sh otel):

    otlp_load.py --base URL --key KEY --pid SERVER_PID [--seconds 60] [--rate 10000]

For SECONDS it does four things at once and then checks what was kept:

- emitters (processes, each its own TracerProvider, BatchSpanProcessor and
  OTLPSpanExporter over HTTP/protobuf) make GenAI `chat` spans at RATE a
  second in all, two a conversation (the second turn repeats the first as
  its history, as an instrumented app records it, and is sent a few
  thousand spans later, so in another request); a conversation counts as
  sent when the exporter's request holding one of its spans succeeded;
- a sender posts 1 % as many malformed spans by raw HTTP: bodies that are
  not JSON or are cut short (400 expected), spans of the wrong types, spans
  without a trace id (as JSON and as protobuf) and spans with a 5 MB
  attribute (each beside two valid spans: 200 with a partial success that
  counts and names the malformed ones, the valid ones kept); and, twice,
  a body one byte over the 32 MiB limit, with a Content-Length and
  chunked (413 in the API's error shape expected);
- a prober (its own process) times other API calls a few times a second:
  GET /api/health, /api/campaigns, /api/traces/conversations?limit=20;
- the server's resident memory (VmRSS) is read every second, and the CPU
  the server, the SDK's processes and the whole machine used is counted.

At the end the imported conversations are listed: every conversation sent
(by the SDK, or beside a malformed span in a body answered 200) must be
kept, by count and by key, and none of a malformed span. The figures are
printed, then RESULT lines; the exit status is 1 when a conversation was
lost or one was kept that should not have been, a malformed body got
another answer than expected, a body over the limit got anything but 413
in the error shape, an API call failed, the API's p99 is over --p99-ms
(200), or the SDK dropped spans (the rate was not sustained).
"""

import argparse
import base64
import http.client
import json
import multiprocessing as mp
import os
import random
import re
import socket
import statistics
import sys
import threading
import time
import urllib.parse

TRACE_BODY_LIMIT = 32 * 1024 * 1024
BIG_ATTRIBUTE = 5 * 1000 * 1000
# Turn two of a conversation is sent this many conversations after turn
# one: another batch, another request.
TURN_LAG = 2000


def text(role, content):
    return {"role": role, "parts": [{"type": "text", "content": content}]}


QUESTIONS = [
    "Where is order {n}? I ordered it last week.",
    "Can I return order {n}? It arrived broken.",
    "退款什么时候到账？订单号 {n}",
    "Please change the address of order {n} to 12 Baker Street.",
]


def turns(n):
    """The four messages of conversation `n`: two user turns and answers."""
    ask = text("user", QUESTIONS[n % len(QUESTIONS)].format(n=f"A{n}"))
    answer = text("assistant", f"Order A{n} has shipped and arrives tomorrow.")
    again = text("user", "Thanks. And can I still add a gift note?")
    done = text("assistant", "Yes: reply with the note and I will add it.")
    return ask, answer, again, done


SYSTEM = json.dumps([{"type": "text", "content": "You are the shop's assistant."}])


# ------------------------------------------------------------------ emitters


def emitter(index, args, run, start_at, results):
    """One process of the SDK's load: its share of the rate until the end,
    then the second turns still owed, then a flush; puts its counts in
    `results`."""
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult
    from opentelemetry.trace import SpanKind

    class Counted(SpanExporter):
        """The SDK's exporter, counting what each request carried and how it went."""

        def __init__(self, inner):
            self.inner = inner
            self.ok_spans = 0
            self.failed_spans = 0
            self.failed_requests = 0
            self.requests = 0
            self.keys = set()
            self.durations = []

        def export(self, spans):
            started = time.perf_counter()
            result = self.inner.export(spans)
            self.durations.append((time.perf_counter() - started) * 1000)
            self.requests += 1
            if result == SpanExportResult.SUCCESS:
                self.ok_spans += len(spans)
                self.keys.update(s.attributes["gen_ai.conversation.id"] for s in spans)
            else:
                self.failed_spans += len(spans)
                self.failed_requests += 1
            return result

        def shutdown(self):
            self.inner.shutdown()

        def force_flush(self, timeout_millis=30000):
            return True

    share = args.rate / args.processes
    exporter = Counted(
        OTLPSpanExporter(
            endpoint=args.base + "/v1/traces",
            headers={"X-API-Key": args.key},
            timeout=30,
        )
    )
    provider = TracerProvider(resource=Resource.create({"service.name": "bench-shop"}))
    provider.add_span_processor(
        BatchSpanProcessor(
            exporter,
            # Two seconds of spans may wait; a request carries at most
            # a fifth of a second's.
            max_queue_size=max(2048, int(share * 2)),
            schedule_delay_millis=200,
            max_export_batch_size=max(512, int(share / 5)),
            export_timeout_millis=30000,
        )
    )
    tracer = provider.get_tracer("bench-shop")

    def chat(n, second):
        ask, answer, again, done = turns(n)
        inputs, outputs = ([ask, answer, again], [done]) if second else ([ask], [answer])
        attributes = {
            "gen_ai.operation.name": "chat",
            "gen_ai.request.model": "shop-model",
            "gen_ai.response.model": "shop-model",
            "gen_ai.conversation.id": f"bench-{run}-{index}-{n}",
            "gen_ai.system_instructions": SYSTEM,
            "gen_ai.input.messages": json.dumps(inputs, ensure_ascii=False),
            "gen_ai.output.messages": json.dumps(outputs, ensure_ascii=False),
        }
        tracer.start_span("chat shop-model", kind=SpanKind.CLIENT, attributes=attributes).end()

    while time.time() < start_at:
        time.sleep(0.005)
    began = time.time()
    cpu_began = time.process_time()
    end = began + args.seconds
    made = 0  # spans
    firsts = 0  # conversations begun
    seconds = 0  # conversations whose second turn was made
    behind = 0.0
    while True:
        now = time.time()
        if now >= end:
            break
        due = int((now - began) * share) - made
        if due <= 0:
            time.sleep(0.002)
            continue
        behind = max(behind, due / share)
        for _ in range(min(due, 500)):
            # Alternately a first turn and, TURN_LAG conversations later,
            # the second turn of an earlier conversation.
            if made % 2 == 0 or seconds + TURN_LAG > firsts:
                chat(firsts, False)
                firsts += 1
            else:
                chat(seconds, True)
                seconds += 1
            made += 1
    emitted_for = time.time() - began
    paced = made
    while seconds < firsts:
        chat(seconds, True)
        seconds += 1
        made += 1
    provider.force_flush(120000)
    provider.shutdown()
    results.put(
        {
            "index": index,
            "cpu": time.process_time() - cpu_began,
            "made": made,
            "paced_spans": paced,
            "emitted_for": emitted_for,
            "ok_spans": exporter.ok_spans,
            "failed_spans": exporter.failed_spans,
            "failed_requests": exporter.failed_requests,
            "requests": exporter.requests,
            "keys": sorted(exporter.keys),
            "durations": exporter.durations,
            "conversations": firsts,
            "max_behind_s": behind,
        }
    )


# ------------------------------------------------------------------ raw HTTP


def post(base, key, body, content_type, path="/v1/traces"):
    """POSTs `body`; (status, parsed body or text)."""
    u = urllib.parse.urlparse(base)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=60)
    try:
        conn.request("POST", path, body=body, headers={"X-API-Key": key, "Content-Type": content_type})
        r = conn.getresponse()
        data = r.read()
        return r.status, r.getheader("Content-Type", ""), data
    finally:
        conn.close()


def post_streaming(base, key, size, chunked):
    """POSTs `size` bytes over a raw socket, writing on one thread while
    reading the answer on this one: a server that refuses a body over its
    limit may answer (and close) before it is all sent. (status, body)."""
    u = urllib.parse.urlparse(base)
    sock = socket.create_connection((u.hostname, u.port), timeout=60)
    head = f"POST /v1/traces HTTP/1.1\r\nHost: {u.netloc}\r\nX-API-Key: {key}\r\nContent-Type: application/json\r\n"
    head += "Transfer-Encoding: chunked\r\n\r\n" if chunked else f"Content-Length: {size}\r\n\r\n"
    block = b"x" * (1024 * 1024)

    def write():
        try:
            sock.sendall(head.encode())
            left = size
            while left > 0:
                piece = block[: min(left, len(block))]
                sock.sendall(b"%x\r\n%s\r\n" % (len(piece), piece) if chunked else piece)
                left -= len(piece)
            if chunked:
                sock.sendall(b"0\r\n\r\n")
        except OSError:
            pass  # the server answered and closed first

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    data = b""
    try:
        while b"\r\n\r\n" not in data:
            more = sock.recv(65536)
            if not more:
                break
            data += more
        head_end = data.find(b"\r\n\r\n")
        if head_end < 0:
            return 0, "no answer"
        lines = data[:head_end].decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        length = next((int(line.split(":", 1)[1]) for line in lines if line.lower().startswith("content-length:")), None)
        body = data[head_end + 4 :]
        while length is not None and len(body) < length:
            more = sock.recv(65536)
            if not more:
                break
            body += more
        return status, body.decode("utf-8", "replace")
    except OSError as e:
        return 0, f"connection: {e}"
    finally:
        sock.close()
        writer.join(timeout=10)


# ------------------------------------------------------------------ malformed traffic


def kv(key, value):
    return {"key": key, "value": {"stringValue": value}}


def json_span(trace, span_id, conversation, inputs, outputs, extra=()):
    span = {
        "spanId": span_id,
        "name": "chat shop-model",
        "kind": 3,
        "startTimeUnixNano": str(time.time_ns()),
        "endTimeUnixNano": str(time.time_ns() + 1000),
        "attributes": [
            kv("gen_ai.operation.name", "chat"),
            kv("gen_ai.conversation.id", conversation),
            kv("gen_ai.input.messages", json.dumps(inputs)),
            kv("gen_ai.output.messages", json.dumps(outputs)),
            *extra,
        ],
    }
    if trace is not None:
        span["traceId"] = trace
    return span


def json_export(spans):
    return json.dumps({"resourceSpans": [{"resource": {"attributes": [kv("service.name", "bench-shop")]}, "scopeSpans": [{"scope": {"name": "bench"}, "spans": spans}]}]})


class Malformed:
    """The malformed traffic: what was sent, how each kind was answered,
    and the valid conversations sent beside it."""

    KINDS = ["bad JSON", "wrong types", "no trace id (JSON)", "no trace id (protobuf)", "5 MB attribute"]

    def __init__(self, args, run):
        self.args = args
        self.run = run
        self.n = 0
        self.spans = 0
        self.answers = {k: {} for k in self.KINDS}  # kind -> answer -> count
        self.reasons = {}  # kind -> the reasons given, one of each wording
        self.unexpected = []
        self.valid_keys = set()
        self.bad_keys = set()
        self.over_limit = []  # (how, status, code)
        self.lock = threading.Lock()
        self.turn = 0
        self.big = 0

    def ids(self):
        self.n += 1
        return os.urandom(16).hex(), os.urandom(8).hex(), self.n

    def valid_spans(self, count):
        spans, keys = [], []
        for _ in range(count):
            trace, span, n = self.ids()
            key = f"bench-{self.run}-beside-{n}"
            ask, answer, _, _ = turns(n)
            spans.append(json_span(trace, span, key, [ask], [answer]))
            keys.append(key)
        return spans, keys

    def bad_key(self):
        self.n += 1
        key = f"bench-{self.run}-bad-{self.n}"
        self.bad_keys.add(key)
        return key

    def body(self, kind):
        """(body, content type, malformed spans, valid keys beside them)."""
        ask, answer, _, _ = turns(self.n)
        if kind == "bad JSON":
            spans, _ = self.valid_spans(10)
            whole = json_export(spans)
            cut = whole[: len(whole) // 2] if self.n % 2 else "{resourceSpans: not json" + whole[30:]
            return cut, "application/json", 10, []
        valid, keys = self.valid_spans(2)
        if kind == "wrong types":
            broken = []
            for variant in range(5):
                trace, span, _ = self.ids()
                s = json_span(trace, span, self.bad_key(), [ask], [answer])
                if variant == 0:
                    s["startTimeUnixNano"] = {"seconds": 1}
                elif variant == 1:
                    s["attributes"] = "chat"
                elif variant == 2:
                    s["attributes"][1] = {"key": "gen_ai.conversation.id", "value": {"intValue": "many"}}
                elif variant == 3:
                    s["attributes"][2] = {"key": "gen_ai.input.messages", "value": {"intValue": "42"}}
                else:
                    s["traceId"] = 12345
                broken.append(s)
            return json_export(valid + broken), "application/json", 5, keys
        if kind == "no trace id (JSON)":
            broken = []
            for variant in range(5):
                _, span, _ = self.ids()
                trace = [None, "", "0" * 32, None, ""][variant]
                broken.append(json_span(trace, span, self.bad_key(), [ask], [answer]))
            return json_export(valid + broken), "application/json", 5, keys
        if kind == "no trace id (protobuf)":
            from google.protobuf.json_format import Parse
            from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

            broken = []
            for _ in range(5):
                _, span, _ = self.ids()
                broken.append(json_span(None, span, self.bad_key(), [ask], [answer]))
            doc = json.loads(json_export(valid + broken))
            # protobuf's JSON mapping writes ids in base64.
            for s in doc["resourceSpans"][0]["scopeSpans"][0]["spans"]:
                for k in ("traceId", "spanId"):
                    if k in s:
                        s[k] = base64.b64encode(bytes.fromhex(s[k])).decode()
            request = Parse(json.dumps(doc), ExportTraceServiceRequest())
            return request.SerializeToString(), "application/x-protobuf", 5, keys
        # A 5 MB attribute: in turn the span's messages, padded to 5 MB, or
        # an attribute of the app's beside them.
        trace, span, _ = self.ids()
        self.big += 1
        if self.big % 2:
            huge = [text("user", "Where is my order? " + "x" * BIG_ATTRIBUTE)]
            broken = json_span(trace, span, self.bad_key(), huge, [answer])
        else:
            broken = json_span(trace, span, self.bad_key(), [ask], [answer], [kv("app.request.body", "x" * BIG_ATTRIBUTE)])
        return json_export(valid + [broken]), "application/json", 1, keys

    def send(self, kind, body, content_type, bad, keys):
        try:
            status, answer_type, data = post(self.args.base, self.args.key, body, content_type)
        except OSError as e:
            self.note(kind, "connection error", str(e), expected=False)
            return
        if status == 200 and answer_type.startswith("application/x-protobuf"):
            from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceResponse

            r = ExportTraceServiceResponse()
            r.ParseFromString(data)
            v = {}
            rejected, reason = r.partial_success.rejected_spans, r.partial_success.error_message
        else:
            try:
                v = json.loads(data)
            except ValueError:
                v = {"message": data[:200].decode("utf-8", "replace")}
            p = v.get("partialSuccess") or {}
            rejected = int(p.get("rejectedSpans", 0))
            reason = p.get("errorMessage") or v.get("message") or ""
        if kind == "bad JSON":
            expected = status == 400 and bool(reason)
            answer = f"{status} {v.get('code', '')}".strip()
        else:
            expected = status == 200 and rejected == bad and bool(reason)
            answer = f"{status}, {rejected} of {bad} rejected, named"
            if status == 200:
                with self.lock:
                    self.valid_keys.update(keys)
        self.note(kind, answer, reason, expected)

    def note(self, kind, answer, reason, expected):
        with self.lock:
            self.answers[kind][answer] = self.answers[kind].get(answer, 0) + 1
            seen = self.reasons.setdefault(kind, [])
            wording = re.sub(r"[0-9a-f]{16}|\d+", "", reason)
            if len(seen) < 3 and all(re.sub(r"[0-9a-f]{16}|\d+", "", r) != wording for r in seen):
                seen.append(reason)
            if not expected:
                self.unexpected.append(f"{kind}: {answer}: {reason[:300]}")

    def over(self, chunked):
        status, body = post_streaming(self.args.base, self.args.key, TRACE_BODY_LIMIT + 1, chunked)
        try:
            v = json.loads(body)
            code = v.get("code", "") if {"code", "message", "suggestion"} <= v.keys() else "not the error shape"
        except ValueError:
            code = f"not the error shape: {body[:80]!r}"
        self.over_limit.append(("chunked" if chunked else "Content-Length", status, code))

    def loop(self, stop, began, first):
        """1 % of the rate in malformed spans, the kinds in turn, shared by
        the threads that run this; the bodies over the limit a third and
        two thirds of the way, by the `first` thread."""
        per_second = self.args.rate / 100
        over_at = [began + self.args.seconds / 3, began + 2 * self.args.seconds / 3] if first else []
        while not stop.is_set():
            if over_at and time.time() >= over_at[0]:
                over_at.pop(0)
                self.over(chunked=len(over_at) == 0)
                continue
            with self.lock:
                due = self.spans < (time.time() - began) * per_second
                if due:
                    kind = self.KINDS[self.turn % len(self.KINDS)]
                    self.turn += 1
                    body, content_type, bad, keys = self.body(kind)
                    self.spans += bad
            if not due:
                time.sleep(0.01)
                continue
            self.send(kind, body, content_type, bad, keys)


# ------------------------------------------------------------------ prober, memory


PROBES = ["/api/health", "/api/campaigns", "/api/traces/conversations?limit=20"]


def prober(base, key, per_second, stop_at, results):
    """Times the probes in turn, `per_second` calls a second, on one
    keep-alive connection (a new one after an error)."""
    u = urllib.parse.urlparse(base)
    conn = None
    samples, errors = [], []
    i = 0
    next_at = time.time()
    while time.time() < stop_at:
        path = PROBES[i % len(PROBES)]
        i += 1
        started = time.perf_counter()
        try:
            conn = conn or http.client.HTTPConnection(u.hostname, u.port, timeout=30)
            conn.request("GET", path, headers={"X-API-Key": key})
            r = conn.getresponse()
            r.read()
            ms = (time.perf_counter() - started) * 1000
            samples.append((path, ms))
            if r.status != 200:
                errors.append(f"{path}: {r.status}")
        except (OSError, http.client.HTTPException) as e:
            errors.append(f"{path}: {e}")
            conn = None
        next_at += 1 / per_second
        time.sleep(max(0.0, next_at - time.time()))
    results.put({"samples": samples, "errors": errors})


def rss_mb(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def cpu_seconds(pid):
    """The process's CPU time so far (user and system)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return float("nan")


def machine_cpu():
    """(busy, all) CPU seconds of the whole machine so far, from /proc/stat."""
    with open("/proc/stat") as f:
        ticks = [int(x) for x in f.readline().split()[1:]]
    idle = ticks[3] + ticks[4]  # idle, iowait
    hz = os.sysconf("SC_CLK_TCK")
    return (sum(ticks[:8]) - idle) / hz, sum(ticks[:8]) / hz


def sample_memory(pid, stop, samples):
    while not stop.is_set():
        m = rss_mb(pid)
        if m is not None:
            samples.append((time.time(), m))
        stop.wait(1)


# ------------------------------------------------------------------ the end


def get_json(base, key, path):
    u = urllib.parse.urlparse(base)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=120)
    try:
        conn.request("GET", path, headers={"X-API-Key": key})
        r = conn.getresponse()
        return r.status, json.loads(r.read() or b"null")
    finally:
        conn.close()


def kept_keys(base, key, prefix):
    """Every imported conversation's key that starts with `prefix`, read
    page by page, and the total the API gives."""
    keys = set()
    _, first = get_json(base, key, "/api/traces/conversations?limit=1")
    total = first["total"]
    offset = 0
    while offset < total:
        status, page = get_json(base, key, f"/api/traces/conversations?limit=500&offset={offset}")
        if status != 200 or not page["conversations"]:
            break
        keys.update(c["key"] for c in page["conversations"] if c["key"].startswith(prefix))
        offset += len(page["conversations"])
    return total, keys


def pct(values, p):
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, max(0, int(round(p / 100 * len(s) + 0.5)) - 1))]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", required=True)
    ap.add_argument("--key", required=True)
    ap.add_argument("--pid", type=int, required=True, help="the server's process, for its memory")
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--rate", type=float, default=10000, help="GenAI spans a second, in all")
    ap.add_argument("--processes", type=int, default=2, help="emitter processes")
    ap.add_argument("--probes-per-second", type=float, default=6)
    ap.add_argument("--p99-ms", type=float, default=200)
    args = ap.parse_args()
    run = f"{int(time.time())}{random.randrange(1000):03d}"
    prefix = f"bench-{run}-"

    ctx = mp.get_context("spawn")
    results = ctx.Queue()
    start_at = time.time() + 3  # the emitters' imports take a moment
    emitters = [ctx.Process(target=emitter, args=(i, args, run, start_at, results)) for i in range(args.processes)]
    for p in emitters:
        p.start()
    probe_results = ctx.Queue()
    probe = ctx.Process(target=prober, args=(args.base, args.key, args.probes_per_second, start_at + args.seconds, probe_results))

    memory = []
    stop_memory = threading.Event()
    rss_start = rss_mb(args.pid)
    memory_thread = threading.Thread(target=sample_memory, args=(args.pid, stop_memory, memory), daemon=True)
    memory_thread.start()
    while time.time() < start_at:
        time.sleep(0.01)
    cpu_start = cpu_seconds(args.pid)
    machine_start = machine_cpu()
    probe.start()
    malformed = Malformed(args, run)
    stop_malformed = threading.Event()
    senders = [threading.Thread(target=malformed.loop, args=(stop_malformed, start_at, i == 0), daemon=True) for i in range(2)]
    for sender in senders:
        sender.start()

    emitted = [results.get() for _ in emitters]
    flushed_at = time.time()
    cpu_used = cpu_seconds(args.pid) - cpu_start
    machine_busy = machine_cpu()[0] - machine_start[0]
    stop_malformed.set()
    for sender in senders:
        sender.join()
    for p in emitters:
        p.join()
    probed = probe_results.get()
    probe.join()
    stop_memory.set()
    memory_thread.join()
    rss_end = rss_mb(args.pid)

    sent_keys = set(k for e in emitted for k in e["keys"])
    expected = sent_keys | malformed.valid_keys
    total, kept = kept_keys(args.base, args.key, prefix)
    lost = expected - kept
    wrongly_kept = kept & malformed.bad_keys
    unexplained = kept - expected - malformed.bad_keys

    ok_spans = sum(e["ok_spans"] for e in emitted)
    made = sum(e["made"] for e in emitted)
    paced = sum(e["paced_spans"] for e in emitted)
    emitted_for = max(e["emitted_for"] for e in emitted)
    dropped = made - ok_spans - sum(e["failed_spans"] for e in emitted)
    durations = [d for e in emitted for d in e["durations"]]
    latencies = [ms for _, ms in probed["samples"]]
    p50, p99 = pct(latencies, 50), pct(latencies, 99)
    peak = max((m for _, m in memory), default=float("nan"))
    over_413 = [o for o in malformed.over_limit if o[1] == 413 and o[2] == "PAYLOAD_TOO_LARGE"]

    failures = []
    if lost:
        failures.append(f"{len(lost)} valid conversations sent were not kept (e.g. {sorted(lost)[:3]})")
    if wrongly_kept:
        failures.append(f"{len(wrongly_kept)} conversations of malformed spans were kept (e.g. {sorted(wrongly_kept)[:3]})")
    if unexplained:
        failures.append(f"{len(unexplained)} conversations kept that nobody sent (e.g. {sorted(unexplained)[:3]})")
    if malformed.unexpected:
        failures.append(f"{len(malformed.unexpected)} malformed bodies answered otherwise than expected; first: {malformed.unexpected[0]}")
    if not over_413 or len(over_413) != len(malformed.over_limit):
        failures.append(f"bodies over the limit: {malformed.over_limit}, all expected 413 PAYLOAD_TOO_LARGE")
    if probed["errors"]:
        failures.append(f"{len(probed['errors'])} API calls failed; first: {probed['errors'][0]}")
    if not p99 <= args.p99_ms:
        failures.append(f"other API calls' p99 {p99:.0f} ms is over {args.p99_ms:.0f} ms")
    if dropped:
        failures.append(f"the SDK dropped {dropped} spans its exporter could not send in time: {args.rate:.0f} spans/s was not sustained")
    failed_requests = sum(e["failed_requests"] for e in emitted)
    if failed_requests:
        failures.append(f"{failed_requests} of the exporter's requests failed")

    print()
    print(f"== OTLP receiver: {args.rate:.0f} GenAI spans/s asked for {args.seconds:.0f} s, {args.processes} SDK processes")
    print(f"  spans made by the SDK            {made} ({paced / emitted_for:.0f}/s paced; the rest are second turns owed at the end)")
    print(f"  spans accepted by the receiver   {ok_spans} ({ok_spans / (flushed_at - start_at):.0f}/s until the last flush)")
    print(f"  spans dropped by the SDK queue   {dropped}")
    print(f"  exporter requests                {sum(e['requests'] for e in emitted)}, {failed_requests} failed; p50 {pct(durations, 50):.0f} ms, p99 {pct(durations, 99):.0f} ms, max {max(durations, default=0):.0f} ms")
    print(f"  slowest emitter fell behind by   {max(e['max_behind_s'] for e in emitted):.2f} s at most")
    print(f"  valid conversations sent         {len(expected)} ({len(sent_keys)} by the SDK, {len(malformed.valid_keys)} beside malformed spans)")
    print(f"  valid conversations kept         {len(expected & kept)} (lost {len(lost)}); the API lists {total} in all")
    print(f"  malformed spans sent             {malformed.spans} ({malformed.spans / args.seconds:.0f}/s); kept of them {len(wrongly_kept)}")
    for kind in malformed.KINDS:
        answers = ", ".join(f"{n} x {a}" for a, n in sorted(malformed.answers[kind].items()))
        print(f"    {kind:<24} {answers}")
        for reason in malformed.reasons.get(kind, []):
            print(f"      e.g. \"{reason[:160]}\"")
    for how, status, code in malformed.over_limit:
        print(f"  32 MiB + 1 byte, {how:<15} {status} {code}")
    print(f"  other API calls                  {len(latencies)}, {len(probed['errors'])} failed; p50 {p50:.1f} ms, p99 {p99:.1f} ms, max {max(latencies, default=0):.1f} ms")
    for path in PROBES:
        ms = [m for p, m in probed["samples"] if p == path]
        print(f"    {path:<34} p50 {pct(ms, 50):.1f} ms, p99 {pct(ms, 99):.1f} ms")
    wall = flushed_at - start_at
    sdk_cpu = sum(e["cpu"] for e in emitted)
    print(f"  CPU, cores on average            server {cpu_used / wall:.2f}, SDK processes {sdk_cpu / wall:.2f}, whole machine {machine_busy / wall:.2f} of {os.cpu_count()}")
    quarters = []
    for q in (1, 2, 3, 4):
        at = start_at + q * args.seconds / 4
        near = [m for t, m in memory if t <= at]
        quarters.append(f"{near[-1]:.0f}" if near else "?")
    print(f"  server RSS                       start {rss_start:.0f} MB, peak {peak:.0f} MB, end {rss_end or float('nan'):.0f} MB; at each quarter of the load {' / '.join(quarters)} MB")
    for failure in failures:
        print(f"  FAILED: {failure}")
    print()
    print(f"RESULT otlp_spans_per_s {ok_spans / (flushed_at - start_at):.0f} spans/s")
    print(f"RESULT otlp_conversations_sent {len(expected)} conversations")
    print(f"RESULT otlp_conversations_lost {len(lost)} conversations")
    print(f"RESULT otlp_malformed_spans {malformed.spans} spans")
    print(f"RESULT otlp_malformed_unexpected {len(malformed.unexpected)} bodies")
    print(f"RESULT otlp_over_limit_413 {len(over_413)} of {len(malformed.over_limit)}")
    print(f"RESULT otlp_api_p50_ms {p50:.1f} ms")
    print(f"RESULT otlp_api_p99_ms {p99:.1f} ms")
    print(f"RESULT otlp_server_cpu_cores {cpu_used / wall:.2f} cores")
    print(f"RESULT otlp_rss_start_mb {rss_start:.0f} MB")
    print(f"RESULT otlp_rss_peak_mb {peak:.0f} MB")
    print(f"RESULT otlp_rss_end_mb {rss_end or float('nan'):.0f} MB")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
