"""A small Harbor task folder (task.toml, Dockerfile, solution, tests), loaded as the mutation run sees it."""

from westbench.agents.tasks import load_task


def write_task(root, artifacts=("/app/output", "/app/summary.md"), editable=("/app/config.yaml",), workdir="/srv"):
    """The task folder ``root`` with the given artifacts, editable files and Dockerfile WORKDIR; its TaskInfo."""
    root.mkdir(parents=True, exist_ok=True)
    listed = ", ".join(f'"{a}"' for a in artifacts)
    editing = ", ".join(f'"{e}"' for e in editable)
    (root / "task.toml").write_text(
        f'schema_version = "1.4"\nartifacts = [{listed}]\n[task]\nname = "westbench/{root.name}"\n'
        f'[metadata]\ndifficulty = "easy"\ncategory = "analysis"\neditable = [{editing}]\n'
        "[verifier]\ntimeout_sec = 77\n"
    )
    (root / "environment").mkdir(exist_ok=True)
    (root / "environment" / "Dockerfile").write_text(f"FROM ubuntu:24.04\nWORKDIR {workdir}\n")
    (root / "solution").mkdir(exist_ok=True)
    (root / "solution" / "solve.sh").write_text("echo 1 > /app/output/a.txt\n")
    (root / "tests").mkdir(exist_ok=True)
    (root / "tests" / "test.sh").write_text("exit 0\n")
    (root / "instruction.md").write_text("Write /app/output/a.txt.")
    return load_task(root)
