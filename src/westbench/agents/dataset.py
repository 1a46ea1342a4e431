"""The task suite as a Harbor dataset: a local registry so that ``harbor run -d westbench@<version>`` works offline.

Harbor resolves ``-d <name>@<version>`` through a registry, a JSON list of datasets whose tasks are
folders (``{"name", "path"}``) or git entries. :func:`registry` lists westbench's own tasks (those
named ``westbench/<task>`` in ``[task] name``) under the dataset ``westbench`` at the package's
version, with absolute paths valid for this checkout; ``tools/setup-agents.sh`` writes it to
``.venv-harbor/registry.json`` (ignored by git, like the paths in it), and ``tools/harbor`` passes it
to Harbor (``--registry-path``) with the job folder under ``results/`` and LiteLLM's local cost map.

Examples
--------
>>> import tempfile, pathlib
>>> root = pathlib.Path(tempfile.mkdtemp())
>>> for name, harbor_name in (("mine", "westbench/mine"), ("foreign", "someone/else")):
...     (root / name).mkdir()
...     _ = (root / name / "task.toml").write_text(f'[task]\\nname = "{harbor_name}"\\n')
>>> [spec] = registry(root, version="9.9")
>>> spec["name"], spec["version"], [task["name"] for task in spec["tasks"]]
('westbench', '9.9', ['westbench/mine'])
>>> pathlib.Path(spec["tasks"][0]["path"]).is_absolute()
True
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from westbench.agents.tasks import discover_tasks

DATASET = "westbench"


def version() -> str:
    """The package's version: the dataset's version."""
    from westbench import __version__

    return __version__


def registry(tasks_dir: str | Path, version: str | None = None, name: str = DATASET) -> list[dict]:
    """Harbor's registry (a list with one dataset spec) of the suite's own tasks under ``tasks_dir``."""
    tasks = [task for task in discover_tasks(tasks_dir) if task.shipped]
    return [
        {
            "name": name,
            "version": version or globals()["version"](),
            "description": f"westbench's agent benchmark: {len(tasks)} containerized MD tasks (Harbor format) with "
            "deterministic verifiers",
            "tasks": [{"name": task.harbor_name, "path": str(task.path.resolve())} for task in tasks],
            "metrics": [],
        }
    ]


def write_registry(tasks_dir: str | Path, out: str | Path, version: str | None = None) -> Path:
    """Write :func:`registry` to ``out`` (a file, or a folder that gets ``registry.json``)."""
    out = Path(out)
    if out.is_dir():
        out = out / "registry.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(registry(tasks_dir, version), indent=1) + "\n")
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Write the Harbor registry of westbench's task suite.")
    parser.add_argument("--tasks", default="tasks", help="the tasks folder (agents.tasks_dir)")
    parser.add_argument("--out", default=".venv-harbor/registry.json", help="registry file to write")
    args = parser.parse_args(argv)
    path = write_registry(args.tasks, args.out)
    spec = json.loads(path.read_text())[0]
    print(f"{path}: dataset {spec['name']}@{spec['version']}, {len(spec['tasks'])} tasks")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
