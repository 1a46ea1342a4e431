"""The suite as a Harbor dataset: the registry lists westbench's own tasks at the package's version."""

import json

from westbench import __version__
from westbench.agents.dataset import main, registry
from westbench.agents.tasks import discover_tasks

from ...conftest import REPO


def test_the_registry_lists_every_shipped_task_with_a_path_valid_for_this_checkout(tmp_path):
    [spec] = registry(REPO / "tasks")
    shipped = sorted(t.harbor_name for t in discover_tasks(REPO / "tasks") if t.shipped)
    assert spec["name"] == "westbench" and spec["version"] == __version__
    assert sorted(t["name"] for t in spec["tasks"]) == shipped and len(shipped) >= 36
    for task in spec["tasks"]:
        assert (REPO / "tasks" / task["path"].rsplit("/", 1)[-1] / "task.toml").is_file() and task["path"].startswith(
            "/"
        )
    assert f"{len(shipped)} containerized MD tasks" in spec["description"]
    assert main(["--tasks", str(REPO / "tasks"), "--out", str(tmp_path / "registry.json")]) == 0
    assert json.loads((tmp_path / "registry.json").read_text()) == [spec]
