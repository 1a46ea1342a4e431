"""westbench's Docker and Podman environments for Harbor (harbor_plugins/westbench_docker.py), for real.

Probe tasks record what their agent and their separate verifier container see: network
interfaces, PID 1, a variable set by the task's own docker-compose.yaml. They prove the faster
exec/copy path behaves like Compose's, that the network setting reaches the verifier's container as
well as the agent's, and that trials leave no per-trial image tags behind; with Docker and with
Podman (``agents.environment: podman``, set up by ``tools/setup-agents.sh --podman``).
"""

import os
import subprocess
from pathlib import Path

import pytest

from ..conftest import REPO
from .test_agents_pipeline import agents_machine  # noqa: F401 (session fixture: Docker, base image, Harbor)

pytestmark = [pytest.mark.container, pytest.mark.slow]

SOLVE = (
    "#!/bin/bash\nmkdir -p /app/output\nls /sys/class/net > /app/output/agent-net.txt\n"
    'echo "${PROBE:-unset}" > /app/output/probe.txt\ncat /proc/1/comm > /app/output/agent-pid1.txt\n'
    "cat /sys/fs/cgroup/memory.max /sys/fs/cgroup/memory/memory.limit_in_bytes "
    "> /app/output/agent-memory.txt 2>/dev/null\n"
)
TEST = (
    "#!/bin/bash\nls /sys/class/net > /logs/verifier/verifier-net.txt\n"
    "cat /proc/1/comm > /logs/verifier/verifier-pid1.txt\n"
    "cp /app/output/agent-net.txt /app/output/agent-pid1.txt /app/output/agent-memory.txt "
    "/app/output/probe.txt /logs/verifier/\n"
    "test -s /logs/verifier/agent-net.txt && echo 1 > /logs/verifier/reward.txt || echo 0 > /logs/verifier/reward.txt\n"
)


def probe_task(root, name, network):
    task = root / name
    toml = (
        'schema_version = "1.4"\nartifacts = ["/app/output"]\n\n[verifier]\nenvironment_mode = "separate"\n'
        "timeout_sec = 60\n\n[agent]\ntimeout_sec = 60\n\n[environment]\nbuild_timeout_sec = 300\ncpus = 1\n"
        f"memory_mb = 512\n{'allow_internet = true' if network else ''}\n"
    )
    files = {
        "task.toml": toml,
        "instruction.md": "Record what the container sees.\n",
        "environment/Dockerfile": "FROM westbench/md-base:bookworm-1\nWORKDIR /app\n",
        "solution/solve.sh": SOLVE,
        "tests/test.sh": TEST,
    }
    if network:  # the task's own compose file: Compose must still apply it, and `up` waits as Harbor's does
        files["environment/docker-compose.yaml"] = "services:\n  main:\n    environment:\n      PROBE: from-compose\n"
    for relative, text in files.items():
        (task / relative).parent.mkdir(parents=True, exist_ok=True)
        (task / relative).write_text(text)
    return task


INIT = {"docker": "docker-init", "podman": "podman-init"}  # catatonit, under the name podman runs it


