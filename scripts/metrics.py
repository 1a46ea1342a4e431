"""Snakemake entry point: the metric suite and figures of one engine against the ground truth."""

import _library  # noqa: F401  (puts src/ on sys.path)

import logging
import time
from pathlib import Path

import pandas as pd

from westbench.frames import ok_frames, read_frames
from westbench.metrics.figures import write_metric_figures
from westbench.metrics.divergences import kl_2d
from westbench.metrics.suite import MetricSuite, simulated_time_ps
from westbench.workflow import run_script, write_json

log = logging.getLogger("westbench.metrics")


def main(snakemake):
    settings = {**snakemake.params.settings, "seed": snakemake.params.seed}
    weightings = settings.pop("weightings")
    protein, engine = snakemake.wildcards.protein, snakemake.wildcards.engine
    start = time.perf_counter()
    exported = read_frames(snakemake.input.model)
    model = ok_frames(exported)  # segments of walkers a CG engine ended (exploded, imploded) are left out
    if len(model["ca"]) < len(exported["ca"]):
        log.warning("%d of %d frames left out: segments of walkers the engine ended", len(exported["ca"]) -
                    len(model["ca"]), len(exported["ca"]))
    suite = MetricSuite(read_frames(snakemake.input.groundtruth), model, settings)
    log.info("%s %s: features of %d model and %d ground-truth frames in %.1f s", protein, engine,
             len(suite.model["ca"]), len(suite.groundtruth["ca"]), time.perf_counter() - start)
    labels = suite.macrostates()
    log.info("macrostates: %d (%.1f s so far)", labels["n_macrostates"], time.perf_counter() - start)
    results, tables = {}, []
    for weighting in weightings:
        values, table = suite.score(weighting)
        log.info("weighting %s: W1(TIC 0) %.4g, KL(TIC 0/1) %.4g, coverage %.3f (%.1f s so far)", weighting,
                 values["w1"].get("tic0", float("nan")), values["kl"]["tic01"], values["coverage"],
                 time.perf_counter() - start)
        values["macrostate_populations"] = suite.macrostate_populations(labels, weighting)
        results[weighting] = values
        tables.append(table)
        tables.append(pd.DataFrame([{"weighting": weighting, "distribution": "macrostates",
                                     "metric": "total_variation",
                                     "value": values["macrostate_populations"]["total_variation"]}]))
    longest, aggregate = simulated_time_ps(suite.model)
    tables.append(pd.DataFrame([{"weighting": "", "distribution": "time", "metric": "longest_simulated_ps",
                                 "value": longest},
                                {"weighting": "", "distribution": "time", "metric": "aggregate_simulated_ps",
                                 "value": aggregate},
                                {"weighting": "", "distribution": "macrostates", "metric": "n_used",
                                 "value": labels["n_macrostates"]}]))
    table = pd.concat(tables, ignore_index=True)
    table.insert(0, "engine", engine)
    table.insert(0, "protein", protein)
    table.to_csv(snakemake.output.csv, index=False)
    figure_weighting = weightings[0]
    paths = write_metric_figures(Path(snakemake.output.tic_densities_1d).parent, suite.groundtruth, suite.model,
                                 suite.weights(figure_weighting), results[figure_weighting], labels, settings,
                                 label=engine, distributions=(suite.reference, suite.sample))
    # KL of TIC 0/1 at several bin counts: the sensitivity of a headline number to the binning.
    gt_tics, model_tics = suite.groundtruth["tics"][:, :2], suite.model["tics"][:, :2]
    kl_by_bins = {int(b): kl_2d(gt_tics, model_tics, suite.groundtruth_weights, suite.weights(figure_weighting), b,
                                settings["kl_floor"]) for b in settings["kl_sensitivity_bins"]}
    requested = settings["macrostates"]
    write_json({"protein": protein, "engine": engine, "frames": len(suite.model["ca"]),
                "discarded_iterations": suite.discarded_iterations,
                "simulated_ps": {"longest": longest, "aggregate": aggregate},
                "macrostates": {"requested": requested, "used": labels["n_macrostates"],
                                "reduced": labels["n_macrostates"] < requested,
                                "why": "" if labels["n_macrostates"] >= requested else
                                "the ground truth's cluster MSM resolves fewer metastable sets than requested "
                                "(too few frames or transitions); PCCA+ used the largest count it supports"},
                "kl_tic01_by_bins": {"weighting": figure_weighting, "values": kl_by_bins},
                "frames_left_out": len(exported["ca"]) - len(suite.model["ca"]),
                "groundtruth_frames": len(suite.groundtruth["ca"]), "settings": settings,
                "figures": {"weighting": figure_weighting, "files": sorted(p.name for p in paths.values())},
                "metrics": results}, snakemake.output.json)
    log.info("metrics and %d figures written in %.1f s", len(paths), time.perf_counter() - start)


run_script(snakemake, main)  # noqa: F821 (injected by Snakemake)
