"""Measure one of the README's numbers and record it under docs/measured/ (westbench.report.measured), or rewrite the
README's generated blocks from those records.

    .venv/bin/python tools/measure.py default_run   # `bash tools/run.sh` on a fresh clone of HEAD
    .venv/bin/python tools/measure.py tests_fast    # `bash tools/test.sh --fast` on a fresh clone
    .venv/bin/python tools/measure.py tests         # `CI=true bash .ci/run` on a fresh clone (the whole suite)
    .venv/bin/python tools/measure.py agents        # `bash tools/run-agents.sh` on a fresh clone
    .venv/bin/python tools/measure.py readme        # the README's generated blocks from docs/measured/
    .venv/bin/python tools/measure.py readme --check  # exit 1 when they differ (as tests/unit/report/test_measured.py)

A measurement runs in a fresh clone of the committed HEAD (uncommitted changes are not measured), beside a link to
the ../shared folder when this checkout has one; ``--here`` runs in this checkout instead. Commit the record with
the README it renders into.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from datetime import date
from pathlib import Path

from westbench.report import measured

ROOT = Path(__file__).resolve().parents[1]

COMMANDS = {
    "default_run": ["bash", "tools/run.sh"],
    "tests_fast": ["bash", "tools/test.sh", "--fast"],
    "tests": ["bash", ".ci/run"],
    "agents": ["bash", "tools/run-agents.sh"],
}
SHOWN = {
    "default_run": "bash tools/run.sh",
    "tests_fast": "bash tools/test.sh --fast",
    "tests": "CI=true bash .ci/run",
    "agents": "bash tools/run-agents.sh",
}


def commit() -> str:
    return subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()


def fresh_clone(scratch: Path) -> Path:
    """A clone of HEAD in ``scratch``, with ``shared`` beside it when this checkout has one."""
    clone = scratch / "westbench"
    subprocess.run(["git", "clone", "--quiet", "--no-hardlinks", str(ROOT), str(clone)], check=True)
    shared = ROOT.parent / "shared"
    if shared.is_dir():
        (scratch / "shared").symlink_to(shared)
    return clone


def run(name: str, where: Path) -> dict:
    """Time the command of ``name`` in ``where``; its output goes to the terminal and is kept for its counts."""
    record = {
        "command": SHOWN[name],
        "commit": commit(),
        "date": date.today().isoformat(),
        "host": measured.host(),
        "clone": "this checkout" if where == ROOT else "a fresh clone of HEAD",
    }
    env = {**__import__("os").environ, **({"CI": "true"} if name == "tests" else {})}
    start = time.monotonic()
    process = subprocess.Popen(
        COMMANDS[name], cwd=where, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env
    )
    # The machine's load while the command runs (others' jobs lengthen its wall time): sampled every 15 s.
    loads, done = [], threading.Event()
    sampler = threading.Thread(target=measured.sample_load, args=(loads, done, 15.0), daemon=True)
    sampler.start()
    output = []
    for line in process.stdout:
        sys.stdout.write(line)
        output.append(line)
    returncode = process.wait()
    record["wall_s"] = round(time.monotonic() - start, 1)
    done.set()
    sampler.join()
    record["host"].update(measured.load_summary(loads))
    record["returncode"] = returncode
    if returncode != 0:
        raise SystemExit(f"[measure] {SHOWN[name]} failed (exit {returncode}); nothing recorded")
    text = "".join(output)
    if name == "default_run":
        record["dag"] = measured.dag_cost(where / "results")
        record["calibration"] = measured.calibration_summary(where / "results")
        for source in [
            where / "results" / "tables" / "calibration.csv",
            *sorted((where / "results" / "calibration").glob("*/calibration.json"))[:1],
        ]:
            shutil.copy(source, ROOT / measured.MEASURED_DIR / source.name)
    elif name in ("tests", "tests_fast"):
        record.update(measured.pytest_counts(text))
    elif name == "agents":
        record.update(measured.agents_summary(where / "results"))
    return record


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=[*measured.RECORDS, "readme"])
    parser.add_argument("--here", action="store_true", help="run in this checkout, not a fresh clone")
    parser.add_argument("--check", action="store_true", help="readme: exit 1 when its blocks are stale")
    args = parser.parse_args(argv)
    readme = ROOT / "README.md"
    folder = ROOT / measured.MEASURED_DIR
    if args.what == "readme":
        if args.check:
            stale = measured.stale_blocks(readme, folder)
            if stale:
                print(
                    f"[measure] README blocks out of date: {', '.join(stale)}; "
                    "run .venv/bin/python tools/measure.py readme"
                )
                return 1
            return 0
        readme.write_text(measured.render_readme(readme.read_text(), measured.blocks(folder)))
        print("[measure] README.md: measured and calibration blocks rewritten from docs/measured/")
        return 0
    folder.mkdir(parents=True, exist_ok=True)
    if args.here:
        record = run(args.what, ROOT)
    else:
        with tempfile.TemporaryDirectory(prefix="westbench-measure-") as scratch:
            record = run(args.what, fresh_clone(Path(scratch)))
    path = measured.write_record(record, args.what, folder)
    readme.write_text(measured.render_readme(readme.read_text(), measured.blocks(folder)))
    print(f"[measure] {path.relative_to(ROOT)} written and README.md updated: commit both")
    return 0


if __name__ == "__main__":
    sys.exit(main())
