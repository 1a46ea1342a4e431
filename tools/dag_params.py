"""Every job of a configuration's DAG, as Snakemake compares it between runs: params, input files, threads.

    .venv/bin/python tools/dag_params.py [--configfile FILE ...] [--config KEY=VALUE ...] [-d WORKDIR] [-o OUT.json]
    .venv/bin/python tools/dag_params.py --snapshot     rewrite tests/unit/plan/dag_snapshot.json

Snakemake reruns a finished job whose params (the ``repr`` of each value), set of input files or outputs
changed, or whose ``script:`` file is newer than its outputs (any edit of the script, as a checkout or merge
writes it). A refactoring of the input functions (rules/common.smk, :mod:`westbench.plan`) must leave all of
them as they were: dump the DAG before and after and compare the two files (``diff``).
tests/unit/plan/test_dag_snapshot.py compares the DAGs of :data:`SNAPSHOT_CONFIGS` with their committed digests
(:func:`snapshot`): a change it reports reruns those jobs on every finished run; when that is intended, rewrite
the snapshot with ``--snapshot`` and say so in the commit. The DAG is built as ``snakemake --forceall -n`` builds
it (no job runs, nothing is written but .snakemake/ in the working directory).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def job_record(job) -> dict:
    """One job as its rerun triggers see it (params: each value's repr, the text Snakemake stores)."""
    return {
        "rule": job.rule.name,
        "wildcards": dict(job.wildcards_dict),
        "params": {name: repr(value) for name, value in job.params.items()},
        "input": sorted(map(str, job.input)),
        "output": sorted(map(str, job.output)),
        "threads": job.threads,
        "resources": {key: job.resources[key] for key in ("gpu",) if key in job.resources.keys()},
        "priority": job.rule.priority if not callable(job.rule.priority) else "function",
    }


def job_script(job) -> str | None:
    """The ``script:`` file of a job's rule, relative to the repository (None for a rule without one)."""
    if not job.rule.script:
        return None
    return str((Path(job.rule.snakefile).parent / str(job.rule.script)).resolve().relative_to(REPO))


def dag_jobs(workdir: str | Path, configfiles=(), config: dict | None = None, targets=()) -> list[dict]:
    """The records of every job the DAG of ``targets`` (the default target without) holds, sorted."""
    from snakemake.api import SnakemakeApi
    from snakemake.settings.types import (
        ConfigSettings,
        DAGSettings,
        OutputSettings,
        ResourceSettings,
        StorageSettings,
        WorkflowSettings,
    )

    cwd = os.getcwd()
    try:
        with SnakemakeApi(OutputSettings(quiet={"all"})) as api:
            workflow_api = api.workflow(
                resource_settings=ResourceSettings(cores=2),
                config_settings=ConfigSettings(
                    configfiles=[Path(f).resolve() for f in configfiles], config=config or {}
                ),
                storage_settings=StorageSettings(),
                workflow_settings=WorkflowSettings(),
                snakefile=REPO / "Snakefile",
                workdir=Path(workdir),
            )
            dag_api = workflow_api.dag(DAGSettings(targets=set(targets), forceall=True))
            workflow = dag_api.workflow_api._workflow
            workflow._prepare_dag(forceall=True, ignore_incomplete=True, lock_warn_only=True)
            workflow._build_dag()
            records = [{**job_record(job), "script": job_script(job)} for job in workflow.dag.jobs]
    finally:
        os.chdir(cwd)
    return sorted(records, key=lambda r: (r["rule"], sorted(r["wildcards"].items())))


#: The configurations whose DAGs tests/unit/plan/test_dag_snapshot.py guards: the embedded default, and a variant
#: reaching the branches the default leaves out (every engine in replicas, a coverage target, one CG model over two
#: proteins, GPU platforms, no calibration study). Each: --config overrides of the embedded default.
SNAPSHOT_CONFIGS = {
    "default": {},
    "variant": {
        "proteins": [
            {"id": "chignolin", "name": "Chignolin", "pdb_id": "1UAO", "sequence": "GYDPETGTWG", "source": "sequence"},
            {"id": "other", "name": "Other", "sequence": "GYDPETGTWG", "source": "sequence", "n_starts": 2},
        ],
        "platform": {"name": "CUDA"},
        "we": {"replicas": 2, "replicas_by_engine": {"explicit": 1}, "coverage_target": 0.5},
        "cg": {"scope": "all", "device": "cuda"},
        "calibration": {"enabled": False},
    },
}
#: Where the snapshot lives.
SNAPSHOT = REPO / "tests" / "unit" / "plan" / "dag_snapshot.json"


def digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def job_id(record: dict) -> str:
    """``rule[wildcard=value,...]``: a job's name in the snapshot."""
    return f"{record['rule']}[{','.join(f'{k}={v}' for k, v in sorted(record['wildcards'].items()))}]"


def snapshot(records: list[dict]) -> dict:
    """What reruns a finished job, as digests: each job's params (by name), its input and output files, and each
    rule's script text."""
    jobs = {
        job_id(r): {
            "params": {name: digest(text) for name, text in r["params"].items()},
            "input": digest("\n".join(r["input"])),
            "output": digest("\n".join(r["output"])),
        }
        for r in records
    }
    scripts = {r["script"] for r in records if r["script"]}
    return {"jobs": jobs, "scripts": {path: digest((REPO / path).read_text()) for path in sorted(scripts)}}


def snapshots(workdir: str | Path) -> dict:
    """{configuration: its snapshot} of :data:`SNAPSHOT_CONFIGS`, each DAG built in a folder under ``workdir``."""
    found = {}
    for name, config in SNAPSHOT_CONFIGS.items():
        folder = Path(workdir) / name
        folder.mkdir(parents=True, exist_ok=True)
        found[name] = snapshot(dag_jobs(folder, config=config))
    return found


def parse_config(items: list[str]) -> dict:
    """KEY=VALUE pairs as --config reads them (values parsed as YAML)."""
    import yaml

    return {key: yaml.safe_load(value) for key, value in (item.split("=", 1) for item in items)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--configfile", nargs="*", default=[])
    parser.add_argument("--config", nargs="*", default=[])
    parser.add_argument("-d", "--directory", default=".")
    parser.add_argument("-o", "--output")
    parser.add_argument("--snapshot", action="store_true", help=f"rewrite {SNAPSHOT.relative_to(REPO)}")
    parser.add_argument("targets", nargs="*")
    args = parser.parse_args(argv)
    if args.snapshot:
        import tempfile

        with tempfile.TemporaryDirectory() as workdir:
            SNAPSHOT.write_text(json.dumps(snapshots(workdir), indent=1, sort_keys=True) + "\n")
        print(f"wrote {SNAPSHOT.relative_to(REPO)}")
        return 0
    text = json.dumps(
        dag_jobs(args.directory, args.configfile, parse_config(args.config), args.targets), indent=1, sort_keys=True
    )
    if args.output:
        Path(args.output).write_text(text + "\n")
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
