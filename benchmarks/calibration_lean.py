"""Where the calibration study's lean comes from: one WE run's score and one own sample's known answer against the
population, on a finished study with several WE replicas per engine (docs/calibration.md, "Where the lean came from").

Issue 51 found the point estimate below its known answer in 32 of 33 resolved cells of one study (median -8.7 %).
Each candidate cause is measured here on a study run with ``calibration.we.replicas`` > 1 (every replica an
independent single-run study of its engine, from its own starts, against the same ground truth):

- **population**: per engine that changes the equilibrium, a large unbiased sample made as the study's own samples
  are, with twice their equilibration and several times their runs (``--population-runs``, default 512 runs,
  800 ps equilibrated, 400 ps): the divergence an engine with unlimited sampling would score, to within its noise;
- **the known answer's own error**: the study's answer and the same answer from ``--own-seeds`` more own samples
  (other seeds, the study's protocol): their mean against the population (a bias of the own sample, e.g. one not
  equilibrated) and their spread (the error one study's answer carries into every cell of its engine);
- **one WE run's error**: every replica's score, mean (a bias of WE or of the engine) and spread (what one run
  carries into every cell), against the population;
- **relaxation from the starts**: each replica's weighted mean of TIC 0 per 5 iterations, averaged over the
  replicas, against the own sample's mean (where the walkers start) and the population's (where they must go);
- **the discarded iterations**: every replica scored on its last quarter instead of its last half;
- **finite-sample excess**: the null's single-run scores against the noise floor's median at its Kish effective
  frames (what an unbiased sample of its size carries), and each perturbed engine's against its own sample drawn to
  the replica's Kish size (:func:`westbench.calibration.known_answer.answer_at_size`);
- **the KL estimator on weighted frames**: the nearest-neighbour KL of an exact importance-weighted sample of the
  reference's own distribution (true KL 0), tails oversampled as WE's bins oversample them.

    .venv/bin/python benchmarks/calibration_lean.py --study DIR/results/calibration/chignolin --scratch /tmp/lean

(``DIR``: a study run with ``snakemake --profile profiles/local calibration --configfile config/config.yaml
OVERLAY``, the overlay setting ``calibration.we.replicas: 8`` and ``calibration.presets: []``). The samples are
cached in ``--scratch``; the results go to ``benchmarks/results/calibration_lean.json``. ``--reread RESULTS...``
also reads finished single-run studies (their ``results/`` folders, e.g. the embedded default with other seeds)
against the bare known answer and against the answer at each engine's size.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
HEADLINE = [("w1", "tic0"), ("w1", "tic1"), ("w1", "rg")]


def scores(groundtruth, frames, settings, floor: bool = False) -> dict:
    """Every divergence the suite reports of ``frames`` (weighted, iterations already chosen) against the ground
    truth, the frames' Kish effective size and (``floor``) the noise floor's median there."""
    from westbench.metrics.suite import MetricSuite

    suite = MetricSuite(groundtruth, frames, {**settings, "discard_iterations": 0})
    weights = suite.weights("we")
    effective = suite.effective_frames("we")
    values = dict(zip(suite.binned.keys, suite.estimates(weights)))
    out = {"values": {" ".join(k): float(v) for k, v in values.items()}, "effective_frames": float(effective)}
    if floor:
        medians = suite.noise_floor(effective).value
        out["floor_median"] = {" ".join(k): float(v) for k, v in zip(suite.binned.keys, medians)}
    return out


def equilibrium_sample(
    study: Path, engine: str, path: Path, runs: int, equilibration_ps: float, length_ps: float, seed
):
    """An unbiased sample of ``engine``'s equilibrium, made as rule calibration_equilibrium_sample makes its own
    sample (native and hot starts), on the study's TICA (cached at ``path``)."""
    from westbench.calibration.groundtruth import run_equilibrium_sample
    from westbench.cg.native import native_ca
    from westbench.io.frames import read_frames, write_frames
    from westbench.tica.model import TicaModel

    if path.is_file():
        return read_frames(path)
    langevin = None
    for candidate in [
        study / "we" / engine / "westbench-run.json",
        *sorted((study / "we" / engine).glob("replica_*/westbench-run.json")),
    ]:
        if candidate.is_file():
            langevin = json.loads(candidate.read_text())["engine"]["options"]["langevin"]
            break
    if langevin is None:
        raise SystemExit(f"{study}/we/{engine}: no westbench-run.json to read the engine's dynamics from")
    raw = path.with_suffix(".raw.h5")
    run_equilibrium_sample(
        study / "models" / engine / "model.pt",
        native_ca(study / "native.pdb"),
        raw,
        runs,
        langevin,
        {"equilibration_ps": equilibration_ps, "length_ps": length_ps, "save_interval_ps": 4.0},
        seed=seed,
        explosion={"bond_min_angstrom": 2.5, "bond_max_angstrom": 6.0},
    )
    sample = read_frames(raw)
    tics = TicaModel.load(study / "tica" / "model.json").project(sample["ca"]).astype(np.float32)
    write_frames(
        path, ca=sample["ca"], time_ps=sample["time_ps"], traj=sample["traj"], tics=tics, start=sample["start"]
    )
    raw.unlink()
    return read_frames(path)


