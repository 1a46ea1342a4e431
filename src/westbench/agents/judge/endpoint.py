"""One call to an OpenAI-compatible chat-completions endpoint, the key in the header only.

The reply is asked for in a strict JSON schema (structured output, ``response_format`` ``json_schema``);
an endpoint that refuses it (HTTP 400 or 422) is asked once more without, and the reply is then parsed
just as strictly (:mod:`~westbench.agents.judge.verdict`). Every failure is a
:class:`~westbench.agents.judge.settings.JudgeError` naming the model and the HTTP status or the kind of
network error, never the key, the URL's credentials or the prompt.

Examples
--------
>>> body = request_body(JudgeSettings("m", "http://x", None), [{"role": "user", "content": "?"}], VERDICT_SCHEMA)
>>> body["response_format"]["json_schema"]["strict"], body["model"]
(True, 'm')
>>> chat_completion(JudgeSettings("m", "http://127.0.0.1:9/v1", "sk-secret", timeout_s=5), [])
Traceback (most recent call last):
...
westbench.agents.judge.settings.JudgeError: judge endpoint unreachable: URLError
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Mapping

from westbench.agents.judge.prompt import VERDICT_SCHEMA
from westbench.agents.judge.settings import JudgeError, JudgeSettings


class _BadRequest(Exception):
    """The endpoint refused the request's form (HTTP 400/422): worth one more try without structured output."""


def request_body(settings: JudgeSettings, payload: list[dict], schema: Mapping | None, name: str = "verdict") -> dict:
    """The JSON body of one call: model, messages, temperature and, given a schema, strict structured output."""
    body = {"model": settings.model, "messages": payload, "temperature": settings.temperature}
    if schema is not None:
        body["response_format"] = {
            "type": "json_schema",
            "json_schema": {"name": name, "strict": True, "schema": schema},
        }
    return body


def chat_completion(settings: JudgeSettings, payload: list[dict], schema: Mapping | None = VERDICT_SCHEMA) -> str:
    """The reply's text to ``payload`` (chat messages) from ``{base_url}/chat/completions``."""
    try:
        return _post(settings, request_body(settings, payload, schema))
    except _BadRequest:
        if schema is None:
            raise JudgeError(f"judge endpoint answered HTTP 400 for model {settings.model}") from None
    try:
        return _post(settings, request_body(settings, payload, None))
    except _BadRequest:
        raise JudgeError(f"judge endpoint answered HTTP 400 for model {settings.model}") from None


def _post(settings: JudgeSettings, body: dict) -> str:
    request = urllib.request.Request(
        settings.base_url.rstrip("/") + "/chat/completions",
        data=json.dumps(body).encode(),
        method="POST",
        headers={
            "Content-Type": "application/json",
            **({"Authorization": f"Bearer {settings.api_key}"} if settings.api_key else {}),
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=settings.timeout_s) as response:
            answer = json.loads(response.read())
    except urllib.error.HTTPError as exc:
        if exc.code in (400, 422):
            raise _BadRequest() from None
        raise JudgeError(f"judge endpoint answered HTTP {exc.code} for model {settings.model}") from None
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        raise JudgeError(f"judge endpoint unreachable: {type(exc).__name__}") from None
    except ValueError:
        raise JudgeError(f"judge endpoint answered something that is not JSON for model {settings.model}") from None
    try:
        content = answer["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        raise JudgeError("judge endpoint answered without choices[0].message.content") from None
    if not isinstance(content, str):
        raise JudgeError("judge endpoint answered a choices[0].message.content that is not text")
    return content
