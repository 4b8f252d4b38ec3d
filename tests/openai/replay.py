"""Sends recorded chat completion requests through the official OpenAI
Python SDK: each request body is first validated against the SDK's own
request types (CompletionCreateParamsNonStreaming, with pydantic, every
item of its Iterable fields included), then sent with
client.chat.completions.create to a server that refuses what OpenAI
refuses. Usage: replay.py REQUESTS.jsonl BASE_URL"""
import json
import sys

import openai
from openai.types.chat import completion_create_params
from pydantic import TypeAdapter

PARAMS = TypeAdapter(completion_create_params.CompletionCreateParamsNonStreaming)


def force(value) -> None:
    """Walks a validated value: pydantic validates the items of an
    Iterable field (messages, tools, tool_calls, content parts) only as
    they are iterated, so every one is iterated here."""
    if isinstance(value, dict):
        for v in value.values():
            force(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            force(v)
    elif hasattr(value, "__next__"):
        for v in value:
            force(v)


def check(body: dict) -> None:
    force(PARAMS.validate_python(body))


def main() -> int:
    path, base_url = sys.argv[1], sys.argv[2]
    client = openai.OpenAI(base_url=base_url, api_key="unused", max_retries=0, timeout=30)
    with open(path, encoding="utf-8") as f:
        bodies = [json.loads(line) for line in f if line.strip()]
    # The check itself must refuse what the SDK's types refuse.
    for bad in ({"role": "tool", "content": "x"},
                {"role": "assistant", "content": "", "tool_calls": [
                    {"id": "a", "type": "function", "function": {"name": "x", "arguments": {}}}]}):
        try:
            check({"model": "m", "messages": [bad]})
        except Exception:
            continue
        print(f"the check accepted a message the SDK's types refuse: {bad}")
        return 1
    for i, body in enumerate(bodies):
        try:
            check(body)
        except Exception as e:  # the SDK's types refused the request
            print(f"request {i}: not a valid request for the SDK: {e}")
            return 1
        try:
            client.chat.completions.create(**body)
        except openai.APIStatusError as e:
            print(f"request {i}: the server refused it through the SDK: {e.status_code} {e.message}")
            return 1
    print(f"replayed {len(bodies)} requests")
    return 0


if __name__ == "__main__":
    sys.exit(main())