def uniform(frames) -> dict:
    n = len(frames["ca"])
    return {
        "ca": np.asarray(frames["ca"]),
        "tics": np.asarray(frames["tics"], dtype=np.float64),
        "weight": np.full(n, 1.0 / n),
        "traj": np.asarray(frames["traj"]),
        "time_ps": np.asarray(frames["time_ps"], dtype=np.float64),
    }


def replica_frames(we, replica: int, first_iteration: int) -> dict:
    """One replica's frames from ``first_iteration`` on, each iteration's weights summing to 1 (a single run's)."""
    keep = (np.asarray(we["replica"]) == replica) & (np.asarray(we["iteration"]) >= first_iteration)
    frames = {k: np.asarray(v)[keep] for k, v in we.items() if np.ndim(v) and len(v) == len(keep) and k != "replica"}
    frames["weight"] = frames["weight"] / frames["weight"].sum() * len(np.unique(frames["iteration"]))
    return frames


def weighted_sample_kl(seed: int = 0) -> list[dict]:
    """KL(N(0, 1) || an exact importance-weighted sample of N(0, 1)) by nearest neighbours
    (:func:`westbench.metrics.kl.kl_knn`): the answer is 0 whatever the proposal, as it is for a WE run of the
    reference. The proposal N(0, s^2) oversamples the tails as WE's bins do; beside it an unweighted sample of the
    weighted one's Kish size."""
    from westbench.metrics.kl import kl_knn

    rng = np.random.default_rng(seed)
    reference = rng.normal(size=12800)
    rows = []
    for spread in (1.0, 1.5, 2.0, 3.0):
        x = rng.normal(0.0, spread, 13000)
        log_w = -0.5 * x**2 + 0.5 * (x / spread) ** 2
        w = np.exp(log_w - log_w.max())
        kish = float(w.sum() ** 2 / (w**2).sum())
        plain = rng.normal(size=int(kish))
        rows.append(
            {
                "proposal_sd": spread,
                "kish_frames": round(kish),
                "weighted": round(float(kl_knn(reference, x, None, w, query_points=1000)), 4),
                "unweighted_of_kish_size": round(float(kl_knn(reference, plain, query_points=1000)), 4),
            }
        )
    return rows


