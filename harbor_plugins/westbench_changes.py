"""Which of an agent's changed files a fresh verifier container receives (standard library only).

westbench verifies every trial in a fresh container made from the task image (see
``westbench_docker.py`` and ``westbench.agents.isolation``). A task that declares no artifacts gets
the pseudo-artifact :data:`CHANGES_ARTIFACT`: every file the agent added or changed in its container
(``docker diff``), minus what could change the verifier's own tools or its grading:

* whole trees the verifier's tools and Harbor's own files live in (:data:`EXCLUDED_ROOTS`: the
  interpreter, shell and libraries under /usr, /bin, /lib..., /etc with ``ld.so.preload``, /logs,
  /tests, /solution);
* pytest's start-up files (``conftest.py``, ``pytest.ini``) wherever they are;
* anything under a ``site-packages``/``dist-packages``/``.local`` folder, Python start-up hooks
  (``sitecustomize.py``, ``usercustomize.py``, ``*.pth``), shared libraries (``*.so``), compiled
  bytecode (``*.pyc``) and shell/Python start-up files (``.bashrc``, ``.profile``, ...).

Only regular files and folders travel (compiled programs, ELF, excepted); links and special files
never do. The same name rules apply
to every upload into a verifier container (declared artifacts too), /tests excepted (it comes from the
task folder on the host).

The task's inputs are the image's: a file the task image already holds never reaches the verifier in
the agent's version (:func:`is_input`), whatever the task's format, unless the task names it editable
(``[metadata] editable = ["/app/src", ...]`` in task.toml, or an ``artifacts`` entry naming that very
file). So an agent that rewrites its input files (sets every value equal and answers accordingly) is
graded against the inputs the task shipped.

Examples
--------
>>> refused("/app/output/result.csv") is None, refused("/root/answer.txt") is None
(True, True)
>>> refused("/usr/local/bin/python3")
'under /usr (the image provides it)'
>>> refused("/app/sitecustomize.py"), refused("/etc/ld.so.preload")
('Python or shell start-up file', 'under /etc (the image provides it)')
>>> refused("/root/.local/lib/python3.11/site-packages/evil.py")
'inside a Python package folder'
>>> lines = ["C /app", "A /app/out.txt", "A /usr/local/bin/python3", "D /app/old", "A /logs/verifier/reward.txt"]
>>> sorted(changed_files(lines))
['/app/out.txt']
>>> is_input("/app/inputs/data.csv", {"/app/inputs/data.csv"}, editable=("/app/src",))
True
>>> is_input("/app/src/main.py", {"/app/src/main.py"}, editable=("/app/src",)), is_input("/app/out.txt", set())
(False, False)
"""

from __future__ import annotations

import posixpath
import re

CHANGES_ARTIFACT = "/.westbench-changes"

EXCLUDED_ROOTS = (
    "/logs",
    "/tests",
    "/solution",
    "/proc",
    "/sys",
    "/dev",
    "/run",
    "/usr",
    "/bin",
    "/sbin",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/etc",
    "/boot",
    "/opt",
    "/snap",
    CHANGES_ARTIFACT,
)
PACKAGE_DIRS = ("site-packages", "dist-packages", ".local", "__pycache__")
STARTUP_NAMES = re.compile(
    r"^(sitecustomize\.py|usercustomize\.py|conftest\.py|pytest\.ini|ld\.so\.preload|.*\.pth|\.bashrc|\.bash_profile|"
    r"\.bash_login|\.bash_logout|\.profile|\.pythonrc(\.py)?|\.inputrc|\.pydistutils\.cfg|pip\.conf)$"
)
BINARY_NAMES = re.compile(r"^.*(\.so(\.[0-9.]+)?|\.pyc)$")


def refused(path: str, check_roots: bool = True) -> str | None:
    """Why ``path`` (absolute, in the container) is not copied into a verifier container; None if it is."""
    path = posixpath.normpath("/" + path.lstrip("/"))
    if check_roots:
        for root in EXCLUDED_ROOTS:
            if path == root or path.startswith(root + "/"):
                return (
                    f"under {root} (the image provides it)"
                    if root not in ("/logs", "/tests", "/solution")
                    else f"under {root} (Harbor's, not the agent's)"
                )
    parts = path.strip("/").split("/")
    if any(part in PACKAGE_DIRS for part in parts[:-1]):
        return "inside a Python package folder"
    name = parts[-1]
    if STARTUP_NAMES.match(name):
        return "Python or shell start-up file"
    if BINARY_NAMES.match(name):
        return "shared library or compiled bytecode"
    return None


