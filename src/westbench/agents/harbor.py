"""Run one trial (task, agent, model, attempt) through the Harbor CLI and keep what it wrote.

Harbor lives in its own Python 3.12 environment (``.venv-harbor``, made by ``tools/setup-agents.sh``);
this module only builds the command line and reads the result. Per trial:

* with Docker or Podman, Harbor runs westbench's subclass of its Docker/Podman environment
  (``harbor_plugins/westbench_docker.py``): the agent's and the verifier's containers get
  ``network_mode: none`` unless the task declares network access, and ``init: true`` so they stop
  at once; exec and copy calls skip Compose's project parsing (the per-trial overhead benchmark);
* ``--no-delete`` keeps the task image for the next trial (images are reused, containers are not);
* CPU, memory and time limits come from task.toml (Harbor applies them);
* a fresh job folder per trial: a rerun never mixes with an interrupted one;
* Harbor runs a staged copy of the task whose verifier runs in a fresh container, with the agent's
  files copied in and nothing of its processes (:mod:`westbench.agents.isolation`).

Examples
--------
>>> environment_args("docker", network=False)
['-e', 'westbench_docker:WestbenchDockerEnvironment', '--ek', 'network=false', '--ek', 'init=true']
>>> harbor_command("harbor", "tasks/t", "oracle", None, "jobs", "j", environment_args("singularity", False))[:8]
['harbor', 'run', '-p', 'tasks/t', '-a', 'oracle', '-e', 'singularity']
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import Mapping, Sequence

from westbench.config import default
from westbench.errors import WestbenchError

ENVIRONMENTS = ("docker", "podman", "singularity")
# Harbor's Docker and Podman environments with westbench's network/init options and faster exec/copy.
PLUGIN_ENVIRONMENTS = {
    "docker": "westbench_docker:WestbenchDockerEnvironment",
    "podman": "westbench_docker:WestbenchPodmanEnvironment",
}


class HarborError(WestbenchError):
    """Harbor or its container engine is not usable on this machine."""


def environment_args(environment: str, network: bool) -> list[str]:
    """Harbor's environment options for one trial."""
    if environment not in PLUGIN_ENVIRONMENTS:
        return ["-e", environment]
    return ["-e", PLUGIN_ENVIRONMENTS[environment], "--ek", f"network={str(network).lower()}", "--ek", "init=true"]


def harbor_command(
    harbor: str,
    task_dir: str | Path,
    agent: str,
    model: str | None,
    jobs_dir: str | Path,
    job_name: str,
    environment: Sequence[str],
    agent_kwargs: Mapping[str, str] | None = None,
    extra_args: Sequence[str] = (),
) -> list[str]:
    """The ``harbor run`` command line of one trial (``environment`` from :func:`environment_args`)."""
    command = [
        str(harbor),
        "run",
        "-p",
        str(task_dir),
        "-a",
        agent,
        *environment,
        "-o",
        str(jobs_dir),
        "--job-name",
        job_name,
        "-n",
        "1",
        "-k",
        "1",
        "-y",
        "--no-delete",
        "--quiet",
    ]
    if model:
        command += ["-m", model]
    for key, value in (agent_kwargs or {}).items():
        command += ["--ak", f"{key}={value}"]
    return command + list(extra_args)


def find_trial_result(job_dir: str | Path) -> Path | None:
    """The trial's result.json inside a Harbor job folder (one trial per job)."""
    found = sorted(p for p in Path(job_dir).glob("*/result.json"))
    return found[0] if found else None


