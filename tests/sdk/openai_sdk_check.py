#!/usr/bin/env python3
"""Checks an OpenAI-compatible endpoint with the official `openai` SDK.

Usage: openai_sdk_check.py BASE_URL [MODEL]
  e.g. openai_sdk_check.py http://127.0.0.1:8788/v1

Proves that clients nobody here wrote can use `agenteval demo-target`:
models, a plain completion, a completion with a tool offered (and the tool
result sent back), streaming, and an OpenAI-style 400. Exits non-zero on
the first failed check.
"""

import json
import sys

import openai
from openai import OpenAI

SEND_EMAIL = {
    "type": "function",
    "function": {
        "name": "send_email",
        "description": "Send an email to a recipient",
        "parameters": {
            "type": "object",
            "properties": {
                "to": {"type": "string"},
                "subject": {"type": "string"},
                "body": {"type": "string"},
            },
            "required": ["to", "subject", "body"],
        },
    },
}


class CheckFailed(Exception):
    pass


def check(condition, message):
    # Not `assert`: python -O would strip it.
    if not condition:
        raise CheckFailed(message)


def check_completion(response, model, what):
    check(response.object == "chat.completion", f"{what}: object is {response.object!r}")
    check(bool(response.id), f"{what}: the completion has an id")
    check(response.model == model, f"{what}: model is {response.model!r}, expected {model!r}")
    check(len(response.choices) >= 1, f"{what}: at least one choice")
    choice = response.choices[0]
    message = choice.message
    check(message.role == "assistant", f"{what}: role is {message.role!r}")
    calls = message.tool_calls or []
    check(
        bool(message.content) or bool(calls),
        f"{what}: the reply carries text or tool calls",
    )
    expected_finish = "tool_calls" if calls else "stop"
    check(
        choice.finish_reason == expected_finish,
        f"{what}: finish_reason is {choice.finish_reason!r}, expected {expected_finish!r}",
    )
    for call in calls:
        check(call.type == "function", f"{what}: tool call type {call.type!r}")
        check(bool(call.id), f"{what}: tool calls have ids")
        try:
            json.loads(call.function.arguments)
        except ValueError as e:
            raise CheckFailed(f"{what}: tool call arguments are not JSON: {e}") from e
    usage = response.usage
    check(usage is not None, f"{what}: usage is reported")
    check(
        usage.total_tokens == usage.prompt_tokens + usage.completion_tokens,
        f"{what}: total_tokens = prompt_tokens + completion_tokens",
    )
    return message


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    base_url = sys.argv[1]
    model = sys.argv[2] if len(sys.argv) > 2 else "agenteval-demo"
    client = OpenAI(base_url=base_url, api_key="sk-local-check", max_retries=0, timeout=15)

    models = [m.id for m in client.models.list()]
    check(model in models, f"GET /models lists {model!r}: {models}")

    plain = client.chat.completions.create(
        model=model,
        messages=[
            {"role": "system", "content": "You are an office assistant."},
            {"role": "user", "content": "Hello, what can you do?"},
        ],
    )
    plain_message = check_completion(plain, model, "plain completion")

    messages = [
        {
            "role": "user",
            "content": "Email bob@example.com, subject: Lunch, body: See you at noon",
        }
    ]
    with_tool = client.chat.completions.create(model=model, messages=messages, tools=[SEND_EMAIL])
    tool_message = check_completion(with_tool, model, "completion with send_email offered")
    for call in tool_message.tool_calls or []:
        check(call.function.name == "send_email", f"only offered tools are called: {call.function.name}")
    if tool_message.tool_calls:
        messages.append(tool_message.model_dump(exclude_none=True))
        for call in tool_message.tool_calls:
            messages.append(
                {"role": "tool", "tool_call_id": call.id, "content": json.dumps({"status": "sent"})}
            )
        follow_up = client.chat.completions.create(model=model, messages=messages, tools=[SEND_EMAIL])
        check_completion(follow_up, model, "completion after the tool result")

    stream = client.chat.completions.create(
        model=model,
        messages=[
            {"role": "system", "content": "You are an office assistant."},
            {"role": "user", "content": "Hello, what can you do?"},
        ],
        stream=True,
        stream_options={"include_usage": True},
    )
    streamed = []
    finish = None
    usage = None
    for chunk in stream:
        check(chunk.object == "chat.completion.chunk", f"stream: object is {chunk.object!r}")
        if chunk.usage is not None:
            usage = chunk.usage
        for choice in chunk.choices:
            if choice.delta.content:
                streamed.append(choice.delta.content)
            if choice.finish_reason:
                finish = choice.finish_reason
    check(finish is not None, "stream: a chunk carries the finish_reason")
    check(usage is not None, "stream: include_usage adds a usage chunk")
    check(
        "".join(streamed) == (plain_message.content or ""),
        "stream: the deltas add up to the non-streamed reply",
    )

    try:
        client.chat.completions.create(model=model, messages=[])
        raise CheckFailed("an empty messages list must be refused")
    except openai.BadRequestError as e:
        check(e.status_code == 400, f"bad request: status {e.status_code}")
        check(bool(str(e)), "bad request: the SDK reads an error message")

    print(f"ok: the openai SDK {openai.__version__} talks to {base_url} ({model})")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except CheckFailed as e:
        print(f"FAILED: {e}", file=sys.stderr)
        sys.exit(1)
    except openai.OpenAIError as e:
        print(f"FAILED: the SDK raised {type(e).__name__}: {e}", file=sys.stderr)
        sys.exit(1)
