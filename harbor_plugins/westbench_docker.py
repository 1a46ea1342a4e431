"""Harbor's Docker and Podman environments with less per-trial overhead and network control for both containers.

Loaded by Harbor as custom environments (``harbor run -e westbench_docker:WestbenchDockerEnvironment``
or ``westbench_docker:WestbenchPodmanEnvironment``; the pipeline puts this folder on Harbor's
PYTHONPATH). Everything is Harbor's ``DockerEnvironment``/``PodmanEnvironment`` (Compose project,
build, resources, mounts, the separate verifier container) except:

* ``exec`` and ``cp`` on the main service go to the engine (``docker exec``/``docker cp``) on the
  container Compose started, resolved once per ``up``. A trial makes about 25 of these calls and
  ``docker compose`` re-reads the whole project for each (~0.1 s here against ~0.05 s). Any form this
  class does not recognise (other services, other flags) still goes through Compose.
* The image built from the task's Dockerfile gets Harbor's content-addressed name (``hb__<hash>``),
  not a new ``<project>-main`` tag per trial and container (thousands of tags in a benchmark).
* The image is built once per Harbor process: the separate verifier environment of a trial uses the
  image (content-addressed tag) its agent environment has just built. Nor is it rebuilt when that tag
  exists already and was built on the present base image (the base image's layers are its first
  layers; the tag hashes the environment folder, not the base): Compose's cached build of an
  unchanged image still cost about a second per trial, ~1 s of each 12 s nop trial.
* The stale-container cleanup before ``up`` (``down --remove-orphans``) runs only when the project
  has containers (trial session ids are new for every trial).
* ``up`` without ``--wait`` when nothing can become healthy later (no task compose file, no
  HEALTHCHECK in the image): Compose's wait polls every half second although ``sleep infinity``
  runs at once. The main container must be running right after, or the ``--wait`` form runs.
* Every trial is verified in a fresh container (westbench stages each task with
  ``[verifier] environment_mode = "separate"``, ``westbench.agents.isolation``). For a task that
  declares no artifacts the agent's changed files travel as the pseudo-artifact
  ``/.westbench-changes`` (``westbench_changes.py`` decides which): the agent's container exports
  them through the engine (``docker diff`` and ``docker cp``, never the container's own tools), and
  the verifier's container receives them back at their own paths. Every upload into a verifier
  container except /tests (the task's) drops Python/shell start-up files, libraries and links.
* The verifier reads the task's inputs from the image, never from the agent's container: a file the task
  image holds is not overwritten by the agent's version (changed files and declared artifacts alike) unless
  the task names it editable (``[metadata] editable`` or an artifact naming that file), and Harbor's
  emptying of an artifact folder in the verifier's container leaves the image's own files there.
* Nothing on the host follows a link the agent made. The trial's folders are never bind-mounted into a
  container (Harbor's ``auto_mounting`` is refused), so the agent cannot plant a link where Harbor's host
  process writes (Terminus-2's ``agent/trajectory.json``, after every episode); everything of a container's
  reaches the host through the downloads here (the agent's logs, the verifier's, the artifacts, the changed
  files), which keep regular files and folders only, write them without following a link
  (``westbench_safe_files``: ``src/westbench/agents/safe_files.py``) and never replace a file the host wrote
  first (a container's ``trajectory.json`` does not overwrite Harbor's).
* Options ``network`` and ``init`` (``--ek network=false --ek init=true``) apply to the agent's
  and the verifier's container alike, while Harbor passes ``--extra-docker-compose`` overlays to
  the agent's container only: without network a verifier cannot send a trial's files anywhere
  either, and ``init`` makes ``docker stop`` immediate when PID 1 is ``sleep infinity``.
"""

from __future__ import annotations

import asyncio
import json
import posixpath
import shutil
import subprocess
import tarfile
import tempfile
import tomllib
from pathlib import Path
from typing import ClassVar

from harbor.environments.base import ExecResult
from harbor.environments.docker.docker import (
    DockerEnvironment,
    DockerOptions,
    _sanitize_docker_compose_project_name,
)
from harbor.environments.podman import PodmanEnvironment, PodmanOptions
from westbench_changes import (
    CHANGES_ARTIFACT,
    IMAGE_FILES_PRUNED,
    IMAGE_FILES_SCRIPT,
    MODULES_SCRIPT,
    changed_files,
    is_input,
    refused,
    shadows,
    top_level,
    under,
    wanted,
)
from westbench_safe_files import RefusedFile, place_member, place_stream, remove_unsafe, write_no_follow

