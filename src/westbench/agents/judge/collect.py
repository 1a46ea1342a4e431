"""The evidence a trial folder holds for the judge: the agent's logs and the rubric's deliverables.

Harbor keeps the agent's logs under ``<trial>/agent/`` (Harbor's trajectory, ``agent/trajectory*.json``,
is the step record: every step, tool call and result) and the files it collected from the container
under ``<trial>/artifacts/`` (``app/output`` for a task declaring ``/app/output``, ``.westbench-changes``
for the agent's changed files otherwise). The agent made all of it, so everything is read through
:mod:`~westbench.agents.judge.confined`: nothing outside the trial folder, no link followed, no special
file opened, ``limit_bytes`` at most per file; what is not read comes back as an
:class:`~westbench.agents.judge.confined.Unread` saying why.

Examples
--------
>>> import tempfile
>>> trial = Path(tempfile.mkdtemp())
>>> (trial / "agent" / "episode-0").mkdir(parents=True)
>>> _ = (trial / "agent" / "episode-0" / "response.txt").write_text("ls")
>>> _ = (trial / "agent" / "trajectory.json").write_text("{}")
>>> list(trajectory_parts(trial, limit_bytes=1000))
['agent/trajectory.json', 'agent/episode-0/response.txt']
>>> deliverable_texts(trial, ["report.md"], limit_bytes=1000)["report.md"].describe()
'not produced'
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from westbench.agents.judge.confined import Unread, read_file, read_tree

AGENT_LOGS = "agent"
DELIVERABLE_ROOTS = ("artifacts/app/output", "artifacts/.westbench-changes/app")
#: Read limits when none is given (the judge passes its own, :attr:`JudgeSettings.file_limit_bytes`).
DEFAULT_LIMIT_BYTES = 16_000_000


def is_step_record(name: str) -> bool:
    """Whether a log is Harbor's trajectory (``agent/trajectory*.json``): the record of every step.

    >>> is_step_record("agent/trajectory.json"), is_step_record("agent/episode-0/trajectory.json")
    (True, False)
    """
    path = PurePosixPath(name)
    return path.parent == PurePosixPath(AGENT_LOGS) and path.name.startswith("trajectory") and path.suffix == ".json"


def trajectory_parts(
    trial_dir: str | Path | None, limit_bytes: int = DEFAULT_LIMIT_BYTES, total_bytes: int | None = None
) -> dict[str, str | Unread]:
    """The agent's logs (``<trial>/agent/``) by name: Harbor's trajectory first, then the rest by name.

    A key ending in ``/`` is a folder that was not entered (no file name ends so); a folder named as Harbor's
    trajectory is listed under that name as ``folder`` (a step record that cannot be read). When the folder
    holds more entries than are listed, the key ``agent/`` says so (``too-many``).
    """
    if not trial_dir:
        return {}
    total = total_bytes if total_bytes is not None else limit_bytes
    listing = read_tree(trial_dir, AGENT_LOGS, limit_bytes, total, first=is_step_record, files_only=is_step_record)
    parts = dict(listing.parts)
    if listing.omitted:
        parts[AGENT_LOGS + "/"] = Unread("too-many")
    return parts


def trajectory_text(trial_dir: str | Path | None, limit_bytes: int = DEFAULT_LIMIT_BYTES) -> str:
    """The agent's logs as one text (:func:`trajectory_parts` joined; a file not read is described)."""
    return "\n".join(
        f"=== {name} ===\n{text if isinstance(text, str) else text.describe()}"
        for name, text in trajectory_parts(trial_dir, limit_bytes).items()
    )


def deliverable_texts(
    trial_dir: str | Path | None, names, roots=DELIVERABLE_ROOTS, limit_bytes: int = DEFAULT_LIMIT_BYTES
) -> dict[str, str | Unread]:
    """The rubric's files, read from the first root (of ``roots``, under the trial) that has an entry by that name.

    A file found nowhere is ``not-produced``; a link, special file or other refusal where the name is
    found stays that (a later root does not stand in for it).
    """
    texts = {}
    for name in names:
        found = Unread("not-produced")
        for root in roots if trial_dir else ():
            found = read_file(Path(trial_dir), f"{root}/{name}", limit_bytes)
            if not (isinstance(found, Unread) and found.kind == "not-produced"):
                break
        texts[name] = found
    return texts
