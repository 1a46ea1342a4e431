"""WE throughput of every engine on whatever platform is there (CPU here, CUDA on a GPU machine).

Needs only a finished default run (`bash tools/run.sh`: the prepared chignolin systems, its TICA
model and a trained CG model). Drives the engines through their public interface and `run_we`, at
the published segment settings unless told otherwise (1000 steps of 4 fs, a frame every 100 steps,
7 MAB bins per TIC, 3 walkers per bin), and writes benchmarks/results/we_throughput_<platform>.json:

- implicit chignolin: segments per hour of the engine alone (one batch of ``--implicit-walkers``)
  and of a whole ``run_we`` (``--we-iterations``), and the share of ``run_we`` wall time spent
  outside the engine (and outside OpenMM's ``integrator.step``);
- explicit chignolin: the same (``--explicit-walkers``, ``--explicit-we-iterations``; 0 skips), and the
  engine's time per segment over the bare stepping time;
- CG (published architecture: embedding 128, 4 interaction layers, 20 RBF; the default run's prior,
  an untrained network scaled down so dynamics stay stable): segments per second at 1, 120 and 1,200
  walkers (``--cg-steps`` timed steps, scaled to the segment length);
- CG ``run_we`` (``--cg-we-iterations``) with the published architecture;
- a ``run_we`` of implicit chignolin under the ``processes`` work manager (``--processes-workers``);
- the per-iteration cost of ``run_we`` around an engine that does no MD (WESTPA, pcoords, segment files).

Every ``run_we`` reports its whole rate and its steady-state rate (iterations after the first, from the
per-iteration wall times WESTPA records in west.h5: kernel compilation, copy contexts and graph capture
happen in the first), and ``engines_used``: the platform, device and captured buckets each worker
really used. ``--only`` picks stages (one process per stage keeps CUDA out of a master that forks).
The platform is never chosen quietly: ``--platform auto`` takes CUDA, and stops with OpenMM's plugin
load failures when a GPU is present but the CUDA plugin did not load.

Usage: .venv/bin/python benchmarks/we_throughput.py [--platform CPU] [--steps 1000] [--save-every 100] ...
"""

from __future__ import annotations

import argparse
import json
import platform as host
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT))
if __name__ == "__main__":  # west.cfg names the engines as benchmarks.we_throughput:...: one module, one clock
    sys.modules.setdefault("benchmarks.we_throughput", sys.modules["__main__"])

import openmm  # noqa: E402

from westbench.cg.engine import CGEngine  # noqa: E402
from westbench.engines.base import Engine, SegmentResult, WalkerState  # noqa: E402
from westbench.engines.openmm_engine import OpenMMEngine  # noqa: E402

CLOCK = {"engine": 0.0, "step": 0.0}
PUBLISHED_CG = {"embedding": 128, "interaction_layers": 4, "rbf": 20}


def _timed_step(original):
    def step(self, n):
        start = time.perf_counter()
        original(self, n)
        CLOCK["step"] += time.perf_counter() - start

    return step


openmm.LangevinMiddleIntegrator.step = _timed_step(openmm.LangevinMiddleIntegrator.step)


class TimedOpenMMEngine(OpenMMEngine):
    """The OpenMM engine with a stopwatch around propagate (integrator.step is timed globally)."""

    def propagate(self, *args, **kwargs):
        start = time.perf_counter()
        try:
            return super().propagate(*args, **kwargs)
        finally:
            CLOCK["engine"] += time.perf_counter() - start


