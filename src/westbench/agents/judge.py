"""Process criteria judged by an LLM through an OpenAI-compatible chat endpoint.

The endpoint comes from environment variables whose names the config gives (model, base URL, key).
Each criterion of a task's ``rubric.toml`` is judged ``repeats`` times; every call is cached under a
hash of the criterion, the rubric, the model, the evidence and the repeat, so a rerun costs nothing.
Without an endpoint every criterion is reported as not judged (``value`` None), never as passed. The
key is sent in the Authorization header only: it is never written to results or logs.

What the judge sees (as MDArena's judge): the task instruction, the agent's whole trajectory (Harbor's
``agent/trajectory.json`` format first, then the agent's other logs) and the rubric's deliverables.
Only when all of it exceeds ``max_chars`` are the largest parts cut (head and tail kept); the prompt
says so, and the judgement lists every cut (``cuts``).

Counting (MDArena): a binary criterion is met by a 1; a Likert criterion (1-5) is met at
``likert_threshold`` (default 4) or above. Over the ``repeats`` a criterion is decided by ``aggregate``:
``majority`` (met in more than half of the repeats; a tie is not met) or ``mean`` (the mean raw
value against the threshold: 0.5 for binary, ``likert_threshold`` for Likert). ``process`` is the
fraction of criteria met; ``all_passed`` whether every criterion is met. ``process_mean`` is the mean
over criteria of the mean value in [0, 1] (Likert mapped by (v - 1) / 4), FrontierChallenge's
averaged judge score.

Examples
--------
>>> parse_verdict('{"value": 4, "why": "clear"}', "likert")
0.75
>>> parse_verdict('Answer: {"value": 1}', "binary")
1.0
>>> criterion_met([5, 3, 4], "likert"), criterion_met([3, 3, 5], "likert"), criterion_met([1, 0], "binary")
(True, False, False)
>>> criterion_met([5, 3, 3], "likert", rule="mean"), criterion_met([1, 0, 1], "binary", rule="mean")
(False, True)
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

KINDS = ("binary", "likert")
AGGREGATES = ("majority", "mean")
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
    timeout_s: float = 300.0
    max_chars: int = 400000
    aggregate: str = "majority"
    likert_threshold: int = 4

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
        if criterion.get("type") not in KINDS or not criterion.get("id") or not criterion.get("question"):
            raise JudgeError(f"{path}: every [[criteria]] needs id, question and type binary|likert; got {criterion}")
    return {"files": list(rubric.get("files", [])), "criteria": list(rubric.get("criteria", []))}


def parse_verdict(text: str, kind: str) -> float:
    """The value in [0, 1] of a judge's answer (Likert mapped by (v - 1) / 4)."""
    value = raw_verdict(text, kind)
    return value if kind == "binary" else (value - 1.0) / 4.0


def raw_verdict(text: str, kind: str) -> float:
    """The value a judge answered (a JSON object with ``value``): 0 or 1 (binary), 1-5 (Likert)."""
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
    return value


def criterion_met(raw_values, kind: str, rule: str = "majority", likert_threshold: float = 4) -> bool:
    """Whether a criterion is met over its repeats (raw values; see the module docstring for the rules)."""
    if not raw_values:
        raise ValueError("a criterion needs at least one judged repeat")
    if rule not in AGGREGATES:
        raise ValueError(f"judge aggregate must be one of {AGGREGATES}, got {rule!r}")
    threshold = 1.0 if kind == "binary" else float(likert_threshold)
    if rule == "majority":
        return 2 * sum(value >= threshold for value in raw_values) > len(raw_values)
    return sum(raw_values) / len(raw_values) >= (0.5 if kind == "binary" else threshold)


def clip(text: str, limit: int) -> str:
    """Keep the head and the tail of a long text.

    >>> clip("abcdefghij", 6)
    'abc\\n[... 4 characters left out ...]\\nhij'
    """
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]}\n[... {len(text) - 2 * half} characters left out ...]\n{text[-half:]}"