def reread(results: Path, kl_estimator: str | None = None) -> dict:
    """A finished study's table (``results/``: its ``tables/calibration.csv`` and ``calibration/<study>/``) read both
    ways: against the bare known answer (``covers`` as the table has it, when it predates ``predicted_at_size``) and
    against the answer at each engine's size (the difference interval moved by the excess that answer adds), per
    seed: resolved and all cells covered, W1 and KL apart, which way scores and misses lie."""
    import pandas as pd

    from westbench.calibration.known_answer import answer_at_size, load_known_answer
    from westbench.io.frames import read_frames
    from westbench.seeds import derive_seed

    table = pd.read_csv(results / "tables" / "calibration.csv", keep_default_na=False, na_values=[""])
    study = next((results / "calibration").glob("*/calibration.json")).parent
    groundtruth = read_frames(study / "tica" / "groundtruth_frames.h5")
    rows = table[table["covers"].astype(str).isin(["True", "False"])].copy()
    rows["covers"] = rows["covers"].astype(str) == "True"
    sized = {}
    for engine in rows["engine"].unique():
        record = json.loads((study / "metrics" / engine / "metrics.json").read_text())
        settings = {**record["settings"], **({"kl_estimator": kl_estimator} if kl_estimator else {})}
        sample = study / "known" / engine / "frames.h5"
        known = load_known_answer(study / "reweighting.npz", engine, sample if sample.is_file() else None)
        if known.sampled:
            seed = derive_seed(int(settings["seed"]), "known_answer_at_size", engine)
            effective = record["metrics"]["we"]["effective_frames"]
            values, _ = answer_at_size(known.suite(groundtruth, settings), effective, seed)
            sized.update({(engine, *key): value for key, value in values.items()})
    reference = rows["kind"].isin(["null", "dynamics"])
    rows["at_size"] = [
        r.floor if ref else sized.get((r.engine, r.metric, r.distribution), r.predicted)
        for r, ref in zip(rows.itertuples(), reference)
    ]
    shift = rows["at_size"] - rows["predicted"]
    rows["covers_at_size"] = (rows["difference_low"] - shift <= 0) & (0 <= rows["difference_high"] - shift)

    def count(answer, covers):
        difference = rows["value"] - rows[answer]
        resolved = rows["expected"] == "separated"
        missed = ~rows[covers]
        return {
            "resolved": {"cells": int(resolved.sum()), "covered": int(rows.loc[resolved, covers].sum())},
            "all_cells": {"cells": int(len(rows)), "covered": int(rows[covers].sum())},
            **{
                metric: {
                    "cells": int((rows["metric"] == metric).sum()),
                    "covered": int(rows.loc[rows["metric"] == metric, covers].sum()),
                }
                for metric in ("w1", "kl")
            },
            "null": {
                "cells": int((rows["kind"] == "null").sum()),
                "covered": int(rows.loc[rows["kind"] == "null", covers].sum()),
            },
            "resolved_above": int((resolved & (difference > 0)).sum()),
            "resolved_below": int((resolved & (difference < 0)).sum()),
            "missed_above": int((missed & (difference > 0)).sum()),
            "missed_below": int((missed & (difference < 0)).sum()),
        }

    return {"bare_answer": count("predicted", "covers"), "answer_at_engine_size": count("at_size", "covers_at_size")}


