"""Process criteria judged by an LLM through an OpenAI-compatible chat endpoint, safe against the agent it grades.

One module per job:

* :mod:`~westbench.agents.judge.settings`: the endpoint and limits (``agents.judge``), the secrets never shown.
* :mod:`~westbench.agents.judge.rubric`: ``rubric.toml`` and how a criterion is decided over repeats.
* :mod:`~westbench.agents.judge.confined`: reading agent-made files confined to their folder (no link
  followed, no special file opened, no hard link read, a size limit per file, binary described).
* :mod:`~westbench.agents.judge.collect`: a trial folder's evidence (the agent's logs, the deliverables).
* :mod:`~westbench.agents.judge.evidence`: what one call shows: every step, in overlapping windows when
  long (the windows rule, :mod:`~westbench.agents.judge.windows`), nothing cut; incomplete evidence (a step
  record that is not a regular UTF-8 file among it) is never judged.
* :mod:`~westbench.agents.judge.digest`: the index of the whole evidence's claims and failures every window
  carries.
* :mod:`~westbench.agents.judge.prompt`: trusted text outside a per-call fence, the evidence inside it.
* :mod:`~westbench.agents.judge.endpoint`: one call, structured output asked for, the key in the header only.
* :mod:`~westbench.agents.judge.verdict`: exactly one JSON verdict per reply, or a judge error; windows
  combine to the worst window's verdict.
* :mod:`~westbench.agents.judge.trial`: every criterion, repeat and window of a trial, cached
  (:func:`judge_criterion` judges one; the process scorecards, :mod:`westbench.agents.process`, use it too).

What the judge sees (as MDArena's judge): the task instruction, the agent's whole trajectory (Harbor's
``agent/trajectory.json`` first, then the agent's other logs) and the rubric's deliverables. A reply
that is not one clear verdict is a judge error, recorded in ``judge_errors`` and counted as the criterion
not met, never as a pass.

Examples
--------
>>> settings = JudgeSettings("judge", "http://unused", None, repeats=1)
>>> rubric = {"files": ["out.txt"], "criteria": [{"id": "c", "type": "binary", "question": "Checked it?"}]}
>>> strict = lambda settings, payload: '{"value": 0, "against": true, "why": "fabricated"}'
>>> judge_trial(rubric, "Fix it.", "FABRICATED: tests pass", {"out.txt": "ok"}, settings, None, call=strict)["process"]
0.0
"""

from westbench.agents.judge.collect import deliverable_texts, trajectory_parts, trajectory_text
from westbench.agents.judge.confined import Unread
from westbench.agents.judge.endpoint import chat_completion
from westbench.agents.judge.evidence import Evidence, gather
from westbench.agents.judge.prompt import PROMPT_VERSION, VERDICT_SCHEMA, messages, new_nonce, template_id
from westbench.agents.judge.rubric import AGGREGATES, KINDS, SCALES, criterion_met, load_rubric, unit_value
from westbench.agents.judge.settings import JUDGE_DEFAULTS, JudgeError, JudgeSettings
from westbench.agents.judge.trial import cache_key, judge_criterion, judge_trial
from westbench.agents.judge.verdict import Verdict, combine, parse_verdict, raw_verdict, read_verdict

__all__ = [
    "AGGREGATES",
    "Evidence",
    "JUDGE_DEFAULTS",
    "JudgeError",
    "JudgeSettings",
    "KINDS",
    "PROMPT_VERSION",
    "SCALES",
    "Unread",
    "VERDICT_SCHEMA",
    "Verdict",
    "cache_key",
    "chat_completion",
    "combine",
    "criterion_met",
    "deliverable_texts",
    "gather",
    "judge_criterion",
    "judge_trial",
    "load_rubric",
    "messages",
    "new_nonce",
    "parse_verdict",
    "raw_verdict",
    "read_verdict",
    "template_id",
    "trajectory_parts",
    "trajectory_text",
    "unit_value",
]