def under(path: str, roots) -> bool:
    """Whether ``path`` is one of ``roots`` or lies inside one of them.

    >>> under("/app/src/a.py", ["/app/src"]), under("/app/srcs/a.py", ["/app/src"])
    (True, False)
    """
    path = posixpath.normpath("/" + path.lstrip("/"))
    return any(path == root or path.startswith(root.rstrip("/") + "/") for root in map(posixpath.normpath, roots))


def is_input(path: str, image_files, editable=()) -> bool:
    """Whether ``path`` is one of the task's inputs: a file its image holds that the task does not name editable."""
    path = posixpath.normpath("/" + path.lstrip("/"))
    return path in image_files and not under(path, editable)


# Run with the image's own find in a fresh container of the task image: every file and link it holds outside the
# trees no upload reaches (the image provides them; the verifier's tools live there).
IMAGE_FILES_PRUNED = (
    "/proc", "/sys", "/dev", "/run", "/usr", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin", "/boot", "/snap",
    "/logs", "/tests",
)  # fmt: skip
IMAGE_FILES_SCRIPT = (
    "find / -xdev \\( "
    + " -o ".join(f"-path {root}" for root in IMAGE_FILES_PRUNED)
    + " \\) -prune -o \\( -type f -o -type l \\) -print0"
)


def changed_files(diff_lines, check_roots: bool = True) -> set[str]:
    """Added or changed paths of ``docker diff`` output that may be copied (folders included; files decided later)."""
    kept = set()
    for line in diff_lines:
        kind, _, path = line.strip().partition(" ")
        if kind in ("A", "C") and path and refused(path, check_roots) is None:
            kept.add(posixpath.normpath(path))
    parents = {posixpath.dirname(p) for p in kept}
    return kept - parents  # leaves: a changed folder's own entry adds nothing


# Run with the image's python3 in a fresh container: the modules an agent's file must not shadow.
MODULES_SCRIPT = (
    "import json, os, pkgutil, sys; sys.path = [p for p in sys.path if p not in ('', os.getcwd())]; "
    "print(json.dumps(sorted(set(sys.builtin_module_names) | set(getattr(sys, 'stdlib_module_names', ())) "
    "| {m.name for m in pkgutil.iter_modules()})))"
)


def shadows(path: str, modules, path_dirs=()) -> str | None:
    """Why a file would shadow the image's tools (a module of its Python, a command on its PATH); None if not.

    >>> shadows("/app/pytest.py", {"pytest", "json"}), shadows("/app/numpy/core.py", {"numpy"})
    ('would shadow the Python module pytest', 'would shadow the Python package numpy')
    >>> shadows("/app/analysis.py", {"pytest"}), shadows("/app/json/data.csv", {"json"})
    (None, None)
    >>> shadows("/app/bin/python3", set(), ["/app/bin", "/usr/bin"])
    'on the PATH of the verifier (/app/bin)'
    """
    parts = posixpath.normpath(path).strip("/").split("/")
    if posixpath.dirname(posixpath.normpath(path)) in set(path_dirs):
        return f"on the PATH of the verifier ({posixpath.dirname(posixpath.normpath(path))})"
    name = parts[-1]
    for suffix in (".py", ".pyw", ".pyc"):
        if name.endswith(suffix) and name[: -len(suffix)] in modules:
            return f"would shadow the Python module {name[: -len(suffix)]}"
    if name.endswith(".py"):
        for folder in parts[:-1]:
            if folder in modules:
                return f"would shadow the Python package {folder}"
    return None


def wanted(path: str, files: set[str]) -> bool:
    """Whether ``path`` is one of the changed ``files`` or lies inside one of them (a new folder).

    >>> wanted("/app/new/x.txt", {"/app/new"}), wanted("/app/old.txt", {"/app/new"})
    (True, False)
    """
    path = posixpath.normpath(path)
    while path not in ("/", ""):
        if path in files:
            return True
        path = posixpath.dirname(path)
    return False


def is_program(path) -> bool:
    """Whether a file is a compiled program or library (ELF): never copied into a verifier container.

    >>> import sys
    >>> is_program(sys.executable), is_program(__file__)
    (True, False)
    """
    try:
        with open(path, "rb") as handle:
            return handle.read(4) == b"\x7fELF"
    except OSError:
        return False


def top_level(path: str) -> str:
    """The top-level folder of an absolute path.

    >>> top_level("/app/output/x.csv")
    '/app'
    """
    return "/" + path.strip("/").split("/")[0]