MAIN = "main"
# Harbor's own bookkeeping in a container (folders, permissions, removals, copies) takes well under a second, and
# Harbor gives those calls no timeout: a `docker exec` or `docker cp` that never returns after its process ended
# (docker/cli#4553, Docker 20.10) held a trial until the trial's whole budget ran out. They get these limits and one
# more try (each is idempotent); engine queries (ps, inspect, diff, rm) get the first. Copies get longer: an agent's
# artifacts may be gigabytes of trajectory.
BOOKKEEPING_TIMEOUT_S = 60
COPY_TIMEOUT_S = 600
BOOKKEEPING_TRIES = 2
_BOOKKEEPING_COMMANDS = ("mkdir ", "chmod ", "test ", "rm ", "if [ -L ", "find ")
# compose-exec flags taking a value and their docker-exec spelling (the same).
_EXEC_VALUE_FLAGS = {"-w", "--workdir", "-e", "--env", "-u", "--user"}
_CP_FLAGS = {"-a", "--archive", "-L", "--follow-link"}


class WestbenchDockerOptions(DockerOptions):
    """Harbor's Docker options plus the main service's network and init process."""

    network: bool = True
    init: bool = True


class WestbenchPodmanOptions(PodmanOptions):
    """Harbor's Podman options plus the main service's network and init process."""

    network: bool = True
    init: bool = True


def engine_exec_args(command: list[str], container: str, interactive: bool) -> list[str] | None:
    """``docker exec`` arguments for a ``docker compose exec`` on the main service, or None.

    >>> engine_exec_args(["exec", "-w", "/app", "-u", "root", "main", "bash", "-c", "ls"], "c1", False)
    ['exec', '-w', '/app', '-u', 'root', 'c1', 'bash', '-c', 'ls']
    >>> engine_exec_args(["exec", "db", "sh", "-c", "ls"], "c1", False) is None
    True
    """
    args, rest = ["exec"] + (["-i"] if interactive else []), command[1:]
    while rest and rest[0].startswith("-"):
        flag = rest.pop(0)
        if flag in ("-T", "--no-TTY"):
            continue
        if flag not in _EXEC_VALUE_FLAGS or not rest:
            return None
        args += [flag, rest.pop(0)]
    if not rest or rest[0] != MAIN or len(rest) < 2:
        return None
    return args + [container] + rest[1:]


def engine_cp_args(command: list[str], container: str) -> list[str] | None:
    """``docker cp`` arguments for a ``docker compose cp`` to or from the main service, or None.

    >>> engine_cp_args(["cp", "/tmp/tests/.", "main:/tests"], "c1")
    ['cp', '/tmp/tests/.', 'c1:/tests']
    >>> engine_cp_args(["cp", "--all", "x", "main:/y"], "c1") is None
    True
    """
    flags = [arg for arg in command[1:] if arg.startswith("-")]
    paths = [arg for arg in command[1:] if not arg.startswith("-")]
    if any(flag not in _CP_FLAGS for flag in flags) or len(paths) != 2:
        return None
    in_main = [path.startswith(f"{MAIN}:") for path in paths]
    if sum(in_main) != 1:
        return None
    paths = [f"{container}:{path[len(MAIN) + 1 :]}" if inside else path for path, inside in zip(paths, in_main)]
    return ["cp", *flags, *paths]


def is_bookkeeping(args: list[str]) -> bool:
    """True for an engine ``cp``, or an ``exec`` of one of Harbor's bookkeeping shell commands (idempotent, short).

    >>> is_bookkeeping(["exec", "-u", "root", "c1", "bash", "-c", "mkdir -p /logs/verifier && chmod 777 /logs/x"])
    True
    >>> is_bookkeeping(["cp", "c1:/app/output/.", "/tmp/out"])
    True
    >>> is_bookkeeping(["exec", "c1", "bash", "-c", "(/tests/test.sh) > /logs/verifier/test-stdout.txt 2>&1"])
    False
    """
    if args[:1] == ["cp"]:
        return True
    return args[:1] == ["exec"] and args[-3:-1] == ["bash", "-c"] and args[-1].startswith(_BOOKKEEPING_COMMANDS)


