"""A logging pass-through in front of a model server, one per role.

    python3 proxy.py LISTEN_PORT UPSTREAM_BASE LOG_FILE

Forwards every request to UPSTREAM_BASE (e.g. http://127.0.0.1:8799) and
appends one JSON line per chat completion to LOG_FILE: the seconds it took,
the status, the `response_format` type the client sent ("none" when it
sent none), the token counts the server reported, why the answer stopped
and the answer itself, so that tests/model/run.sh can report per role how
long a call takes, how many tokens it read and wrote, and which
structured-output form was used. Loopback only.
"""

import json
import sys
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PORT, UPSTREAM, LOG = int(sys.argv[1]), sys.argv[2].rstrip("/"), sys.argv[3]


class Proxy(BaseHTTPRequestHandler):
    def _forward(self, body):
        req = urllib.request.Request(UPSTREAM + self.path, data=body, method=self.command)
        for name in ("Content-Type", "Authorization"):
            if self.headers.get(name):
                req.add_header(name, self.headers[name])
        started = time.monotonic()
        try:
            with urllib.request.urlopen(req, timeout=600) as res:
                status, payload = res.status, res.read()
        except urllib.error.HTTPError as e:
            status, payload = e.code, e.read()
        seconds = time.monotonic() - started
        if self.path.endswith("/chat/completions") and body:
            try:
                fmt = (json.loads(body).get("response_format") or {}).get("type", "none")
                if fmt == "json_object" and "schema" in json.loads(body)["response_format"]:
                    fmt = "json_object_schema"
            except ValueError:
                fmt = "unreadable"
            entry = {"seconds": seconds, "status": status, "format": fmt}
            try:
                answer = json.loads(payload)
                entry.update(answer.get("usage") or {})
                choice = (answer.get("choices") or [{}])[0]
                entry["finish_reason"] = choice.get("finish_reason")
                entry["content"] = (choice.get("message") or {}).get("content")
            except (ValueError, AttributeError):
                pass
            with open(LOG, "a", encoding="utf-8") as log:
                log.write(json.dumps(entry, ensure_ascii=False) + "\n")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def do_GET(self):
        self._forward(None)

    def do_POST(self):
        self._forward(self.rfile.read(int(self.headers.get("Content-Length", "0"))))

    def log_message(self, *args):
        pass


ThreadingHTTPServer(("127.0.0.1", PORT), Proxy).serve_forever()