def harbor_environment(
    root: Path, extra: Mapping[str, str] | None = None, environment: str = default("agents.environment")
) -> dict:
    """Environment of the Harbor process: Compose plugin, westbench's Harbor plugins, nothing sent out.

    Telemetry off: offline its upload waits about 8 s for a timeout after every trial; the local
    cost map avoids a failed download. For Podman, podman-compose (in .venv-harbor/bin) on the PATH
    and the containers.conf tools/setup-agents.sh writes where the machine needs one.
    """
    env = dict(os.environ)
    env["DOCKER_CONFIG"] = str(root / ".venv-harbor" / "docker")
    if environment == "podman":
        env["PATH"] = os.pathsep.join(filter(None, [str(root / ".venv-harbor" / "bin"), env.get("PATH")]))
        conf = root / ".venv-harbor" / "podman" / "containers.conf"
        if conf.is_file():
            env["CONTAINERS_CONF"] = str(conf)
    env["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    env["HARBOR_TELEMETRY"] = "0"
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(root / "harbor_plugins"), env.get("PYTHONPATH")]))
    env.update(extra or {})
    return env


def check_engine(environment: str, harbor: Path) -> None:
    """Fail early, with the fix, when Harbor or the container engine is missing."""
    if environment not in ENVIRONMENTS:
        raise HarborError(f"agents.environment must be one of {ENVIRONMENTS}, got {environment!r}")
    if not Path(harbor).exists():
        raise HarborError(
            f"Harbor not found at {harbor}: run `bash tools/setup-agents.sh` (installs it in .venv-harbor)"
        )
    engine = {"docker": "docker", "podman": "podman", "singularity": "singularity"}[environment]
    if shutil.which(engine) is None:
        raise HarborError(
            f"{engine} is not installed: run `bash tools/setup-agents.sh` or choose another agents.environment"
        )
    if environment == "docker":  # `docker version` asks the daemon too, without `docker info`'s 0.2 s of statistics
        probe = subprocess.run(["docker", "version", "--format", "{{.Server.Version}}"], capture_output=True, text=True)
        if probe.returncode != 0:
            raise HarborError(
                "the Docker daemon does not answer (`docker version` failed): run `bash tools/setup-agents.sh`, "
                f"which starts dockerd. docker said: {probe.stderr.strip()[:300]}"
            )
    if environment == "podman" and not (Path(harbor).parent / "podman-compose").exists():
        raise HarborError(
            f"podman-compose is not installed next to Harbor ({Path(harbor).parent}): "
            "run `bash tools/setup-agents.sh --podman`"
        )


def missing_images(images: Sequence[str], engine: str = "docker") -> list[str]:
    """Base images not present in the engine's local storage (none can be pulled offline)."""
    missing = []
    for image in images:
        if image.lower() == "scratch":
            continue
        if subprocess.run([engine, "image", "inspect", image], capture_output=True).returncode != 0:
            missing.append(image)
    return missing


def run_trial(command: Sequence[str], job_dir: Path, env: Mapping[str, str], timeout_s: float) -> dict:
    """Run Harbor; return its exit code, wall time, output tail and the result.json it wrote (or None)."""
    if job_dir.exists():
        shutil.rmtree(job_dir)
    job_dir.parent.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    try:
        process = subprocess.run(list(command), capture_output=True, text=True, env=dict(env), timeout=timeout_s)
        returncode, output = process.returncode, process.stdout + process.stderr
    except subprocess.TimeoutExpired as exc:
        returncode = None
        output = f"Harbor did not finish within {timeout_s:.0f} s and was stopped.\n" + str(exc.stdout or "")[-2000:]
    wall = time.monotonic() - started
    result_path = find_trial_result(job_dir)
    result = json.loads(result_path.read_text()) if result_path else None
    return {
        "returncode": returncode,
        "wall_s": round(wall, 3),
        "output_tail": output[-4000:],
        "result": result,
        "trial_dir": str(result_path.parent) if result_path else None,
    }


def model_id(model: str | None) -> str:
    """A path-safe id of a model name ("none" for agents without a model).

    >>> model_id("openai/gpt-4o"), model_id(None)
    ('openai--gpt-4o', 'none')
    """
    import re

    return re.sub(r"[^A-Za-z0-9._-]+", "--", model) if model else "none"


