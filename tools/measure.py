"""Measure one of the README's numbers and record it under docs/measured/ (westbench.report.measured), or rewrite the
README's generated blocks from those records.

    .venv/bin/python tools/measure.py default_run   # `bash tools/run.sh` on a fresh clone of HEAD
    .venv/bin/python tools/measure.py tests_fast    # `bash tools/test.sh --fast` on a fresh clone
    .venv/bin/python tools/measure.py tests         # `CI=true bash .ci/run` on a fresh clone (the whole suite)
    .venv/bin/python tools/measure.py agents        # `bash tools/run-agents.sh` on a fresh clone
    .venv/bin/python tools/measure.py calibration_seeds [--seeds 2024 7 11 3 31]
                                                    # the calibration study once per seed, one after another
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
    "calibration_seeds": (
        "snakemake --profile profiles/local calibration --cores 2 -d SEED_FOLDER --configfile config/config.yaml "
        "SEED.yaml (seed: N), once per seed"
    ),
}
#: The seeds of the calibration summary: the default run's (2024) and four more, each a whole study.
CALIBRATION_SEEDS = (2024, 7, 11, 3, 31)


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


def calibration_seeds(where: Path, seeds, scratch: Path) -> dict:
    """The calibration study of the embedded default once per seed (the seed its only change), one after another,
    each in its own folder under ``scratch``: the ``calibration_seeds`` record (:mod:`westbench.report.measured`)."""
    import os

    import yaml

    record = {
        "command": SHOWN["calibration_seeds"],
        "commit": commit(),
        "date": date.today().isoformat(),
        "host": measured.host(),
        "clone": "this checkout" if where == ROOT else "a fresh clone of HEAD",
        "seeds": [],
    }
    env = {**os.environ, "PYTHONPATH": str(where / "src")}  # the clone's code, not this checkout's editable install
    loads, done = [], threading.Event()
    sampler = threading.Thread(target=measured.sample_load, args=(loads, done, 15.0), daemon=True)
    sampler.start()
    start = time.monotonic()
    study = yaml.safe_load((where / "config" / "config.yaml").read_text())["calibration"].get("protein", "chignolin")
    for seed in seeds:
        folder = scratch / f"seed_{seed}"
        folder.mkdir(parents=True, exist_ok=True)
        overlay = folder / "seed.yaml"
        overlay.write_text(f"seed: {int(seed)}\n")
        command = [
            sys.executable, "-m", "snakemake", "--profile", "profiles/local", "calibration", "--cores", "2",
            "-s", str(where / "Snakefile"), "-d", str(folder),
            "--configfile", str(where / "config" / "config.yaml"), str(overlay),
        ]  # fmt: skip
        began = time.monotonic()
        returncode = subprocess.run(command, cwd=where, env=env).returncode
        if returncode != 0:
            done.set()
            raise SystemExit(f"[measure] the calibration study with seed {seed} failed (exit {returncode}): no record")
        wall = round(time.monotonic() - began, 1)
        record["seeds"].append(
            measured.calibration_seed_summary(folder / "results" / "calibration" / study, seed, wall)
        )
        print(f"[measure] seed {seed}: {wall:.0f} s", flush=True)
        # Each seed is recorded as it ends: a run stopped between seeds leaves the seeds it finished.
        partial = {**record, "wall_s": round(time.monotonic() - start, 1), "returncode": 0}
        measured.write_record(partial, "calibration_seeds", ROOT / measured.MEASURED_DIR)
    record["wall_s"] = round(time.monotonic() - start, 1)
    done.set()
    sampler.join()
    record["host"].update(measured.load_summary(loads))
    record["returncode"] = 0
    return record


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
        import yaml

        record["seed"] = yaml.safe_load((where / "config" / "config.yaml").read_text()).get("seed")
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
    parser.add_argument(
        "--seeds", type=int, nargs="+", default=list(CALIBRATION_SEEDS), help="calibration_seeds: the seeds"
    )
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
    with tempfile.TemporaryDirectory(prefix="westbench-measure-") as scratch:
        where = ROOT if args.here else fresh_clone(Path(scratch))
        if args.what == "calibration_seeds":
            record = calibration_seeds(where, args.seeds, Path(scratch) / "calibration")
        else:
            record = run(args.what, where)
    path = measured.write_record(record, args.what, folder)
    readme.write_text(measured.render_readme(readme.read_text(), measured.blocks(folder)))
    print(f"[measure] {path.relative_to(ROOT)} written and README.md updated: commit both")
    return 0


if __name__ == "__main__":
    sys.exit(main())