def fit_parts(parts: Mapping[str, str], max_chars: int) -> tuple[dict, list[dict]]:
    """Cut the largest ``parts`` (head and tail kept) until all fit in ``max_chars``; the cuts made.

    Parts shorter than an equal share of what is left stay whole.

    >>> kept, cuts = fit_parts({"a": "x" * 10, "b": "y" * 1000}, 200)
    >>> len(kept["a"]), cuts[0]["part"], cuts[0]["chars"], cuts[0]["kept"]
    (10, 'b', 1000, 190)
    >>> fit_parts({"a": "short"}, 100)[1]
    []
    """
    if sum(len(text) for text in parts.values()) <= max_chars:
        return dict(parts), []
    budget, open_parts, limits = max_chars, sorted(parts, key=lambda name: len(parts[name])), {}
    while open_parts:
        share = budget // len(open_parts)
        name = open_parts[0]
        if len(parts[name]) <= share:
            limits[name] = len(parts[name])
            budget -= len(parts[name])
            open_parts.pop(0)
        else:
            for name in open_parts:
                limits[name] = share
            break
    kept, cuts = {}, []
    for name, text in parts.items():
        if len(text) <= limits[name]:
            kept[name] = text
            continue
        half = limits[name] // 2
        left_out = len(text) - 2 * half
        kept[name] = f"{text[:half]}\n[... {left_out} characters of {name} left out here: judge input limit ...]\n{text[len(text) - half:]}"
        cuts.append({"part": name, "chars": len(text), "kept": 2 * half, "left_out": left_out})
    return kept, cuts


def evidence(instruction: str, trajectory: str | Mapping[str, str], files: Mapping[str, str],
             max_chars: int) -> tuple[dict, list[dict]]:
    """Everything the judge is shown, as named parts, fitted into ``max_chars``; and the cuts."""
    logs = trajectory if isinstance(trajectory, Mapping) else {"trajectory": trajectory}
    parts = {"instruction": instruction, **{f"trajectory:{k}": v for k, v in logs.items()},
             **{f"file:{k}": v for k, v in files.items()}}
    return fit_parts(parts, max_chars)