def verifier_detail(trial_dir: str | Path | None) -> dict | None:
    """The checks.json westbench verifiers write, or None for a verifier that writes none, or one that is not a
    regular UTF-8 JSON file (read without following a link or opening a fifo: :mod:`westbench.agents.safe_files`)."""
    from westbench.agents.safe_files import RefusedFile, read_regular_text

    if not trial_dir:
        return None
    try:
        detail = json.loads(read_regular_text(Path(trial_dir) / "verifier" / "checks.json", 16_000_000, trial_dir))
    except (RefusedFile, ValueError):
        return None
    return detail if isinstance(detail, dict) else None


def verifier_elapsed(detail: Mapping | None) -> float | None:
    """Seconds the verifier took, from its checks.json (:func:`verifier_detail`): the verifier process's whole
    time (interpreter start and imports included) where recorded, else the checks' own time; None without one.

    >>> verifier_elapsed({"elapsed_s": 0.4, "process_elapsed_s": 1.25}), verifier_elapsed(None)
    (1.25, None)
    """
    try:
        return float(detail.get("process_elapsed_s") or detail.get("elapsed_s"))
    except (ValueError, TypeError, AttributeError):
        return None


def agent_exit(trial_dir: str | Path | None, tail: int = 600) -> dict:
    """What Harbor's oracle agent leaves when the solution script exits non-zero (it raises nothing then, so the
    trial reads as a plain failure): ``agent_exit_code`` and the end of the script's output; {} otherwise.

    >>> import pathlib, tempfile
    >>> trial = pathlib.Path(tempfile.mkdtemp()); (trial / "agent").mkdir()
    >>> _ = (trial / "agent" / "exit-code.txt").write_text("137")
    >>> _ = (trial / "agent" / "oracle.txt").write_text("step 1 ok\\nKilled")
    >>> agent_exit(trial)
    {'agent_exit_code': 137, 'agent_output_tail': 'step 1 ok\\nKilled'}
    """
    from westbench.agents.safe_files import RefusedFile, read_regular_text

    if not trial_dir:
        return {}
    try:
        code = int(read_regular_text(Path(trial_dir) / "agent" / "exit-code.txt", 100, trial_dir).strip())
    except (RefusedFile, ValueError):
        return {}
    try:
        output = read_regular_text(Path(trial_dir) / "agent" / "oracle.txt", 16_000_000, trial_dir)[-tail:]
    except RefusedFile:
        output = ""
    return {"agent_exit_code": code, "agent_output_tail": output}


def failed_checks(detail: Mapping | None, limit: int = 5, width: int = 300) -> list[str]:
    """The verifier's failed checks as ``name: reason`` (the first ``limit``, each cut to ``width`` characters),
    so that a trial record says why it scored below 1 without the trial's folder at hand (a CI log, a gate row).

    >>> failed_checks({"checks": [{"name": "a", "passed": True}, {"name": "b", "passed": False, "reason": "x 2"}]})
    ['b: x 2']
    >>> failed_checks({"checks": "not a list"}), failed_checks(None)
    ([], [])
    """
    checks = (detail or {}).get("checks") if isinstance(detail, Mapping) else None
    if not isinstance(checks, list):
        return []
    found = [
        f"{check.get('name', '?')}: {check.get('reason', '')}".rstrip(": ")[:width]
        for check in checks
        if isinstance(check, Mapping) and check.get("passed") is False
    ]
    return found[:limit] + ([f"... and {len(found) - limit} more"] if len(found) > limit else [])


