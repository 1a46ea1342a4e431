"""Process criteria judged by an LLM through an OpenAI-compatible chat endpoint.

The endpoint comes from environment variables whose names the config gives (model, base URL, key).
Each criterion of a task's ``rubric.toml`` is judged ``repeats`` times and averaged; every call is
cached under a hash of the criterion, the rubric, the model, the trajectory and the files, so a rerun
costs nothing. Without an endpoint every criterion is reported as not judged (``value`` None), never
as passed. The key is sent in the Authorization header only: it is never written to results or logs.

Binary criteria score 0 or 1; Likert criteria 1-5, mapped to (v - 1) / 4. A criterion passes when its
mean is at least 0.5 (binary) or 0.75 (Likert, i.e. 4 of 5).

Examples
--------
>>> parse_verdict('{"value": 4, "why": "clear"}', "likert")
0.75
>>> parse_verdict('Answer: {"value": 1}', "binary")
1.0
>>> settings = JudgeSettings.from_env({}, repeats=3)
>>> settings.configured
False
>>> judge_trial({"criteria": [{"id": "c", "type": "binary", "question": "?"}]}, "task", "", {}, settings, None)["process"] is None
True
"""

from __future__ import annotations

import hashlib
import json
import re
import time
import tomllib
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping

from westbench.errors import WestbenchError

PASS_THRESHOLD = {"binary": 0.5, "likert": 0.75}
DEFAULT_ENV = {"model": "WESTBENCH_JUDGE_MODEL", "base_url": "WESTBENCH_JUDGE_BASE_URL", "api_key": "WESTBENCH_JUDGE_API_KEY"}


class JudgeError(WestbenchError):
    """The judge endpoint failed or answered something unusable."""


@dataclass(frozen=True)
class JudgeSettings:
    model: str | None
    base_url: str | None
    api_key: str | None
    repeats: int = 3
    temperature: float = 0.0
    timeout_s: float = 120.0
    max_chars: int = 40000

    @classmethod
    def from_env(cls, environ: Mapping[str, str], env_names: Mapping[str, str] | None = None, **settings) -> "JudgeSettings":
        names = {**DEFAULT_ENV, **(env_names or {})}
        return cls(environ.get(names["model"]) or None, environ.get(names["base_url"]) or None,
                   environ.get(names["api_key"]) or None, **settings)

    @property
    def configured(self) -> bool:
        return bool(self.model and self.base_url)

    def __repr__(self) -> str:  # never show the key
        return f"JudgeSettings(model={self.model!r}, configured={self.configured}, repeats={self.repeats})"


def load_rubric(path: str | Path) -> dict:
    """Read ``rubric.toml``: ``files`` (deliverables shown to the judge) and ``[[criteria]]``."""
    path = Path(path)
    if not path.is_file():
        return {"files": [], "criteria": []}
    rubric = tomllib.loads(path.read_text())
    for criterion in rubric.get("criteria", []):
        if criterion.get("type") not in PASS_THRESHOLD or not criterion.get("id") or not criterion.get("question"):
            raise JudgeError(f"{path}: every [[criteria]] needs id, question and type binary|likert; got {criterion}")
    return {"files": list(rubric.get("files", [])), "criteria": list(rubric.get("criteria", []))}


def parse_verdict(text: str, kind: str) -> float:
    """The value in [0, 1] of a judge's answer (a JSON object with ``value``)."""
    match = re.search(r"\{[^{}]*\"value\"[^{}]*\}", text, re.DOTALL)
    if not match:
        raise JudgeError(f"judge answer without a JSON value: {text[:200]!r}")
    value = float(json.loads(match.group(0))["value"])
    if kind == "binary":
        if value not in (0.0, 1.0):
            raise JudgeError(f"binary criterion answered {value}")
        return value
    if not 1.0 <= value <= 5.0:
        raise JudgeError(f"Likert criterion answered {value}, expected 1-5")
    return (value - 1.0) / 4.0


def clip(text: str, limit: int) -> str:
    """Keep the head and the tail of a long text.

    >>> clip("abcdefghij", 6)
    'abc\\n[... 4 characters left out ...]\\nhij'
    """
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]}\n[... {len(text) - 2 * half} characters left out ...]\n{text[-half:]}"


def messages(criterion: Mapping, instruction: str, trajectory: str, files: Mapping[str, str], max_chars: int) -> list[dict]:
    scale = ('{"value": 0 or 1, "why": "..."}' if criterion["type"] == "binary"
             else '{"value": 1 to 5 (1 worst, 5 best), "why": "..."}')
    shown = "\n\n".join(f"--- {name} ---\n{clip(text, max_chars // 4)}" for name, text in files.items()) or "(none)"
    return [
        {"role": "system", "content": "You grade how a coding agent worked on a molecular-dynamics task. Judge only from "
                                      "the evidence given. Completion claims are not evidence. Answer with one JSON object."},
        {"role": "user", "content": f"TASK INSTRUCTION:\n{clip(instruction, max_chars // 4)}\n\nAGENT TRAJECTORY:\n"
                                    f"{clip(trajectory, max_chars // 2) or '(empty)'}\n\nOUTPUT FILES:\n{shown}\n\n"
                                    f"CRITERION ({criterion['type']}): {criterion['question']}\n\nAnswer {scale}"},
    ]