class NullEngine(Engine):
    """No MD: C-alpha frames take small random steps (numpy), so bins fill as in a real run."""

    def __init__(self, positions, scale: float = 0.05):
        self.positions, self.scale = np.asarray(positions), scale

    def basis_state(self):
        return WalkerState(self.positions.copy())

    def beads(self, state):
        return np.asarray(state.positions)

    def propagate(self, starts, n_steps, save_every, seeds):
        results = []
        for start, seed in zip(starts, seeds):
            rng = np.random.default_rng(seed)
            steps = rng.normal(0, self.scale, (n_steps // save_every, *self.positions.shape))
            frames = np.asarray(start.positions)[None] + np.cumsum(steps, axis=0)
            results.append(SegmentResult(frames.astype(np.float32), WalkerState(frames[-1])))
        return results


def files(results: Path, solvent: str) -> list[Path]:
    paths = [results / "prepare" / f"{solvent}{suffix}" for suffix in (".xml", "_state.xml", ".pdb")]
    missing = [str(p) for p in paths if not p.is_file()]
    if missing:
        sys.exit(f"missing {missing}: run `bash tools/run.sh` (the default workflow) first")
    return paths


def engine_alone(engine, walkers: int, steps: int, save_every: int) -> dict:
    starts = [engine.basis_state()] * walkers
    engine.propagate(
        starts[: engine.batch_walkers], save_every, save_every, list(range(1, walkers + 1))[: engine.batch_walkers]
    )
    CLOCK.update(engine=0.0, step=0.0)
    start = time.perf_counter()
    results = engine.propagate(starts, steps, save_every, list(range(1, walkers + 1)))
    wall = time.perf_counter() - start
    return {
        "walkers": walkers,
        "batch_walkers": engine.batch_walkers,
        "seconds": round(wall, 3),
        "segments_per_hour": round(walkers / wall * 3600, 1),
        "stepping_seconds": round(CLOCK["step"], 3),
        "engine_over_stepping": round(wall / max(CLOCK["step"], 1e-9), 3),
        "ok": sum(r.status == "ok" for r in results),
        "runtime": engine.runtime(),
    }


def whole_run(
    engine_spec,
    tica,
    protein: str,
    iterations: int,
    steps: int,
    save_every: int,
    workdir: Path,
    seed: int = 1,
    work_manager: str = "serial",
    n_workers: int = 1,
) -> dict:
    import h5py

    from westbench.engines.runtime import collect_runtime
    from westbench.we.run import run_we

    spec = dict(engine_spec)
    block = int(spec.pop("block_size", 1))
    pcoord = (
        {"type": "tica", "model": str(tica), "protein": protein, "ndim": 2} if tica else {"type": "position", "ndim": 2}
    )
    cfg = {
        "engine": spec,
        "block_size": block,
        "pcoord": pcoord,
        "seed": seed,
        "bins_per_dim": 7,
        "walkers_per_bin": 3,
        "steps_per_segment": steps,
        "save_every": save_every,
    }
    CLOCK.update(engine=0.0, step=0.0)
    start = time.perf_counter()
    summary = run_we(
        workdir, cfg=cfg, segs_per_state=3, max_iterations=iterations, work_manager=work_manager, n_workers=n_workers
    )
    wall = time.perf_counter() - start
    with h5py.File(workdir / "west.h5", "r") as handle:
        done = range(1, summary["iterations"] + 1)
        per_iteration = [len(handle[f"iterations/iter_{n:08d}/seg_index"]) for n in done]
        walltimes = [float(handle["summary"]["walltime"][n - 1]) for n in done]
    segments = sum(per_iteration)
    out = {
        "iterations": summary["iterations"],
        "segments": segments,
        "segments_per_iteration": per_iteration,
        "work_manager": work_manager,
        "workers": n_workers,
        "iteration_wall_seconds": [round(t, 3) for t in walltimes],
        "wall_seconds": round(wall, 3),
        "segments_per_hour": round(segments / wall * 3600, 1),
        "ms_per_segment": round(1000 * wall / segments, 3),
    }
    if len(walltimes) > 1 and sum(walltimes[1:]) > 0:
        out["steady_segments_per_hour"] = round(sum(per_iteration[1:]) / sum(walltimes[1:]) * 3600, 1)
        out["steady_segments_per_second"] = round(sum(per_iteration[1:]) / sum(walltimes[1:]), 3)
    out["engines_used"] = collect_runtime(workdir)
    if CLOCK["engine"]:
        out.update(
            engine_seconds=round(CLOCK["engine"], 3),
            stepping_seconds=round(CLOCK["step"], 3),
            share_outside_engine=round(1 - CLOCK["engine"] / wall, 4),
            share_outside_stepping=round(1 - CLOCK["step"] / wall, 4),
        )
    return out


def published_cg_model(trained: Path, protein: str, folder: Path) -> Path:
    """The published architecture with the trained model's prior (network untrained, head scaled by 1e-2)."""
    import torch

    from westbench.cg.model import CGModel, model_record, save_model

    record = json.loads(model_record(trained).read_text())
    kwargs = dict(record["kwargs"], network=PUBLISHED_CG)
    torch.manual_seed(0)
    model = CGModel(**kwargs)
    state = torch.load(trained, map_location="cpu", weights_only=True)
    model.load_state_dict({k: v for k, v in state.items() if not k.startswith("network.")}, strict=False)
    with torch.no_grad():
        model.network.head[-1].weight.mul_(1e-2)
        model.network.head[-1].bias.mul_(1e-2)
    path = folder / "published.pt"
    save_model(model, path)
    return path


def cg_rates(
    model: Path, protein: str, basis_pdb: Path, walker_counts, steps: int, segment_steps: int, device: str
) -> dict:
    engine = CGEngine(model, protein, basis_pdb=basis_pdb, device=device, threads=1 if device == "cpu" else None)
    out = {"device": str(engine.device)}
    for walkers in walker_counts:
        starts = [engine.basis_state()] * walkers
        seeds = list(range(1, walkers + 1))
        engine.propagate(starts, 2, 1, seeds)  # warm-up (graph capture for this bucket)
        start = time.perf_counter()
        results = engine.propagate(starts, steps, steps, seeds)
        per_step = (time.perf_counter() - start) / steps
        out[str(walkers)] = {
            "ms_per_step": round(1000 * per_step, 3),
            "segments_per_second": round(walkers / (per_step * segment_steps), 3),
            "ended": sum(r.status != "ok" for r in results),
        }
        print(f"CG {walkers} walkers: {1000 * per_step:.2f} ms/step", flush=True)
    out["runtime"] = engine.runtime()  # after the calls: the buckets really captured (or the capture failure)
    out["force_call"] = "CUDA graphs" if out["runtime"].get("captured_buckets") else "eager"
    return out


STAGES = ("null", "implicit", "explicit", "cg", "cg_we", "processes")


def choose_platform(wanted: str | None) -> tuple[str, dict]:
    """The OpenMM platform to measure and what OpenMM says about its plugins; never a quiet CPU run on a GPU machine."""
    from westbench.runtime.devices import visible_gpus

    names = [openmm.Platform.getPlatform(i).getName() for i in range(openmm.Platform.getNumPlatforms())]
    info = {
        "platforms": names,
        # under <sys.prefix>, not this machine's path: the record is committed
        "plugin_load_failures": [
            f.replace(sys.prefix, "<sys.prefix>") for f in openmm.Platform.getPluginLoadFailures()
        ],
        "gpus_visible": visible_gpus(),
    }
    if wanted in (None, "auto"):
        if "CUDA" in names:
            return "CUDA", info
        if info["gpus_visible"]:
            sys.exit(
                f"GPUs {info['gpus_visible']} are present but OpenMM's CUDA platform did not load: "
                f"{info['plugin_load_failures']}. Fix the plugin (LD_LIBRARY_PATH, openmm-cuda wheel) or "
                "pass --platform CPU to measure the CPU on purpose."
            )
        return "CPU", info
    if wanted not in names:
        sys.exit(
            f"OpenMM platform {wanted} is not available here ({names}; plugin failures: {info['plugin_load_failures']})"
        )
    return wanted, info


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", default=str(ROOT / "results"), help="the default run's results folder")
    parser.add_argument("--protein", default="chignolin")
    parser.add_argument(
        "--platform",
        default="auto",
        help="OpenMM platform (auto: CUDA, an error if a GPU is present without it; CPU without GPUs)",
    )
    parser.add_argument(
        "--only", nargs="+", choices=STAGES, default=None, help="stages to run (default: all but processes)"
    )
    parser.add_argument("--cg-device", default="auto", help="torch device of the CG stages (auto: cuda when available)")
    parser.add_argument("--cg-we-iterations", type=int, default=8)
    parser.add_argument("--processes-workers", type=int, default=2)
    parser.add_argument("--processes-iterations", type=int, default=4)
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--save-every", type=int, default=100)
    parser.add_argument("--implicit-walkers", type=int, default=128)
    parser.add_argument("--we-iterations", type=int, default=8)
    parser.add_argument("--explicit-walkers", type=int, default=2)
    parser.add_argument("--explicit-we-iterations", type=int, default=2)
    parser.add_argument("--cg-walkers", type=int, nargs="*", default=[1, 120, 1200])
    parser.add_argument("--cg-steps", type=int, default=100)
    parser.add_argument("--cg-model", default="fulltrained", help="preset of the default run's CG model")
    parser.add_argument("--null-iterations", type=int, default=8)
    parser.add_argument("--output", default=None)
    args = parser.parse_args()

    import yaml

    from westbench.config import validate_config
    from westbench.we.engine_entry import openmm_engine_spec

    name, platform_info = choose_platform(args.platform)
    stages = set(args.only or [s for s in STAGES if s != "processes"])
    config = validate_config(yaml.safe_load((ROOT / "config" / "config.yaml").read_text()))
    prep = config["preparation"]
    platform = {**config["platform"], "name": name, "fallback": []}
    threads = 1 if name == "CPU" and platform.get("deterministic") else None
    results = Path(args.results) / args.protein
    tica = results / "tica" / "model"
    report = {
        "platform": name,
        "machine": f"{host.node()} ({host.processor() or host.machine()})",
        "openmm": openmm.__version__,
        "steps_per_segment": args.steps,
        "save_every": args.save_every,
        "timestep_fs": prep["timestep_fs"],
        "bins_per_tic": 7,
        "walkers_per_bin": 3,
        "openmm_platforms": platform_info,
        "stages": sorted(stages),
    }
    cg_device = args.cg_device
    if stages & {"cg", "cg_we"}:
        import torch

        report["torch"] = torch.__version__
        if cg_device == "auto":
            cg_device = "cuda" if torch.cuda.is_available() else "cpu"
        if cg_device == "cuda":
            report["gpu"] = torch.cuda.get_device_name(0)
    output = Path(args.output or ROOT / "benchmarks" / "results" / f"we_throughput_{name.lower()}.json")
    work = Path(tempfile.mkdtemp(prefix="we_throughput_"))

    def save():
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(json.dumps(report, indent=2) + "\n")

    # Per-iteration cost of run_we around an engine that does no MD (published binning).
    if "null" in stages:
        basis = OpenMMEngine(*files(results, "implicit"), platform=platform)
        null = {
            "class": "benchmarks.we_throughput:NullEngine",
            "options": {"positions": basis.beads(basis.basis_state()).tolist()},
        }
        run = whole_run(null, tica, args.protein, args.null_iterations, args.steps, args.save_every, work / "null")
        report["null_engine_run_we"] = run
        save()
        print("null engine:", run, flush=True)

    if "processes" in stages:  # first, before anything here touches a GPU: the workers are forked from here
        paths = files(results, "implicit")
        workers = args.processes_workers
        max_walkers = -(-7 * 7 * 3 // workers)
        spec = openmm_engine_spec(*paths, prep, platform, 1, max_walkers=max_walkers)
        report["implicit_processes_run_we"] = whole_run(
            spec,
            tica,
            args.protein,
            args.processes_iterations,
            args.steps,
            args.save_every,
            work / "processes",
            work_manager="processes",
            n_workers=workers,
        )
        print("processes run_we:", report["implicit_processes_run_we"], flush=True)
        save()

    for solvent, walkers, iterations in (
        ("implicit", args.implicit_walkers, args.we_iterations),
        ("explicit", args.explicit_walkers, args.explicit_we_iterations),
    ):
        if walkers <= 0 or solvent not in stages:
            continue
        paths = files(results, solvent)
        max_walkers = 7 * 7 * 3
        engine = TimedOpenMMEngine(*paths, integrator=prep, platform=platform, threads=threads, max_walkers=max_walkers)
        section = {"engine_alone": engine_alone(engine, walkers, args.steps, args.save_every)}
        print(solvent, "engine alone:", section["engine_alone"], flush=True)
        report[solvent] = section
        save()
        if iterations > 0:
            spec = openmm_engine_spec(*paths, prep, platform, threads, max_walkers=max_walkers)
            spec["class"] = "benchmarks.we_throughput:TimedOpenMMEngine"
            section["run_we"] = whole_run(
                spec, tica, args.protein, iterations, args.steps, args.save_every, work / solvent
            )
            print(solvent, "run_we:", section["run_we"], flush=True)
            save()

    if stages & {"cg", "cg_we"}:
        from westbench.we.engine_entry import cg_engine_spec

        trained = Path(args.results) / args.protein / "cg" / args.cg_model / "model.pt"
        if not trained.is_file():
            sys.exit(f"missing {trained}: run `bash tools/run.sh` first")
        model = published_cg_model(trained, args.protein, work)
        if "cg" in stages and args.cg_walkers:
            report["cg_published_architecture"] = {
                "architecture": PUBLISHED_CG,
                "timed_steps": args.cg_steps,
                **cg_rates(
                    model,
                    args.protein,
                    results / "prepare" / "implicit.pdb",
                    args.cg_walkers,
                    args.cg_steps,
                    args.steps,
                    cg_device,
                ),
            }
            save()
        if "cg_we" in stages and args.cg_we_iterations > 0:
            spec = cg_engine_spec(
                model,
                args.protein,
                results / "prepare" / "implicit.pdb",
                {**config["cg"], "device": cg_device},
                threads=1 if cg_device == "cpu" else None,
            )
            report["cg_run_we"] = whole_run(
                spec, tica, args.protein, args.cg_we_iterations, args.steps, args.save_every, work / "cg"
            )
            print("CG run_we:", report["cg_run_we"], flush=True)
            save()
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