def messages(criterion: Mapping, instruction: str, trajectory: str | Mapping[str, str], files: Mapping[str, str],
             max_chars: int) -> list[dict]:
    scale = ('{"value": 0 or 1, "why": "..."}' if criterion["type"] == "binary"
             else '{"value": 1 to 5 (1 worst, 5 best), "why": "..."}')
    kept, cuts = evidence(instruction, trajectory, files, max_chars)
    logs = "\n\n".join(f"=== {name.removeprefix('trajectory:')} ===\n{text}" for name, text in kept.items()
                        if name.startswith("trajectory:") and text) or "(empty)"
    shown = "\n\n".join(f"--- {name.removeprefix('file:')} ---\n{text}" for name, text in kept.items()
                         if name.startswith("file:")) or "(none)"
    note = ("" if not cuts else "NOTE: the evidence was too long for the judge's input and was cut (head and tail kept): "
            + "; ".join(f"{c['part']}: {c['left_out']} of {c['chars']} characters left out" for c in cuts) + ".\n\n")
    return [
        {"role": "system", "content": "You grade how a coding agent worked on a molecular-dynamics task. Judge only from "
                                      "the evidence given. Completion claims are not evidence. Answer with one JSON object."},
        {"role": "user", "content": f"{note}TASK INSTRUCTION:\n{kept['instruction']}\n\nAGENT TRAJECTORY (Harbor's "
                                    f"trajectory format, then the agent's other logs):\n{logs}\n\nOUTPUT FILES:\n{shown}"
                                    f"\n\nCRITERION ({criterion['type']}): {criterion['question']}\n\nAnswer {scale}"},
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


def judge_trial(rubric: Mapping, instruction: str, trajectory: str | Mapping[str, str], files: Mapping[str, str],
                settings: JudgeSettings, cache_dir: str | Path | None,
                call: Callable[[JudgeSettings, list[dict]], str] = chat_completion) -> dict:
    """Judge every criterion ``settings.repeats`` times and decide it (module docstring); None scores if not judged."""
    criteria = []
    for criterion in rubric.get("criteria", []):
        entry = {"id": criterion["id"], "type": criterion["type"], "question": criterion["question"],
                 "raw_values": [], "values": [], "value": None, "passed": None, "judged": False}
        if settings.configured:
            for repeat in range(settings.repeats):
                key = cache_key(criterion, rubric, settings.model, trajectory, files, repeat)
                cached = Path(cache_dir) / f"{key}.json" if cache_dir else None
                verdict = json.loads(cached.read_text()) if cached is not None and cached.is_file() else None
                if verdict is None or "raw" not in verdict:
                    text = call(settings, messages(criterion, instruction, trajectory, files, settings.max_chars))
                    verdict = {"raw": raw_verdict(text, criterion["type"]), "answer": text[:2000], "model": settings.model,
                               "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
                    if cached is not None:
                        cached.parent.mkdir(parents=True, exist_ok=True)
                        cached.write_text(json.dumps(verdict, indent=2))
                entry["raw_values"].append(verdict["raw"])
                entry["values"].append(verdict["raw"] if criterion["type"] == "binary" else (verdict["raw"] - 1.0) / 4.0)
            entry["value"] = sum(entry["values"]) / len(entry["values"])
            entry["passed"] = criterion_met(entry["raw_values"], criterion["type"], settings.aggregate,
                                            settings.likert_threshold)
            entry["judged"] = True
        criteria.append(entry)
    judged = [c for c in criteria if c["judged"]]
    complete = bool(criteria) and len(judged) == len(criteria)
    _, cuts = evidence(instruction, trajectory, files, settings.max_chars)
    return {
        "judged": complete,
        "judge_model": settings.model if settings.configured else None,
        "repeats": settings.repeats,
        "aggregate": settings.aggregate,
        "likert_threshold": settings.likert_threshold,
        "max_chars": settings.max_chars,
        "cuts": cuts,
        "reason": "" if complete else ("no rubric criteria" if not criteria else
                                       "no judge endpoint configured: criteria not judged (not passed)"),
        "criteria": criteria,
        "process": sum(bool(c["passed"]) for c in judged) / len(judged) if complete else None,
        "process_mean": sum(c["value"] for c in judged) / len(judged) if complete else None,
        "all_passed": all(c["passed"] for c in criteria) if complete else None,
    }


def trajectory_parts(trial_dir: str | Path | None) -> dict[str, str]:
    """The agent's logs Harbor kept (``<trial>/agent/``) by name: Harbor's trajectory files first, then the rest."""
    if not trial_dir or not (Path(trial_dir) / "agent").is_dir():
        return {}
    files = sorted(p for p in (Path(trial_dir) / "agent").rglob("*") if p.is_file())
    files.sort(key=lambda p: (not p.name.startswith("trajectory"), str(p)))
    parts = {}
    for path in files:
        try:
            parts[str(path.relative_to(trial_dir))] = path.read_text(errors="replace")
        except OSError:
            continue
    return parts


def trajectory_text(trial_dir: str | Path | None) -> str:
    """The agent's logs as one text (:func:`trajectory_parts` joined, nothing cut)."""
    return "\n".join(f"=== {name} ===\n{text}" for name, text in trajectory_parts(trial_dir).items())


def deliverable_texts(trial_dir: str | Path | None, names, roots=("artifacts/app/output", "artifacts/.westbench-changes/app"),
                      limit: int | None = None) -> dict:
    """The rubric's files, read from the artifacts Harbor collected (missing ones are said to be missing; nothing cut)."""
    texts = {}
    for name in names:
        found = [Path(trial_dir) / root / name for root in roots] if trial_dir else []
        path = next((p for p in found if p.is_file()), None)
        text = path.read_text(errors="replace") if path else "(file not produced)"
        texts[name] = text if limit is None else clip(text, limit)
    return texts