def summary(values) -> dict:
    values = np.asarray(values, dtype=np.float64)
    return {
        "mean": float(values.mean()),
        "sd": float(values.std(ddof=1)) if len(values) > 1 else None,
        "se": float(values.std(ddof=1) / np.sqrt(len(values))) if len(values) > 1 else None,
        "n": int(len(values)),
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--study", type=Path, help="results/calibration/<study> of a replicas study")
    parser.add_argument("--scratch", type=Path, help="where the extra samples are cached (with --study)")
    parser.add_argument("--population-runs", type=int, default=512)
    parser.add_argument("--own-seeds", type=int, default=8)
    parser.add_argument("--own-engines", default="temperature_120,contacts_80")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "calibration_lean.json")
    parser.add_argument("--kl-estimator", help="metrics.kl_estimator instead of the study's (its metrics.json)")
    parser.add_argument(
        "--reread",
        type=Path,
        nargs="*",
        default=[],
        help="finished single-run studies (their results/ folders) read against the bare answer and at size",
    )
    args = parser.parse_args(argv)

    import torch

    from westbench.calibration.known_answer import answer_at_size, load_known_answer
    from westbench.io.frames import read_frames

    torch.set_num_threads(1)
    started = time.time()
    study, scratch = args.study, args.scratch
    engines = []
    if study is not None:
        if scratch is None:
            raise SystemExit("--study needs --scratch (where its population and own samples are cached)")
        scratch.mkdir(parents=True, exist_ok=True)
        groundtruth = read_frames(study / "tica" / "groundtruth_frames.h5")
        reweighting = study / "reweighting.npz"
        with np.load(reweighting) as data:
            engines = list(data.files)
    import platform
    import subprocess
    import sys

    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout
    out: dict = {
        "command": " ".join([".venv/bin/python", "benchmarks/calibration_lean.py", *sys.argv[1:]]),
        "commit": commit.strip(),
        "host": {"cpu": platform.processor() or platform.machine(), "cores": __import__("os").cpu_count()},
        "study": str(study),
        "kl_estimator": args.kl_estimator or "the study's",
        "engines": {},
    }
    for engine in engines:
        record = json.loads((study / "metrics" / engine / "metrics.json").read_text())
        settings = {**record["settings"], **({"kl_estimator": args.kl_estimator} if args.kl_estimator else {})}
        sample = study / "known" / engine / "frames.h5"
        known = load_known_answer(reweighting, engine, sample if sample.is_file() else None)
        we = read_frames(study / "we" / engine / "frames.h5")
        iterations = int(np.max(we["iteration"]))
        replicas = np.unique(np.asarray(we["replica"]))
        result: dict = {"replicas": int(len(replicas)), "iterations": iterations}
        half, quarter = iterations // 2 + 1, (3 * iterations) // 4 + 1
        single = [scores(groundtruth, replica_frames(we, r, half), settings, not known.sampled) for r in replicas]
        last_quarter = [scores(groundtruth, replica_frames(we, r, quarter), settings) for r in replicas]
        cells = list(single[0]["values"])
        result["single_run"] = {c: summary([s["values"][c] for s in single]) for c in cells}
        result["single_run_last_quarter"] = {c: summary([s["values"][c] for s in last_quarter]) for c in cells}
        result["single_run_effective_frames"] = summary([s["effective_frames"] for s in single])
        # relaxation: weighted mean of TIC 0 per 5 iterations, per replica
        blocks = []
        for r in replicas:
            frames = replica_frames(we, r, 1)
            it, w, t0 = frames["iteration"], frames["weight"], np.asarray(frames["tics"])[:, 0]
            blocks.append(
                [
                    float(np.average(t0[(it > lo) & (it <= lo + 5)], weights=w[(it > lo) & (it <= lo + 5)]))
                    for lo in range(0, iterations, 5)
                ]
            )
        result["tic0_mean_per_5_iterations"] = {
            "mean_over_replicas": np.mean(blocks, axis=0).round(4).tolist(),
            "sd_over_replicas": np.std(blocks, axis=0, ddof=1).round(4).tolist(),
        }
        if known.sampled:
            suite = known.suite(groundtruth, settings)
            result["known_answer"] = {
                " ".join(k): float(v) for k, v in zip(suite.binned.keys, suite.estimates(suite.weights("we")))
            }
            result["own_sample_tic0_mean"] = float(np.mean(np.asarray(known.own["tics"])[:, 0]))
            at_size = [answer_at_size(suite, s["effective_frames"], seed=k)[0] for k, s in enumerate(single)]
            result["known_answer_at_replica_size"] = {c: summary([a[tuple(c.split())] for a in at_size]) for c in cells}
            population = equilibrium_sample(
                study, engine, scratch / f"population_{engine}.h5", args.population_runs, 800.0, 400.0, 777
            )
            result["population"] = scores(groundtruth, uniform(population), settings)["values"]
            result["population_tic0_mean"] = float(np.mean(np.asarray(population["tics"])[:, 0]))
            result["population_runs"] = args.population_runs
            if engine in args.own_engines.split(","):
                owns = [
                    scores(
                        groundtruth,
                        uniform(
                            equilibrium_sample(
                                study, engine, scratch / f"own_{engine}_{k}.h5", 128, 400.0, 200.0, 1000 + k
                            )
                        ),
                        settings,
                    )["values"]
                    for k in range(args.own_seeds)
                ]
                result["own_samples_other_seeds"] = {c: summary([o[c] for o in owns]) for c in cells}
        else:
            result["known_answer"] = {c: 0.0 for c in cells}
            result["floor_median_at_replica_size"] = {c: summary([s["floor_median"][c] for s in single]) for c in cells}
        out["engines"][engine] = result
        print(f"[calibration_lean] {engine}: {time.time() - started:.0f} s", flush=True)
        args.out.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    out["knn_kl_of_an_exact_weighted_sample"] = weighted_sample_kl()
    out["reread"] = {str(path): reread(path, args.kl_estimator) for path in args.reread}
    out["seconds"] = round(time.time() - started, 1)
    args.out.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
