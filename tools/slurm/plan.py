"""The cluster plan before anything is submitted, and the measured basis its requests come from.

    .venv/bin/python tools/slurm/plan.py summary --profile profiles/slurm --configfile config/paper.yaml \\
        --config structures_dir=../shared/structures [--markdown plan.md] [--dot plan.dot]
    .venv/bin/python tools/slurm/plan.py measure --results /path/to/finished/run   # writes profiles/slurm/measured.json
    .venv/bin/python tools/slurm/plan.py table                                      # docs/cluster.md's job table

``summary`` builds the DAG Snakemake would submit (the profile's groups, group components, resources and local
rules, as `snakemake --profile ...` reads them; nothing is submitted, no conda needed) and prints: sbatch
submissions, GPU-hours and CPU-hours requested against the measured estimate (westbench.plan.requests, no margin),
peak concurrent GPUs (the profile's `jobs` cap on allocations at once), the largest and longest allocations, the
disk the outputs need, and the flags an admin would raise. ``--dot`` writes the rule graph annotated with each rule's
jobs, allocations and requests (render: `dot -Tsvg`), the DAG report for admins. Extra arguments after the options
go to Snakemake (targets, --config, --resources gpu_slots=N, --group-components ...). Exit status 1 when the
profile check (rules/cluster.smk) fails.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

#: Allocations longer than this (hours) are flagged: most GPU partitions cap jobs at 24-48 h, and fair-share
#: schedulers start shorter jobs sooner.
LONG_ALLOCATION_H = 24
#: More submissions than this are flagged (the issue's goal for the paper config: <= 500).
MANY_SUBMISSIONS = 500
#: A job sized more than this many times beyond the measured run's job, with no rate measured at scale, is flagged.
EXTRAPOLATION_FLAG = 100


def build_dag(argv: list[str]):
    """(workflow, args) with the DAG of ``snakemake <argv>`` built as the slurm executor would submit it."""
    from snakemake import cli
    from snakemake.settings.types import ExecutionSettings, GroupSettings
    from snakemake.workflow import Workflow
    from snakemake_interface_executor_plugins.registry import ExecutorPluginRegistry

    captured = {}

    def capture(self):
        args = captured["args"]
        self.execution_settings = ExecutionSettings()
        self.group_settings = GroupSettings(
            group_components=args.group_components or {},
            overwrite_groups=args.groups or {},
            local_groupid=args.local_groupid,
        )
        # Group resources and local rules as for a submission (not as for a local run).
        self._executor_plugin = ExecutorPluginRegistry().get_plugin(args.executor or "slurm")
        self._prepare_dag(forceall=False, ignore_incomplete=True, lock_warn_only=True)
        self._build_dag()
        self.dag.update_groups()
        captured["workflow"] = self

    original = Workflow.printdag
    Workflow.printdag = capture
    try:
        parser, args = cli.parse_args([*argv, "--dag", "dot"])
        captured["args"] = args
        cli.args_to_api(args, parser)
    finally:
        Workflow.printdag = original
    if "workflow" not in captured:
        raise SystemExit("snakemake stopped before building the DAG (see the error above)")
    return captured["workflow"], captured["args"]


def _gpus(resources) -> int:
    gpus = resources.get("gpu") or 0
    gres = str(resources.get("gres") or "")
    match = re.match(r"gpu(?::[\w.]+)?(?::(\d+))?$", gres)
    if match:
        gpus = max(gpus, int(match.group(1) or 1))
    return int(gpus)


def _cpus(resources, threads) -> int:
    return int(resources.get("cpus_per_task") or threads or 1)


def plan_summary(workflow, args, cluster) -> dict:
    """Submissions, their requests and the measured estimate, from a built DAG."""
    dag = workflow.dag
    allocations, estimate = {}, defaultdict(float)
    per_rule = defaultdict(lambda: {"jobs": 0, "allocations": set(), "runtime": 0, "mem_mb": 0, "gpu": 0, "cpus": 0})
    local_jobs = Counter()
    disk_mb = 0.0
    extrapolated = {}
    cut_short = []  # (rule, wildcards, hours needed) of WE runs we.max_wallclock_s stops before their last iteration
    for job in dag.needrun_jobs():
        rule = job.rule.name
        if job.rule.norun:
            continue
        group = dag._group.get(job)
        if group is None and workflow.is_local(job.rule):
            local_jobs[rule] += 1
            continue
        unit = group if group is not None else job
        allocations[id(unit)] = unit
        info = per_rule[rule]
        info["jobs"] += 1
        info["allocations"].add(id(unit))
        res = job.resources
        info["runtime"] = max(info["runtime"], res.get("runtime") or 0)
        info["mem_mb"] = max(info["mem_mb"], res.get("mem_mb") or 0)
        info["gpu"] = max(info["gpu"], _gpus(res))
        info["cpus"] = max(info["cpus"], _cpus(res, job.threads))
        wildcards = dict(job.wildcards_dict)
        if cluster.requests.has_basis(rule):
            need = cluster.requests.estimate(rule, wildcards)
            share = 1.0 / max(1, res.get("gpu_slots") or 1) if res.get("gpu_slots") else 1.0
            # Expected device hours: a GPU job's measured time alone on its GPU (k jobs sharing one GPU take k times
            # as long each, and one k-th of it); CPU hours: its time x its cores.
            del share
            if _gpus(res) or res.get("gpu_slots"):
                estimate["gpu_h"] += need.seconds / 3600
            else:
                estimate["cpu_h"] += need.seconds * _cpus(res, job.threads) / 3600
            if need.extrapolation > EXTRAPOLATION_FLAG:
                extrapolated[rule] = max(extrapolated.get(rule, 0), need.extrapolation)
            if need.uncapped_seconds is not None:
                cut_short.append(need.uncapped_seconds / 3600)
            disk_mb += need.disk_mb
    rows = []
    for unit in allocations.values():
        res = unit.resources
        runtime = int(res.get("runtime") or 0)
        jobs = len(unit.jobs) if hasattr(unit, "jobs") else 1
        rows.append(
            {
                "name": unit.groupid if hasattr(unit, "groupid") else unit.rule.name,
                "jobs": jobs,
                "gpus": _gpus(res),
                "cpus": _cpus(res, getattr(unit, "threads", 1)),
                "mem_mb": int(res.get("mem_mb") or 0),
                "runtime_min": runtime,
                "partition": res.get("slurm_partition"),
            }
        )
    requested_gpu_h = sum(r["gpus"] * r["runtime_min"] / 60 for r in rows)
    requested_cpu_h = sum(r["cpus"] * r["runtime_min"] / 60 for r in rows if not r["gpus"])
    jobs_cap = int(getattr(args, "jobs", None) or 0) or len(rows)
    by_gpu = sorted((r["gpus"] for r in rows), reverse=True)
    flags = []
    if len(rows) > MANY_SUBMISSIONS:
        flags.append(f"{len(rows)} sbatch submissions (more than {MANY_SUBMISSIONS}): raise group-components")
    long = [r for r in rows if r["runtime_min"] > LONG_ALLOCATION_H * 60]
    if long:
        flags.append(
            f"{len(long)} allocations longer than {LONG_ALLOCATION_H} h "
            f"(longest {max(r['runtime_min'] for r in long) / 60:.1f} h): "
            "check the GPU partition's MaxTime (`sinfo -o '%P %l'`)"
        )
    if cut_short:
        flags.append(
            f"{len(cut_short)} WE runs need more than we.max_wallclock_s (up to {max(cut_short):,.1f} h): each stops "
            "there with the iterations it finished, fewer than we.max_iterations (raise the cap within the "
            "partition's MaxTime, or lower we.max_iterations)"
        )
    if estimate["gpu_h"] and requested_gpu_h > 1.5 * estimate["gpu_h"]:
        flags.append(
            f"GPU-hours requested {requested_gpu_h:,.0f} are more than 1.5x the measured estimate "
            f"{estimate['gpu_h']:,.0f}"
        )
    cpu_on_gpu = [r for r in rows if r["partition"] == "gpu" and not r["gpus"]]
    if cpu_on_gpu:
        flags.append(f"{len(cpu_on_gpu)} allocations on a GPU partition ask for no GPU")
    if extrapolated:
        flags.append(
            "sized by scaling the measured run linearly, far beyond it (no rate measured at scale): "
            + ", ".join(f"{rule} x{factor:,.0f}" for rule, factor in sorted(extrapolated.items()))
            + " (refresh the basis from a finished protein: tools/slurm/plan.py measure)"
        )
    unmeasured = sorted(rule for rule in per_rule if not cluster.requests.has_basis(rule))
    if unmeasured:
        flags.append(f"rules sized by the profile, not by a measurement: {', '.join(unmeasured)}")
    return {
        "submissions": len(rows),
        "jobs": sum(r["jobs"] for r in rows),
        "local_jobs": dict(local_jobs),
        "requested_gpu_h": requested_gpu_h,
        "expected_gpu_h": estimate["gpu_h"],
        "requested_cpu_h": requested_cpu_h,
        "expected_cpu_h": estimate["cpu_h"],
        "peak_gpus": sum(by_gpu[:jobs_cap]),
        "jobs_cap": jobs_cap,
        "largest": _first_three(rows, lambda r: (-r["gpus"], -r["mem_mb"], -r["cpus"], -r["runtime_min"], r["name"])),
        "longest": _first_three(rows, lambda r: (-r["runtime_min"], -r["gpus"], -r["mem_mb"], r["name"])),
        "disk_gb": disk_mb / 1000,
        "gpu_slots": cluster.gpu_slots,
        "margin": dict(__import__("westbench.plan.requests", fromlist=["MARGIN"]).MARGIN),
        "rules": {rule: {**info, "allocations": len(info["allocations"])} for rule, info in sorted(per_rule.items())},
        "flags": flags,
    }


def _first_three(rows: list, key) -> list:
    """The first three allocations by ``key``, one per name (a group's allocations are alike); ties broken by size,
    then name: the DAG lists jobs in no fixed order, and the doc's table must not move between runs."""
    chosen: dict = {}
    for row in sorted(rows, key=key):
        chosen.setdefault(row["name"], row)
    return list(chosen.values())[:3]


def _row(r) -> str:
    return (
        f"{r['name']} ({r['jobs']} job{'s' if r['jobs'] > 1 else ''}): {r['gpus']} GPU, {r['cpus']} CPU, "
        f"{r['mem_mb'] / 1000:.0f} GB, {r['runtime_min'] / 60:.1f} h"
    )


def markdown(summary: dict, title: str) -> str:
    s = summary
    lines = [
        f"# Cluster plan: {title}",
        "",
        f"- sbatch submissions: **{s['submissions']}** ({s['jobs']} jobs; {sum(s['local_jobs'].values())} jobs on the "
        "submitting host: " + (", ".join(f"{k} {v}" for k, v in sorted(s["local_jobs"].items())) or "none") + ")",
        f"- GPU-hours requested **{s['requested_gpu_h']:,.0f}**, expected {s['expected_gpu_h']:,.0f} "
        f"(ratio {s['requested_gpu_h'] / max(s['expected_gpu_h'], 1e-9):.2f}; margin {s['margin']['runtime']}x)",
        f"- CPU-hours requested **{s['requested_cpu_h']:,.0f}**, expected {s['expected_cpu_h']:,.0f} (allocations "
        "without a GPU; a GPU allocation's cores come with its GPU-hours)",
        f"- peak concurrent GPUs: **{s['peak_gpus']}** (at most {s['jobs_cap']} allocations at once: the "
        "profile's `jobs`)",
        f"- GPU sharing: {s['gpu_slots']} simulation(s) per GPU in packed groups",
        f"- disk for the outputs (shared file system): about {s['disk_gb']:,.0f} GB",
        "- largest allocations: " + "; ".join(_row(r) for r in s["largest"]),
        "- longest allocations: " + "; ".join(_row(r) for r in s["longest"]),
        "- admin flags: " + ("; ".join(s["flags"]) if s["flags"] else "none"),
        "",
        "| rule | jobs | allocations | GPU | CPU | mem (GB) | runtime per job (h; packed: gpu_slots x alone) |",
        "|---|---|---|---|---|---|---|",
    ]
    for rule, info in s["rules"].items():
        lines.append(
            f"| `{rule}` | {info['jobs']:,} | {info['allocations']:,} | {info['gpu']} | {info['cpus']} | "
            f"{info['mem_mb'] / 1000:.1f} | {info['runtime'] / 60:.2f} |"
        )
    return "\n".join(lines) + "\n"


def rule_dot(workflow, summary: dict, title: str) -> str:
    """The rule graph with each submitted rule's jobs, allocations and requests, and the summary as its label."""
    dot = workflow.dag.rule_dot()
    for rule, info in summary["rules"].items():
        label = (
            f"{rule}\\n{info['jobs']:,} jobs in {info['allocations']:,} allocations\\n"
            f"{info['gpu']} GPU, {info['mem_mb'] / 1000:.1f} GB, {info['runtime'] / 60:.2f} h per job"
        )
        dot = re.sub(rf'label = "{rule}"', f'label = "{label}"', dot)
    head = (
        f"{title}: {summary['submissions']} submissions, GPU-h requested {summary['requested_gpu_h']:,.0f} "
        f"(expected {summary['expected_gpu_h']:,.0f}), peak {summary['peak_gpus']} GPUs"
    )
    return dot.replace("digraph snakemake_dag {", f'digraph snakemake_dag {{\n    label="{head}"; labelloc=t;', 1)


def cmd_summary(options, rest) -> int:
    start = time.perf_counter()
    argv = ["--profile", options.profile, *(["--configfile", options.configfile] if options.configfile else []), *rest]
    try:
        workflow, args = build_dag(argv)
    except SystemExit as exc:
        print(f"plan: {exc}", file=sys.stderr)
        return 1
    cluster = workflow.globals["CLUSTER"]
    summary = plan_summary(workflow, args, cluster)
    title = f"{options.configfile or 'embedded default'} with {options.profile}"
    text = markdown(summary, title)
    print(text)
    print(f"(planned in {time.perf_counter() - start:.1f} s)")
    if options.markdown:
        Path(options.markdown).write_text(text)
    if options.json:
        Path(options.json).write_text(json.dumps(summary, indent=1, default=str) + "\n")
    if options.dot:
        Path(options.dot).write_text(rule_dot(workflow, summary, title))
    return 0


def cmd_measure(options, rest) -> int:
    """Per rule: the slowest job's wall seconds, its units, and the rule's peak memory, from benchmark files."""
    import pandas as pd
    from snakemake.io import regex_from_filepattern

    from westbench.config import load_schema, validate_config
    from westbench.plan import requests as wb_requests

    results = Path(options.results).resolve()
    root = results.parent
    config = validate_config(
        __import__("yaml").safe_load(Path(options.configfile).read_text()), load_schema(REPO / "config" / "schema.yaml")
    )
    workflow, _ = build_dag(["--configfile", options.configfile, "--executor", "slurm", "--jobs", "1"])
    patterns = {rule.name: str(rule.benchmark) for rule in workflow.rules if rule.benchmark}
    regexes = {rule: re.compile(regex_from_filepattern(pattern)) for rule, pattern in patterns.items()}
    proteins = [p["id"] for p in config["proteins"]]
    sizes = wb_requests.Sizes(config, wb_requests.prepared_atoms(results, proteins))
    jobs = defaultdict(list)
    for path in sorted(results.rglob("benchmarks/*.tsv")):
        relative = str(path.relative_to(root))
        matches = [(len(patterns[r]), r, m) for r, rx in regexes.items() if (m := rx.fullmatch(relative))]
        if not matches:
            continue
        _, rule, match = max(matches, key=lambda item: item[0])
        row = pd.read_csv(path, sep="\t").iloc[-1]
        wildcards = match.groupdict()
        if rule.startswith("calibration_"):
            wildcards = {**wildcards, "protein": wildcards.get("protein", config["calibration"]["protein"])}
        kind = wb_requests.variant(rule, wildcards)
        jobs[f"{rule}:{kind}" if kind else rule].append(
            {
                "seconds": float(row["s"]),
                "rss_mb": float(row["max_rss"]),
                "units": wb_requests.units(rule, sizes, wildcards),
            }
        )
    rules = {}
    for rule, rows in sorted(jobs.items()):
        slowest = max(rows, key=lambda r: r["seconds"] / max(r["units"], 1e-12))
        rules[rule] = {
            "jobs": len(rows),
            "seconds": round(slowest["seconds"], 2),
            "units": slowest["units"],
            "rss_mb": round(max(r["rss_mb"] for r in rows), 1),
        }
    basis = {"source": options.source or f"benchmark files of {results}", "rules": rules, "rates": rates(rules)}
    Path(options.out).write_text(json.dumps(basis, indent=1) + "\n")
    print(f"{options.out}: {len(rules)} rules from {sum(r['jobs'] for r in rules.values())} benchmark files")
    return 0


#: GPU speeds measured on one NVIDIA H200 (2026-11-30, commit ec6f702, OpenMM 8.6.1 CUDA, mixed precision, 4 fs;
#: torch 2.11 CUDA 13): ../shared/notes/gpu.md, quoted in docs/cluster.md. Not in benchmarks/results/ yet
#: (benchmarks/gpu_session.sh records them on the next GPU session); each rate says which figure it uses.
H200 = {
    "explicit_chignolin_s_per_step": 0.29e-3,  # one context, 7,753 atoms
    "explicit_chignolin_atoms": 7753,
    "implicit_chignolin_s_per_step": 0.095e-3,  # one context, 138 atoms
    "implicit_chignolin_atoms": 138,
    "we_implicit_segments_per_hour": 11029,  # whole run_we, serial, 1000-step segments, 138 atoms
    "cg_step_s_batch_1200": 13.6e-3,  # engine.forces, eager, published network, 10 beads
}


def rates(rules: dict) -> dict:
    """Per-unit rates measured beyond the basis run (GPU speeds, large TICA and metric benchmarks), with sources."""
    bench = REPO / "benchmarks" / "results"
    tica = json.loads((bench / "tica_large.json").read_text())
    suite = json.loads((bench / "metrics_suite.json").read_text())
    gpu = "one H200 (../shared/notes/gpu.md, 2026-11-30, commit ec6f702)"
    startup = {
        rule: rules[rule]["seconds"] for rule in ("groundtruth_run", "groundtruth_starts", "we_run") if rule in rules
    }
    return {
        "groundtruth_run": [
            {
                "platforms": ["CUDA"],
                "startup_s": startup.get("groundtruth_run", 60),
                "s_per_unit": H200["explicit_chignolin_s_per_step"] / H200["explicit_chignolin_atoms"],
                "source": f"{gpu}: explicit chignolin 0.29 ms/step at 7,753 atoms, per atom-step; start-up: the "
                "measured run's whole CPU job",
            }
        ],
        "groundtruth_starts": [
            {
                "platforms": ["CUDA"],
                "startup_s": startup.get("groundtruth_starts", 60),
                "s_per_unit": H200["implicit_chignolin_s_per_step"] / H200["implicit_chignolin_atoms"],
                "source": f"{gpu}: implicit chignolin 0.095 ms/step at 138 atoms, per atom-step",
            }
        ],
        "we_run": [
            {
                "platforms": ["CUDA"],
                "engines": ["implicit", "explicit"],
                "startup_s": startup.get("we_run", 60),
                "s_per_unit": 3600 / H200["we_implicit_segments_per_hour"] / (1000 * H200["implicit_chignolin_atoms"]),
                "source": f"{gpu}: whole run_we, 11,029 implicit segments of 1,000 steps per GPU-hour, per "
                "walker-step-atom",
            },
            {
                "platforms": ["CUDA"],
                "engines": ["cg_*"],
                "startup_s": startup.get("we_run", 60),
                "s_per_unit": H200["cg_step_s_batch_1200"] / 10,
                "source": f"{gpu}: published CG network, 13.6 ms per batched step up to 1,200 walkers at 10 beads, per "
                "step-bead",
            },
        ],
        "cg_train": [
            {
                "platforms": ["CUDA"],
                "startup_s": 60,
                "s_per_unit": 3 * H200["cg_step_s_batch_1200"] / 32,
                "source": f"{gpu}: derived, not a measured training run: forward + backward = 3 x the 13.6 ms batched "
                "force call, per frame of a 32-frame batch and epoch",
            }
        ],
        "fit_tica": [
            {
                "startup_s": 2.0,
                "s_per_unit": tica["with_writing_s"] / (tica["frames"] * tica["features"]["n_features"]),
                "source": f"benchmarks/results/tica_large.json: {tica['frames']:,} frames x "
                f"{tica['features']['n_features']:,} features in {tica['with_writing_s']} s (2 cores)",
            }
        ],
        "metric_suite": [
            {
                "startup_s": 3.0,
                "s_per_unit": suite["metrics_rule_s"]
                / ((suite["model_frames"] + suite["groundtruth_frames"]) * suite["beads"]),
                "source": f"benchmarks/results/metrics_suite.json: {suite['model_frames']:,} + "
                f"{suite['groundtruth_frames']:,} frames of {suite['beads']} beads in {suite['metrics_rule_s']} s",
            }
        ],
        "macrostates": [
            {
                "startup_s": 1.0,
                "s_per_unit": suite["macrostates_rule_s"] / suite["groundtruth_frames"],
                "source": f"benchmarks/results/metrics_suite.json: macrostates of {suite['groundtruth_frames']:,} "
                f"frames in {suite['macrostates_rule_s']} s",
            }
        ],
    }


TABLE_BEGIN = "<!-- cluster-plan:begin (generated by `.venv/bin/python tools/slurm/plan.py table`; do not edit) -->"
TABLE_END = "<!-- cluster-plan:end -->"


def cmd_table(options, rest) -> int:
    """Rewrite docs/cluster.md's generated block with the paper config's plan through the shipped profile."""
    argv = [
        "--profile",
        options.profile,
        "--configfile",
        str(REPO / "config" / "paper.yaml"),
        "--config",
        f"structures_dir={options.structures}",
        "--default-resources",
        "slurm_account=plan",
        "slurm_partition=cpu",
        "cpus_per_task=1",
        "--directory",
        tempfile.mkdtemp(prefix="westbench-plan-"),  # a fresh run: every job planned
    ]
    workflow, args = build_dag(argv)
    summary = plan_summary(workflow, args, workflow.globals["CLUSTER"])
    text = markdown(summary, "config/paper.yaml with profiles/slurm").split("\n", 2)[2]
    doc = REPO / "docs" / "cluster.md"
    content = doc.read_text()
    if TABLE_BEGIN not in content:
        raise SystemExit(f"{doc} has no {TABLE_BEGIN!r} block")
    head, tail = content.split(TABLE_BEGIN, 1)
    doc.write_text(head + TABLE_BEGIN + "\n" + text + TABLE_END + tail.split(TABLE_END, 1)[1])
    print(f"{doc}: job table rewritten ({summary['submissions']} submissions)")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], allow_abbrev=False)
    sub = parser.add_subparsers(dest="command", required=True)
    summary = sub.add_parser(
        "summary", allow_abbrev=False, help="the plan of a config through a profile, before submission"
    )
    summary.add_argument("--profile", default=str(REPO / "profiles" / "slurm"))
    summary.add_argument("--configfile")
    summary.add_argument("--markdown")
    summary.add_argument("--json")
    summary.add_argument("--dot")
    measure = sub.add_parser(
        "measure", allow_abbrev=False, help="write the measured basis from a finished run's benchmark files"
    )
    measure.add_argument("--results", required=True)
    measure.add_argument("--configfile", default=str(REPO / "config" / "config.yaml"))
    measure.add_argument("--out", default=str(REPO / "profiles" / "slurm" / "measured.json"))
    measure.add_argument("--source")
    table = sub.add_parser("table", allow_abbrev=False, help="docs/cluster.md's job table from the paper config's plan")
    table.add_argument("--profile", default=str(REPO / "profiles" / "slurm"))
    table.add_argument("--structures", default=str(REPO.parent / "shared" / "structures"))
    options, rest = parser.parse_known_args(argv)
    return {"summary": cmd_summary, "measure": cmd_measure, "table": cmd_table}[options.command](options, rest)


if __name__ == "__main__":
    sys.exit(main())