def dockerfile_base(dockerfile: Path) -> str | None:
    """The image of a Dockerfile's one plain ``FROM`` (None for several stages, build args, flags or none).

    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "Dockerfile"
    >>> _ = path.write_text("# x\\nFROM westbench/md-base:bookworm-1\\nRUN true\\n")
    >>> dockerfile_base(path)
    'westbench/md-base:bookworm-1'
    >>> _ = path.write_text("FROM a AS b\\nFROM b\\n")
    >>> dockerfile_base(path) is None
    True
    """
    try:
        lines = dockerfile.read_text().splitlines()
    except OSError:
        return None
    froms = [line.split()[1:] for line in lines if line.strip().upper().startswith("FROM ")]
    if (
        len(froms) != 1
        or len(froms[0]) != 1
        or "$" in froms[0][0]
        or froms[0][0].startswith("-")
        or froms[0][0].lower() == "scratch"
        or any(line.rstrip().endswith("\\") for line in lines if line.strip().upper().startswith("FROM "))
    ):
        return None
    return froms[0][0]


class WestbenchComposeMixin:
    """Engine-level exec/cp, one image per task content, network/init for every container.

    Mixed into Harbor's Compose-based environments (Docker, Podman); see the module docstring.
    """

    _built_images: ClassVar[set[str]] = set()
    _lone_main_rm: ClassVar[bool] = False  # Docker only: podman-compose also makes a pod that `down` removes

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        if getattr(self, "auto_mounting", False):  # a bind mount lets the agent plant links where the host writes
            raise ValueError(
                "westbench's environments never bind-mount the trial's folders into a container (the agent could "
                "plant a link where Harbor writes on the host): leave --ek auto_mounting unset"
            )
        self._main_container: str | None = None
        main: dict = {"init": True} if self.options.init else {}
        if not self.options.network:
            main["network_mode"] = "none"
        # Harbor's build file leaves the image unnamed, so Compose tags it <project>-main: a new tag
        # for every trial. The content-addressed name Harbor computes is reused instead.
        self._overlay_dir = tempfile.TemporaryDirectory(prefix="westbench-compose-")
        self._overlays = {}
        for prebuilt, service in ((True, main), (False, {**main, "image": self._main_image_name})):
            if service:
                self._overlays[prebuilt] = (
                    Path(self._overlay_dir.name) / f"westbench-main-{'prebuilt' if prebuilt else 'build'}.json"
                )
                self._overlays[prebuilt].write_text(json.dumps({"services": {MAIN: service}}))

    @property
    def _docker_compose_paths(self) -> list[Path]:
        overlay = self._overlays.get(self._use_prebuilt)
        return [*super()._docker_compose_paths, *([overlay] if overlay else [])]

    @property
    def _project(self) -> str:
        return _sanitize_docker_compose_project_name(self.session_id)

    async def _engine(self, *args: str) -> str:
        """The engine's answer to a query, or "" when it fails or does not answer within the bookkeeping limit."""
        process = await asyncio.create_subprocess_exec(
            *type(self)._engine_cmd(*args), stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL
        )
        try:
            stdout, _ = await asyncio.wait_for(process.communicate(), BOOKKEEPING_TIMEOUT_S)
        except asyncio.TimeoutError:
            await self._terminate_process(process)  # Harbor's: SIGTERM, then SIGKILL after 5 s
            self.logger.warning(f"`{' '.join(args)}` did not answer within {BOOKKEEPING_TIMEOUT_S} s")
            return ""
        return stdout.decode(errors="replace") if process.returncode == 0 else ""

    async def _resolve_main_container(self) -> str | None:
        """The id of the project's one running main container (None when there is not exactly one)."""
        if self._main_container is None:
            ids = (
                await self._engine(
                    "ps",
                    "-q",
                    "--filter",
                    f"label=com.docker.compose.project={self._project}",
                    "--filter",
                    f"label=com.docker.compose.service={MAIN}",
                    "--filter",
                    "status=running",
                )
            ).split()
            self._main_container = ids[0] if len(ids) == 1 else None
        return self._main_container

    async def _nothing_to_wait_for(self) -> bool:
        """True when ``up --wait`` could only wait for containers to run (no healthcheck anywhere)."""
        if self._environment_docker_compose_path.exists():
            return False
        image = self.task_env_config.docker_image if self._use_prebuilt else self._main_image_name
        return (
            bool(image)
            and (await self._engine("image", "inspect", "-f", "{{json .Config.Healthcheck}}", image)).strip() == "null"
        )

    async def _image_is_current(self) -> bool:
        """True when the content-addressed image exists and was built on the present base image.

        The tag hashes the environment folder (Dockerfile and build context), not the base image: the
        image is current only when the Dockerfile has one plain ``FROM`` and the base image's layers
        are the first layers of the image (a rebuilt base image makes every task image stale).
        """
        base = dockerfile_base(self.environment_dir / "Dockerfile")
        if base is None:
            return False
        layers = (
            await self._engine("image", "inspect", "-f", "{{json .RootFS.Layers}}", self._main_image_name, base)
        ).split("\n")
        try:
            image_layers, base_layers = (json.loads(line) for line in layers[:2])
        except ValueError:
            return False
        return (
            bool(base_layers)
            and len(image_layers) >= len(base_layers)
            and image_layers[: len(base_layers)] == base_layers
        )

    async def _remove_lone_main(self) -> bool:
        """``down`` as one ``rm -f`` when the project is only its main container, without a network.

        Docker only, and only for a closed task (``network=false``: ``network_mode: none``, so Compose made no network)
        without a compose file of its own or extra compose files (no other service, network or
        volume); False (Compose's ``down`` runs) in every other case or when the removal fails.
        """
        if (
            not self._lone_main_rm
            or self.options.network
            or self._environment_docker_compose_path.exists()
            or self.extra_docker_compose_paths
        ):
            return False
        ids = (await self._engine("ps", "-aq", "--filter", f"label=com.docker.compose.project={self._project}")).split()
        main = await self._resolve_main_container()
        if len(ids) != 1 or main is None or not main.startswith(ids[0][:12]):
            return False
        self._main_container = None
        return bool((await self._engine("rm", "-f", main)).strip())

    async def _run_docker_compose_command(
        self,
        command: list[str],
        check: bool = True,
        timeout_sec: int | None = None,
        stdin_data: bytes | None = None,
        on_output=None,
    ) -> ExecResult:
        verb = command[0] if command else ""
        if verb == "build" and self._main_image_name in self._built_images:
            return ExecResult(stdout=f"{self._main_image_name} built earlier in this process", return_code=0)
        if command == ["build"] and await self._image_is_current():  # Compose's cache would rebuild nothing
            self._built_images.add(self._main_image_name)
            return ExecResult(
                stdout=f"{self._main_image_name} is current (built on the present base image)", return_code=0
            )
        if command == ["down"] and await self._remove_lone_main():
            return ExecResult(stdout="main container removed", return_code=0)
        if (
            command == ["down", "--remove-orphans"]
            and not (
                await self._engine("ps", "-aq", "--filter", f"label=com.docker.compose.project={self._project}")
            ).strip()
        ):
            return ExecResult(stdout="no containers to remove", return_code=0)
        if verb == "up" and "--wait" in command and await self._nothing_to_wait_for():
            self._main_container = None
            result = await super()._run_docker_compose_command(
                [arg for arg in command if arg != "--wait"], check=check, timeout_sec=timeout_sec
            )
            if result.return_code != 0 or await self._resolve_main_container():
                return result
            # Not running right after `up`: let Compose wait for it (and report why it stopped).
        engine_args = None
        if verb in ("exec", "cp") and (container := await self._resolve_main_container()):
            engine_args = (
                engine_exec_args(command, container, stdin_data is not None)
                if verb == "exec"
                else engine_cp_args(command, container)
            )
        if engine_args is None:
            if verb in ("up", "down", "stop", "start", "restart", "rm", "kill"):
                self._main_container = None
            result = await super()._run_docker_compose_command(
                command, check=check, timeout_sec=timeout_sec, stdin_data=stdin_data, on_output=on_output
            )
            if verb == "build":
                self._built_images.add(self._main_image_name)
            return result
        return await self._run_engine_command(engine_args, check, timeout_sec, stdin_data, on_output)

    async def _run_engine_command(
        self, args: list[str], check: bool, timeout_sec: int | None, stdin_data: bytes | None, on_output
    ) -> ExecResult:
        full_command = type(self)._engine_cmd(*args)
        bookkeeping = timeout_sec is None and is_bookkeeping(args)
        limit = (COPY_TIMEOUT_S if args[0] == "cp" else BOOKKEEPING_TIMEOUT_S) if bookkeeping else timeout_sec
        for attempt in range(1, (BOOKKEEPING_TRIES if bookkeeping else 1) + 1):
            process = await asyncio.create_subprocess_exec(
                *full_command,
                env=self._compose_env_vars(include_os_env=True),
                stdin=asyncio.subprocess.PIPE if stdin_data is not None else asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.STDOUT,
            )
            try:
                if on_output is not None:
                    result = await self._collect_streamed_output(
                        process, timeout_sec=limit, stdin_data=stdin_data, on_output=on_output
                    )
                else:
                    result = await self._collect_buffered_output(process, timeout_sec=limit, stdin_data=stdin_data)
                break
            except RuntimeError:  # Harbor's "Command timed out" (it has stopped the process)
                if not bookkeeping or attempt == BOOKKEEPING_TRIES:
                    raise
                self.logger.warning(
                    f"`{' '.join(full_command)}` did not return within {limit} s (try {attempt}); trying again"
                )
        if check and result.return_code != 0:
            raise RuntimeError(
                f"Docker command failed for environment {self.environment_name}. "
                f"Command: {' '.join(full_command)}. Return code: {result.return_code}. "
                f"Stdout: {result.stdout}. Stderr: {result.stderr}. "
            )
        return result

    # --- verification in a fresh container: what the agent's files may bring into it ---

    @property
    def _is_verifier(self) -> bool:
        return "__verifier__" in self.session_id

    async def service_is_dir(self, path: str, *, service: str | None = None, user=None) -> bool:
        if path == CHANGES_ARTIFACT and self.is_main_service(service):
            return True
        return await super().service_is_dir(path, service=service, user=user)

    async def service_download_dir(self, source_dir: str, target_dir, *, service: str | None = None) -> None:
        if source_dir == CHANGES_ARTIFACT and self.is_main_service(service):
            await self._download_changes(Path(target_dir))
            return
        await super().service_download_dir(source_dir, target_dir, service=service)

    async def download_dir(self, source_dir: str, target_dir) -> None:
        """A container folder (the agent's or the verifier's logs, an artifact) onto the host: only its regular
        files and folders, none over a file the host wrote first, nothing followed (module docstring)."""
        container = await self._resolve_main_container()
        if container is None:  # no running container: Harbor's copy, then every link and special file removed
            await super().download_dir(source_dir, target_dir)
            self._refused_on_host(await asyncio.to_thread(remove_unsafe, target_dir), target_dir)
            return
        source = posixpath.normpath(source_dir)  # "/logs/agent/." is the folder: its name leads the stream
        skipped = await asyncio.to_thread(self._copy_out, container, source, Path(target_dir))
        self._refused_on_host(skipped, target_dir)

    async def download_file(self, source_path: str, target_path) -> None:
        """One container file onto the host, as :meth:`download_dir`: a regular file, written without following
        a link (one at ``target_path`` is replaced, not written through)."""
        container = await self._resolve_main_container()
        if container is None:
            await super().download_file(source_path, target_path)
            self._refused_on_host(await asyncio.to_thread(remove_unsafe, Path(target_path).parent), target_path)
            return
        target = Path(target_path)
        skipped = await asyncio.to_thread(self._copy_out, container, source_path, target.parent, target.name)
        self._refused_on_host(skipped, target_path)

    async def download_dir_filtered(self, *, source_dir: str, target_dir, **filters) -> None:
        """Harbor's filtered copy (``include_logs``/``exclude_logs``), then every link and special file removed."""
        await super().download_dir_filtered(source_dir=source_dir, target_dir=target_dir, **filters)
        self._refused_on_host(await asyncio.to_thread(remove_unsafe, target_dir), target_dir)

    def _refused_on_host(self, skipped: list[str], target) -> None:
        if skipped:
            self.logger.warning(f"not copied to {target} (links, special files, or the host's): {skipped[:20]}")

    def _copy_out(self, container: str, source: str, target: Path, name: str | None = None) -> list[str]:
        """``docker cp container:source -`` written under ``target`` (``westbench_safe_files.place_stream``: as
        ``name`` when given, one file replacing the entry there); the entries not written, with why."""
        target.mkdir(parents=True, exist_ok=True)  # Harbor's folder on the host (trial/agent, verifier, artifacts)
        process = subprocess.Popen(
            [*type(self)._engine_cmd("cp", f"{container}:{source}", "-")],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        try:
            return place_stream(process.stdout, target, name)
        except tarfile.ReadError:  # nothing came: the engine could not copy it (Harbor reports the failure)
            raise RuntimeError(f"`cp {container}:{source}` failed: exit {process.wait()}") from None
        finally:
            process.stdout.close()
            process.wait()

    async def _download_changes(self, target: Path) -> None:
        """The agent's added/changed files (``docker diff``), exported by the engine into ``target``."""
        container = await self._resolve_main_container()
        if container is None:
            raise RuntimeError(f"no running main container to export the agent's changes from ({self._project})")
        diff = await self._engine("diff", container)
        files = changed_files(diff.splitlines())
        kinds = {line[2:].strip(): line[:1] for line in diff.splitlines() if line[:2] in ("A ", "C ")}
        editable = self._editable()
        modules, path_dirs = await self._image_tools()
        target.parent.mkdir(parents=True, exist_ok=True)  # Harbor's artifacts folder (the host's)
        if target.is_dir() and not target.is_symlink():  # anything there (a copy of /logs/artifacts) is not the export
            shutil.rmtree(target)  # removes links inside, never follows them
        elif target.is_symlink() or target.exists():
            target.unlink()
        engine = type(self)._engine_cmd

        def export() -> dict:
            copied, skipped = [], []
            for root in sorted({top_level(path) for path in files}):
                process = subprocess.Popen(
                    [*engine("cp", f"{container}:{root}", "-")], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
                )
                with tarfile.open(fileobj=process.stdout, mode="r|") as tar:
                    for member in tar:
                        path = "/" + member.name.removeprefix("./").lstrip("/")
                        if not wanted(path, files) or not (member.isreg() or member.isdir()):
                            continue
                        reason = refused(path) or (shadows(path, modules, path_dirs) if member.isreg() else None)
                        if not reason and member.isreg() and kinds.get(path) == "C" and not under(path, editable):
                            reason = "a file of the task image (its input): the verifier reads the image's copy"
                        handle = tar.extractfile(member) if member.isreg() else None  # one reader: a stream
                        if not reason and handle is not None and handle.peek(4)[:4] == b"\x7fELF":
                            reason = "a compiled program (the image provides the tools)"
                        if reason:
                            skipped.append(f"{path}: {reason}")
                            continue
                        try:  # never through a link, never over an entry already there
                            place_member(tar, member, target, member.name.removeprefix("./").lstrip("/"), handle=handle)
                        except RefusedFile as exc:
                            skipped.append(f"{path}: {exc}")
                            continue
                        if member.isreg():
                            copied.append(path)
                process.wait()
            return {
                "copied": copied,
                "refused": skipped,
                "refused_by_diff": sorted(
                    line for line in diff.splitlines() if line[:1] in "AC" and refused(line[2:]) is not None
                ),
            }

        manifest = await asyncio.to_thread(export)
        write_no_follow(target.parent / "westbench-changes.json", json.dumps(manifest, indent=1).encode())
        self.logger.info(
            f"agent's changes for the verifier: {len(manifest['copied'])} files copied, "
            f"{len(manifest['refused']) + len(manifest['refused_by_diff'])} refused"
        )

    _image_tool_cache: ClassVar[dict[str, tuple[set, list]]] = {}

    async def _image_tools(self) -> tuple[set, list]:
        """The Python modules and PATH folders of the task image, asked of a fresh container (cached per image)."""
        image = self.task_env_config.docker_image if self._use_prebuilt else self._main_image_name
        image_id = (await self._engine("image", "inspect", "-f", "{{.Id}}", image)).strip().replace(":", "-")
        stored = Path(tempfile.gettempdir()) / "westbench-image-tools" / f"{image_id or 'unknown'}.json"
        if image not in self._image_tool_cache and image_id and stored.is_file():  # one image, many trials
            modules, path_dirs = json.loads(stored.read_text())
            self._image_tool_cache[image] = (set(modules), path_dirs)
        if image not in self._image_tool_cache:
            env = await self._engine("image", "inspect", "-f", "{{json .Config.Env}}", image)
            try:
                variables = dict(item.split("=", 1) for item in json.loads(env or "[]") if "=" in item)
            except ValueError:
                variables = {}
            path_dirs = [d for d in variables.get("PATH", "").split(":") if d.startswith("/") and not refused(d + "/x")]
            listing = await self._engine(
                "run", "--rm", "--network", "none", "--entrypoint", "python3", image, "-c", MODULES_SCRIPT
            )
            try:
                modules = set(json.loads(listing)) if listing.strip() else set()
            except ValueError:
                modules = set()
            self._image_tool_cache[image] = (modules, path_dirs)
            if image_id and modules:
                stored.parent.mkdir(parents=True, exist_ok=True)
                partial = stored.with_suffix(f".{self.session_id}.tmp")
                partial.write_text(json.dumps([sorted(modules), path_dirs]))
                partial.replace(stored)
        return self._image_tool_cache[image]

    # --- the task's inputs stay the image's in the verifier's container ---

    _image_files_cache: ClassVar[dict[str, frozenset]] = {}

    def _task_config(self) -> dict:
        try:
            return tomllib.loads((self.environment_dir.parent / "task.toml").read_text())
        except (OSError, tomllib.TOMLDecodeError):
            return {}

    def _editable(self) -> list[str]:
        """Paths the task lets the agent change for the verifier: ``[metadata] editable`` and file artifacts."""
        config = self._task_config()
        editable = [p for p in (config.get("metadata") or {}).get("editable", []) if isinstance(p, str)]
        artifacts = [a if isinstance(a, str) else (a or {}).get("source", "") for a in config.get("artifacts", [])]
        files = self._image_files_cache.get(self._image_key or "", frozenset())
        return editable + [a for a in artifacts if a and a.rstrip("/") in files]

    @property
    def _image_key(self) -> str | None:
        return self.task_env_config.docker_image if self._use_prebuilt else self._main_image_name

    async def _image_files(self) -> frozenset:
        """Every file and link the task image holds (outside the system trees), listed in a fresh verifier container.

        Listed before any of the agent's files arrive, by the image's own ``find`` (cached per image id); an image
        without ``find`` is listed from the engine's export of the container instead.
        """
        image = self._image_key or ""
        if image in self._image_files_cache:
            return self._image_files_cache[image]
        image_id = (await self._engine("image", "inspect", "-f", "{{.Id}}", image)).strip().replace(":", "-")
        stored = Path(tempfile.gettempdir()) / "westbench-image-files" / f"{image_id or 'unknown'}.json"
        if image_id and stored.is_file():
            files = frozenset(json.loads(stored.read_text()))
            self._image_files_cache[image] = files
            return files
        container = await self._resolve_main_container()
        listing = await self._engine("exec", container, "sh", "-c", IMAGE_FILES_SCRIPT) if container else ""
        if listing:
            files = frozenset(p for p in listing.split("\0") if p.startswith("/"))
        elif container:
            files = await asyncio.to_thread(self._exported_files, container)
        else:
            raise RuntimeError(f"no verifier container to list the task image's files in ({self._project})")
        self._image_files_cache[image] = files
        if image_id and files:
            stored.parent.mkdir(parents=True, exist_ok=True)
            partial = stored.with_suffix(f".{self.session_id}.tmp")
            partial.write_text(json.dumps(sorted(files)))
            partial.replace(stored)
        return files

    def _exported_files(self, container: str) -> frozenset:
        process = subprocess.Popen(
            [*type(self)._engine_cmd("export", container)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
        names = set()
        with tarfile.open(fileobj=process.stdout, mode="r|") as tar:
            for member in tar:
                path = "/" + member.name.removeprefix("./").lstrip("/")
                if (member.isreg() or member.issym()) and not under(path, IMAGE_FILES_PRUNED):
                    names.add(path)
        process.wait()
        return frozenset(names)

    async def empty_dirs(self, dirs, *, chmod: bool = True):
        if not self._is_verifier:
            return await super().empty_dirs(dirs, chmod=chmod)
        await self._image_files()  # the image's own files, listed before anything of the agent's arrives
        logs = [d for d in dirs if str(d).rstrip("/") == "/logs" or str(d).startswith("/logs/")]
        kept = [d for d in dirs if d not in logs]
        if kept:  # an artifact folder: the image's files there are the task's inputs; they stay
            await self.ensure_dirs(kept, chmod=chmod)
        return await super().empty_dirs(logs, chmod=chmod) if logs else None

    async def upload_dir(self, source_dir, target_dir: str):
        if not self._is_verifier or target_dir.rstrip("/") in ("/tests", ""):
            return await super().upload_dir(source_dir, target_dir)
        image_files, editable = await self._image_files(), self._editable()
        with tempfile.TemporaryDirectory(prefix="westbench-verifier-upload-") as clean:
            changes = target_dir.rstrip("/") == CHANGES_ARTIFACT
            for path in sorted(Path(source_dir).rglob("*")):
                relative = path.relative_to(source_dir).as_posix()
                inside = ("/" + relative) if changes else f"{target_dir.rstrip('/')}/{relative}"
                if path.is_symlink() or not (path.is_file() or path.is_dir()) or refused(inside, check_roots=changes):
                    self.logger.warning(f"not copied into the verifier's container: {inside}")
                    continue
                if path.is_file() and is_input(inside, image_files, editable):
                    self.logger.warning(f"not copied into the verifier's container: {inside} (an input of the task)")
                    continue
                if path.is_dir():
                    (Path(clean) / relative).mkdir(parents=True, exist_ok=True)
                else:
                    (Path(clean) / relative).parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(path, Path(clean) / relative)
            if not changes:
                return await super().upload_dir(clean, target_dir)
            for child in sorted(Path(clean).iterdir()):  # back to their own paths: /app, /root, /tmp, ...
                if child.is_dir():
                    await super().upload_dir(child, "/" + child.name)
                else:
                    await super().upload_file(child, "/" + child.name)

    async def upload_file(self, source_path, target_path: str):
        if self._is_verifier and not target_path.startswith("/tests/"):
            if refused(target_path, check_roots=False):
                self.logger.warning(f"not copied into the verifier's container: {target_path}")
                return None
            if is_input(target_path, await self._image_files(), self._editable()):
                self.logger.warning(f"not copied into the verifier's container: {target_path} (an input of the task)")
                return None
        return await super().upload_file(source_path, target_path)

    async def stop(self, delete: bool):
        try:
            await super().stop(delete)
        finally:
            self._main_container = None
            self._overlay_dir.cleanup()


class WestbenchDockerEnvironment(WestbenchComposeMixin, DockerEnvironment):
    """Harbor's ``DockerEnvironment`` with westbench's options and faster exec/copy.

    The daemon is asked with ``docker version`` where Harbor asks ``docker info`` (three times a
    trial: the preflight and each container's OS check; ``info`` gathers the daemon's statistics,
    about 0.2 s each, ``version`` 0.02 s). The same answers: the daemon responds, its OS type.
    """

    options_model = WestbenchDockerOptions
    options: WestbenchDockerOptions
    _lone_main_rm = True
    _daemon_os: ClassVar[str | None] = None

    @classmethod
    def preflight(cls, kwargs=None) -> None:
        super(DockerEnvironment, cls).preflight(kwargs)  # Harbor's options validation, not its `docker info`
        if not shutil.which("docker"):
            raise SystemExit("Docker is not installed or not on PATH. Please install Docker and try again.")
        if cls._detect_daemon_os() is None:
            raise SystemExit("Docker daemon is not running. Please start Docker and try again.")

    @classmethod
    def _detect_daemon_os(cls) -> str | None:
        if cls._daemon_os is None:
            try:
                result = subprocess.run(
                    cls._engine_cmd("version", "--format", "{{.Server.Os}}"), capture_output=True, text=True, timeout=10
                )
                cls._daemon_os = (result.stdout.strip().lower() or None) if result.returncode == 0 else None
            except (OSError, subprocess.TimeoutExpired):
                return None
        return cls._daemon_os


class WestbenchPodmanEnvironment(WestbenchComposeMixin, PodmanEnvironment):
    """Harbor's ``PodmanEnvironment`` with westbench's options and faster exec/copy."""

    options_model = WestbenchPodmanOptions
    options: WestbenchPodmanOptions