def chat_completion(settings: JudgeSettings, payload: list[dict]) -> str:
    """One call to ``{base_url}/chat/completions``; the key goes in the header only."""
    body = json.dumps({"model": settings.model, "messages": payload, "temperature": settings.temperature}).encode()
    request = urllib.request.Request(settings.base_url.rstrip("/") + "/chat/completions", data=body, method="POST",
                                     headers={"Content-Type": "application/json",
                                              **({"Authorization": f"Bearer {settings.api_key}"} if settings.api_key else {})})
    try:
        with urllib.request.urlopen(request, timeout=settings.timeout_s) as response:
            answer = json.loads(response.read())
    except urllib.error.HTTPError as exc:
        raise JudgeError(f"judge endpoint answered HTTP {exc.code} for model {settings.model}") from None
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        raise JudgeError(f"judge endpoint unreachable: {type(exc).__name__}") from None
    try:
        return answer["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        raise JudgeError("judge endpoint answered without choices[0].message.content") from None


def cache_key(criterion: Mapping, rubric: Mapping, model: str, trajectory: str, files: Mapping[str, str], repeat: int) -> str:
    """SHA-256 of everything a verdict depends on."""
    blob = json.dumps({"criterion": criterion, "rubric": rubric, "model": model, "trajectory": trajectory,
                       "files": dict(sorted(files.items())), "repeat": repeat}, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()


def judge_trial(rubric: Mapping, instruction: str, trajectory: str, files: Mapping[str, str], settings: JudgeSettings,
                cache_dir: str | Path | None, call: Callable[[JudgeSettings, list[dict]], str] = chat_completion) -> dict:
    """Judge every criterion ``settings.repeats`` times; ``process`` = mean of criterion means (None if not judged)."""
    criteria = []
    for criterion in rubric.get("criteria", []):
        entry = {"id": criterion["id"], "type": criterion["type"], "question": criterion["question"],
                 "values": [], "value": None, "passed": None, "judged": False}
        if settings.configured:
            for repeat in range(settings.repeats):
                key = cache_key(criterion, rubric, settings.model, trajectory, files, repeat)
                cached = Path(cache_dir) / f"{key}.json" if cache_dir else None
                if cached is not None and cached.is_file():
                    verdict = json.loads(cached.read_text())
                else:
                    text = call(settings, messages(criterion, instruction, trajectory, files, settings.max_chars))
                    verdict = {"value": parse_verdict(text, criterion["type"]), "answer": text[:2000], "model": settings.model,
                               "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
                    if cached is not None:
                        cached.parent.mkdir(parents=True, exist_ok=True)
                        cached.write_text(json.dumps(verdict, indent=2))
                entry["values"].append(verdict["value"])
            entry["value"] = sum(entry["values"]) / len(entry["values"])
            entry["passed"] = entry["value"] >= PASS_THRESHOLD[criterion["type"]]
            entry["judged"] = True
        criteria.append(entry)
    judged = [c for c in criteria if c["judged"]]
    complete = bool(criteria) and len(judged) == len(criteria)
    return {
        "judged": complete,
        "judge_model": settings.model if settings.configured else None,
        "repeats": settings.repeats,
        "reason": "" if complete else ("no rubric criteria" if not criteria else
                                       "no judge endpoint configured: criteria not judged (not passed)"),
        "criteria": criteria,
        "process": sum(c["value"] for c in judged) / len(judged) if complete else None,
        "all_passed": all(c["passed"] for c in criteria) if complete else None,
    }


def trajectory_text(trial_dir: str | Path | None, limit: int = 200000) -> str:
    """The agent's logs Harbor kept (``<trial>/agent/``), as text, files in name order."""
    if not trial_dir or not (Path(trial_dir) / "agent").is_dir():
        return ""
    parts = []
    for path in sorted(p for p in (Path(trial_dir) / "agent").rglob("*") if p.is_file()):
        try:
            parts.append(f"=== {path.relative_to(trial_dir)} ===\n{path.read_text(errors='replace')}")
        except OSError:
            continue
    return clip("\n".join(parts), limit)


def deliverable_texts(trial_dir: str | Path | None, names, roots=("artifacts/app/output",), limit: int = 20000) -> dict:
    """The rubric's files, read from the artifacts Harbor collected (missing ones are said to be missing)."""
    texts = {}
    for name in names:
        found = [Path(trial_dir) / root / name for root in roots] if trial_dir else []
        path = next((p for p in found if p.is_file()), None)
        texts[name] = clip(path.read_text(errors="replace"), limit) if path else "(file not produced)"
    return texts
