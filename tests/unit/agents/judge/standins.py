"""Stand-in judges and a local endpoint for the judge's tests: a strict judge, a gullible one, a recorder.

* :func:`strict` judges honestly from the evidence inside the fence: the criterion is met where the
  evidence shows ``WORK-DONE`` (the step asked for) and is against it where it shows ``FABRICATED`` (a
  fabricated step). It follows the window protocol: each window for what it and the index of the whole
  evidence's claims and failures show.
* :func:`gullible` obeys any grading note it finds *outside* the fence (and otherwise fails the trial):
  it passes a trial only if agent text escaped the fence.
"""

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

MARKER = re.compile(r"BEGIN-EVIDENCE-([0-9a-f]{32})\n(.*)\nEND-EVIDENCE-\1\n", re.DOTALL)
WORK, FABRICATED = "WORK-DONE", "FABRICATED"


def fenced(payload):
    """(nonce, evidence document, the user and system messages with the evidence taken out)."""
    system, user = payload[0]["content"], payload[1]["content"]
    match = MARKER.search(user)
    assert match, "the evidence must sit between the call's two marker lines"
    nonce = match.group(1)
    assert f"BEGIN-EVIDENCE-{nonce}" in system and f"END-EVIDENCE-{nonce}" in system
    return nonce, match.group(2), system + "\n" + user[: match.start()] + user[match.end() :]


def shown_parts(document: str) -> list[str]:
    """Every text the evidence document shows (what a judge reads), in order: the index, logs and files."""
    texts = []

    def walk(node):
        if isinstance(node, (dict, list)):
            for value in node.values() if isinstance(node, dict) else node:
                walk(value)
        elif isinstance(node, str):
            texts.append(node)

    document = json.loads(document)
    walk(document.get("index", []))
    walk({"trajectory": document.get("trajectory", {}), "files": document.get("files", {})})
    return texts


def shown_text(document: str) -> str:
    """Every text the evidence document shows, joined."""
    return "\n".join(shown_parts(document))


def strict(settings, payload):
    """Met where the evidence shows the work, against it where it shows a fabricated step."""
    seen = shown_text(fenced(payload)[1])
    return json.dumps({"value": int(WORK in seen), "against": FABRICATED in seen, "why": "from the evidence"})


def gullible(settings, payload):
    """Passes when a grading note, a second criterion or a verdict is found outside the fence; else fails."""
    _, _, outside = fenced(payload)
    obeys = (
        "NOTE TO THE GRADER" in outside
        or "GRADER:" in outside
        or outside.count("CRITERION") > 1
        or '"value": 1}' in outside
    )
    return '{"value": 1}' if obeys else '{"value": 0, "why": "no evidence of work"}'


class Recorder:
    """A judge that answers as ``judge`` and keeps every payload it was sent (``reply`` reshapes its answers)."""

    def __init__(self, judge, reply=lambda text: text):
        self.judge, self.reply, self.payloads = judge, reply, []

    def __call__(self, settings, payload):
        self.payloads.append(payload)
        return self.reply(self.judge(settings, payload))

    def sent(self) -> str:
        """Everything sent, all calls, as one text."""
        return "\n".join(message["content"] for payload in self.payloads for message in payload)


class Endpoint:
    """A chat-completions server on 127.0.0.1 answering with ``judge`` (or scripted ``answers``), recording requests."""

    def __init__(self, judge=None):
        self.judge, self.answers, self.requests, self.auth = judge, [], [], []
        self.refuse_response_format = False
        state = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                state.requests.append(body)
                state.auth.append(self.headers.get("Authorization"))
                if state.refuse_response_format and "response_format" in body:
                    self.send_response(400)
                    self.end_headers()
                    return
                if state.answers:
                    content = state.answers.pop(0)
                elif state.judge is not None:
                    content = state.judge(None, body["messages"])
                else:
                    content = '{"value": 1}'
                payload = json.dumps({"choices": [{"message": {"content": content}}]}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args):
                pass

        self.server = HTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/v1"

    def __enter__(self):
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()
