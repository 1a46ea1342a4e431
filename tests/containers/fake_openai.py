"""A local OpenAI-compatible chat-completions server that plays a model for tests (no internet here).

Requests for the judge's model answer ``{"value": 1}``; all others are answered as a Terminus-2
agent would: the first turn sends the scripted commands, every later turn declares the task
complete (Terminus asks twice). Given ``turns`` instead, turn ``k`` (counted by the assistant messages
the request holds) answers the ``k``-th scripted turn, and every turn after them declares the task
complete with the last turn's analysis (tests/fixtures/trajectories/record.py records trajectories so).
Each answer reports token usage, so Harbor's token and cost accounting runs as with a real provider.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class FakeOpenAI:
    """Serve ``/v1/chat/completions`` on 127.0.0.1 in a thread; ``url`` is the base URL to give clients."""

    def __init__(self, commands: list[str], judge_model: str, turns: list[dict] | None = None):
        self.commands, self.judge_model, self.turns = commands, judge_model, turns
        self.requests: list[dict] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                fake.requests.append(body)
                content = fake.answer(body)
                prompt_tokens = len(json.dumps(body.get("messages", []))) // 4
                payload = {
                    "id": f"chatcmpl-{len(fake.requests)}",
                    "object": "chat.completion",
                    "created": int(time.time()),
                    "model": body.get("model", "fake"),
                    "choices": [
                        {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
                    ],
                    "usage": {
                        "prompt_tokens": prompt_tokens,
                        "completion_tokens": len(content) // 4,
                        "total_tokens": prompt_tokens + len(content) // 4,
                    },
                }
                data = json.dumps(payload).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def answer(self, body: dict) -> str:
        if body.get("model") == self.judge_model:
            return '{"value": 1}'
        if self.turns is not None:
            turn = sum(message.get("role") == "assistant" for message in body.get("messages", []))
            if turn < len(self.turns):
                step = self.turns[turn]
                return json.dumps(
                    {
                        "analysis": step["analysis"],
                        "plan": step.get("plan", ""),
                        "commands": [
                            {"keystrokes": c, "duration": step.get("duration", 1.0)} for c in step["commands"]
                        ],
                        "task_complete": False,
                    }
                )
            return json.dumps(
                {"analysis": self.turns[-1]["final"], "plan": "Finish.", "commands": [], "task_complete": True}
            )
        first_turn = not any(message.get("role") == "assistant" for message in body.get("messages", []))
        if first_turn:
            return json.dumps(
                {
                    "analysis": "Nothing is done yet.",
                    "plan": "Write the deliverable.",
                    "commands": [{"keystrokes": command, "duration": 0.5} for command in self.commands],
                    "task_complete": False,
                }
            )
        return json.dumps(
            {"analysis": "The deliverable is written.", "plan": "Finish.", "commands": [], "task_complete": True}
        )

    def __enter__(self) -> "FakeOpenAI":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