def execute_trial(
    task_dir: Path,
    agent: Mapping,
    model: str | None,
    attempt: int,
    settings: Mapping,
    root: Path,
    job_dir: Path,
    make_environment_args=environment_args,
    solution: Path | None = None,
) -> dict:
    """Run one trial and grade it; never raises for a task-, agent- or verifier-level failure.

    ``make_environment_args(environment, network)`` gives Harbor's environment options
    (:func:`environment_args`; the overhead benchmark passes Harbor's stock environment instead).
    ``solution``: a near miss's folder, run by the oracle agent in place of the task's ``solution/``.

    Returns the trial record (see :func:`westbench.agents.grading.grade`) with the task's metadata,
    the wall time of the Harbor process and the overhead outside the agent and the verifier's checks.
    """
    from westbench.agents.grading import grade
    from westbench.agents.tasks import TaskError, fingerprint, load_task

    record = {
        "task": task_dir.name,
        "agent": agent["id"],
        "agent_name": agent["name"],
        "model": model_id(model),
        "model_name": model,
        "attempt": attempt,
        "environment": settings["environment"],
    }
    try:
        task = load_task(task_dir)
    except TaskError as exc:
        return {**record, **grade(None, reason=f"task not runnable: {exc}")}
    record.update(
        {
            "difficulty": task.difficulty,
            "category": task.category,
            "network": task.network,
            "verifier_mode_declared": task.verifier_mode,
            "task_fingerprint": fingerprint(task_dir),
        }
    )
    engine = settings["environment"]
    problems = _trial_problems(task, agent["name"], engine)
    if problems:
        return {**record, **grade(None, reason=f"{task_dir}: " + "; ".join(problems))}
    from westbench.agents.isolation import stage_task

    try:  # verified in a fresh container whatever task.toml says (westbench.agents.isolation)
        staged, added = stage_task(
            task, job_dir.parent / f"{job_dir.name}-task", engine in PLUGIN_ENVIRONMENTS, solution=solution
        )
    except TaskError as exc:
        return {**record, **grade(None, reason=f"task not runnable: {exc}")}
    record["artifacts_added"] = added
    harbor = Path(settings["harbor"]) if Path(settings["harbor"]).is_absolute() else root / settings["harbor"]
    command = harbor_command(
        harbor,
        staged.resolve(),
        agent["name"],
        model,
        job_dir.parent.resolve(),
        job_dir.name,
        make_environment_args(settings["environment"], task.network),
        agent.get("kwargs"),
    )
    budget = _budget_s(task, settings)
    run = run_trial(command, job_dir, harbor_environment(root, environment=engine), budget)
    return _trial_record(record, run, command, root)


def _trial_problems(task, agent_name: str, engine: str) -> list[str]:
    """Why the task cannot run for this agent on this engine: its own problems and base images missing offline."""
    problems = [p for p in task.problems() if agent_name == "oracle" or "solve.sh" not in p]
    if engine in PLUGIN_ENVIRONMENTS and task.docker_image is None:
        setup = "tools/setup-agents.sh" + (" --podman" if engine == "podman" else "")
        problems += [
            f"environment/Dockerfile builds FROM {image}, which is not in {engine}'s images and cannot be "
            f"pulled offline: build or load it ({setup} makes westbench/md-base and tags "
            f"debian:bookworm/-slim)"
            for image in missing_images(task.base_images, engine)
        ]
    return problems


def _budget_s(task, settings: Mapping) -> float:
    """The Harbor process's time limit: the agent's and the verifier's timeouts, two builds and the margin."""
    return (
        (task.agent_timeout_s or settings["default_agent_timeout_s"])
        + task.verifier_timeout_s
        + 2 * task.build_timeout_s
        + settings["timeout_margin_s"]
    )


def _trial_record(record: dict, run: Mapping, command: Sequence[str], root: Path) -> dict:
    """The graded trial record of a finished Harbor run, with its wall time, overhead and command."""
    from westbench.agents.grading import grade

    reason = (
        ""
        if run["result"]
        else (
            f"Harbor exited {run['returncode']} without a trial result; its output ends: " + run["output_tail"][-1500:]
        )
    )
    graded = grade(run["result"], reason=reason)
    agent_s = graded["timings"].get("agent_execution") or 0.0
    detail = verifier_detail(run["trial_dir"])
    checks_s = verifier_elapsed(detail)
    return {
        **record,
        **graded,
        "wall_s": run["wall_s"],
        "verifier_s": checks_s,
        "failed_checks": failed_checks(detail),
        **agent_exit(run["trial_dir"]),
        "overhead_s": round(run["wall_s"] - agent_s - (checks_s or 0.0), 3),
        "harbor_returncode": run["returncode"],
        "trial_dir": run["trial_dir"],
        "command": [c if not c.startswith(str(root)) else c.replace(str(root), "<repo>") for c in command],
    }