@pytest.fixture(scope="session")
def podman_machine(agents_machine):  # noqa: F811
    result = subprocess.run(
        ["bash", str(REPO / "tools" / "setup-agents.sh"), "--podman"], capture_output=True, text=True, timeout=1800
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return REPO


@pytest.fixture(scope="module", params=["docker", "podman"])
def engine(request):
    request.getfixturevalue("podman_machine" if request.param == "podman" else "agents_machine")
    return request.param


@pytest.fixture(scope="module")
def probes(engine, tmp_path_factory):
    from westbench.agents.harbor import execute_trial
    from westbench.config import section_defaults

    root = tmp_path_factory.mktemp(f"probes-{engine}")
    settings = {**section_defaults("agents"), "environment": engine}
    records = {}
    for name, network in ((f"wbprobe-{engine}-closed", False), (f"wbprobe-{engine}-open", True)):
        record = execute_trial(
            probe_task(root / "tasks", name, network),
            {"id": "oracle", "name": "oracle"},
            None,
            1,
            settings,
            REPO,
            root / "jobs" / name,
        )
        assert record["status"] == "passed", record
        seen = {path.stem: path.read_text().split() for path in Path(record["trial_dir"]).glob("verifier/*.txt")}
        records[network] = (record, seen)
    return records


def test_no_network_in_the_agent_or_the_verifier_container(engine, probes):
    record, seen = probes[False]
    assert record["network"] is False and record["environment"] == engine
    assert seen["agent-net"] == ["lo"] and seen["verifier-net"] == ["lo"]
    assert seen["probe"] == ["unset"]
    assert seen["agent-pid1"] == seen["verifier-pid1"] == [INIT[engine]]  # stopping does not wait 10 s
    assert seen["agent-memory"] == [str(512 * 2**20)]  # task.toml memory_mb = 512 reaches the container


def test_declared_network_and_the_task_compose_file_reach_both_containers(probes):
    record, seen = probes[True]
    assert record["network"] is True
    assert "eth0" in seen["agent-net"] and "eth0" in seen["verifier-net"]
    assert seen["probe"] == ["from-compose"]  # set by Compose, seen through the engine-level exec


def test_trials_leave_no_per_trial_image_tags(engine, probes):
    tags = [
        tag.removeprefix("localhost/")
        for tag in subprocess.run(
            [engine, "images", "--format", "{{.Repository}}"], capture_output=True, text=True, check=True
        ).stdout.split()
    ]
    assert not [tag for tag in tags if tag.startswith("wbprobe-")], tags
    assert any(tag.startswith("hb__") for tag in tags)


def test_westbench_task_oracle_nop_and_forger_under_podman(podman_machine, tmp_path):
    """The suite's gate and the forged-reward defence hold with agents.environment: podman."""
    from westbench.agents.harbor import execute_trial
    from westbench.config import section_defaults

    settings = {**section_defaults("agents"), "environment": "podman"}
    scores = {}
    for agent in ("oracle", "nop", "westbench_forger:ForgerAgent"):
        record = execute_trial(
            REPO / "tasks" / "we-contact-map",
            {"id": agent.split(":")[0], "name": agent},
            None,
            1,
            settings,
            REPO,
            tmp_path / agent.split(":")[0],
        )
        assert record["status"] in ("passed", "failed"), record
        scores[agent] = record["correctness"]
    assert scores == {"oracle": 1.0, "nop": 0.0, "westbench_forger:ForgerAgent": 0.0}


def test_command_translation_examples_under_harbors_python(agents_machine):  # noqa: F811
    result = subprocess.run(
        [
            str(REPO / ".venv-harbor" / "bin" / "python"),
            "-m",
            "doctest",
            "-v",
            str(REPO / "harbor_plugins" / "westbench_docker.py"),
        ],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0 and "0 failed" in result.stdout, result.stdout[-2000:] + result.stderr[-2000:]


def test_task_image_is_reused_until_its_base_image_changes(agents_machine, tmp_path):  # noqa: F811
    """The build is skipped for an existing content-addressed image only while it sits on the present base image."""
    from westbench.agents.harbor import execute_trial
    from westbench.config import section_defaults

    base = "westbench-test/rebuild-base:1"
    task = probe_task(tmp_path / "tasks", "wbprobe-rebuild", False)
    (task / "environment" / "Dockerfile").write_text(f"FROM {base}\nWORKDIR /app\n")
    (task / "tests" / "test.sh").write_text(
        "#!/bin/bash\ncp /base-version /logs/verifier/base.txt\necho 1 > /logs/verifier/reward.txt\n"
    )

    def make_base(version):
        subprocess.run(
            ["docker", "build", "-q", "-t", base, "-"],
            input=f"FROM westbench/md-base:bookworm-1\nRUN echo {version} > /base-version\n",
            text=True,
            capture_output=True,
            check=True,
            env={**__import__("os").environ, "DOCKER_BUILDKIT": "0"},
        )

    def trial(name):
        record = execute_trial(
            task,
            {"id": "oracle", "name": "oracle"},
            None,
            1,
            section_defaults("agents"),
            REPO,
            tmp_path / "jobs" / name,
        )
        assert record["status"] == "passed", record
        return (Path(record["trial_dir"]) / "verifier" / "base.txt").read_text().strip()

    try:
        make_base(1)
        assert trial("first") == "1"
        assert trial("reused") == "1"
        make_base(2)  # same Dockerfile and context (same hb__ tag), new base image: rebuilt, not reused
        assert trial("rebuilt") == "2"
    finally:
        subprocess.run(["docker", "rmi", "-f", base], capture_output=True)


HANGING_ENGINE = """
import asyncio, logging, sys
from pathlib import Path
import westbench_docker as plugin  # from harbor_plugins/ (PYTHONPATH), as Harbor loads it
from harbor.environments.docker.docker import DockerEnvironment

calls = Path(sys.argv[1])
# A stand-in engine: the first `hangs` calls never return (docker/cli#4553's exec), later ones answer at once.
engine = [sys.executable, "-c", "import pathlib, sys, time; p = pathlib.Path(sys.argv[1]); "
          "n = len(p.read_text()) if p.exists() else 0; p.write_text('x' * (n + 1)); "
          "time.sleep(3600) if n < int(sys.argv[2]) else print('ok')"]
plugin.BOOKKEEPING_TIMEOUT_S = plugin.COPY_TIMEOUT_S = 1


def stand_in(hangs):
    class StandIn:  # what _run_engine_command asks of its environment
        _engine_cmd = classmethod(lambda cls, *args: [*engine, str(calls), str(hangs)])
        _compose_env_vars = staticmethod(lambda include_os_env: None)
        _collect_buffered_output = staticmethod(DockerEnvironment._collect_buffered_output)
        logger = logging.getLogger("test")
        environment_name = "test"

    return StandIn()


async def run(args, hangs, timeout_sec=None):
    calls.unlink(missing_ok=True)
    try:
        mixin = plugin.WestbenchComposeMixin
        result = await mixin._run_engine_command(stand_in(hangs), args, True, timeout_sec, None, None)
        outcome = result.stdout.strip()
    except RuntimeError as exc:
        outcome = "timed out" if "timed out" in str(exc) else str(exc)
    return outcome, len(calls.read_text())


mkdir = ["exec", "-u", "root", "c1", "bash", "-c", "mkdir -p /logs/verifier && chmod 777 /logs/verifier"]
print(asyncio.run(run(mkdir, hangs=1)))  # hangs once, answers on the second try
print(asyncio.run(run(["cp", "c1:/logs/verifier/.", "/tmp/x"], hangs=2)))  # hangs on both tries: an error
print(asyncio.run(run(["exec", "c1", "bash", "-c", "/tests/test.sh"], hangs=1, timeout_sec=2)))  # its own limit, once
"""


def test_a_bookkeeping_call_that_never_returns_is_stopped_and_tried_again(agents_machine, tmp_path):  # noqa: F811
    """A `docker exec`/`docker cp` of Harbor's bookkeeping that hangs is stopped after its limit and run once more;
    one that hangs again is an error, not a trial held until its budget ends; other calls keep their own timeout."""
    script = tmp_path / "hanging_engine.py"
    script.write_text(HANGING_ENGINE)
    result = subprocess.run(
        [str(REPO / ".venv-harbor" / "bin" / "python"), str(script), str(tmp_path / "n")],
        env={**os.environ, "PYTHONPATH": str(REPO / "harbor_plugins")},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.splitlines() == ["('ok', 2)", "('timed out', 2)", "('timed out', 1)"], result.stdout


def test_the_plugins_docstring_examples_hold_under_harbors_python(agents_machine):  # noqa: F811
    """The plugin imports Harbor, which lives in .venv-harbor only, so the fast lane cannot run its doctests."""
    result = subprocess.run(
        [str(REPO / ".venv-harbor" / "bin" / "python"), "-m", "doctest", "-v", "westbench_docker.py"],
        cwd=REPO / "harbor_plugins",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0 and "0 failed" in result.stdout, result.stdout[-3000:] + result.stderr[-2000:]
