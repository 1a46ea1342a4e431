"""Score one engine's frames against the ground truth: ``metrics.json``, ``metrics.csv`` and the figures.

The job of the ``metrics`` rule (one protein, one engine). The protein and the engine are
data given by the caller (the rule's wildcards), written into both files.

``metrics.json`` keys: ``protein``, ``engine``, ``frames``, ``frames_left_out`` (segments of
walkers a CG engine ended), ``groundtruth_frames``, ``discarded_iterations``,
``simulated_ps`` (``longest``, ``aggregate``), ``macrostates`` (``requested``, ``used``,
``reduced``, ``why``), ``kl_tic01_by_bins`` (KL of TIC 0/1 at each of
``kl_sensitivity_bins``: the sensitivity of a headline number to the binning), ``settings``,
``figures`` (``weighting``, ``files``) and ``metrics`` (per weighting, see
:meth:`westbench.metrics.suite.MetricSuite.score`). ``metrics.csv``: the tidy rows of every
weighting plus the simulated time and the macrostate count, with ``protein`` and ``engine`` columns.

Examples
--------
>>> import numpy as np, tempfile
>>> from westbench.frames import write_frames
>>> rng, folder = np.random.default_rng(0), Path(tempfile.mkdtemp())
>>> centre = np.repeat(np.tile([0.0, 3.0], 4), 50)  # two states visited in turn
>>> for name in ("gt", "model"):
...     write_frames(folder / f"{name}.h5", ca=np.cumsum(rng.normal(0, 0.2, (400, 6, 3)), axis=1),
...                  weight=np.full(400, 1 / 400), traj=np.zeros(400, int), time_ps=np.arange(400.0),
...                  iteration=np.ones(400, int), tics=centre[:, None] + rng.normal(0, 0.3, (400, 4)))
>>> record = score_engine(folder / "gt.h5", folder / "model.h5", {"weightings": ["we"], "bootstrap": 0,
...     "macrostate_clusters": 10, "macrostates": 2, "seed": 1}, protein="p", engine="e",
...     json_path=folder / "metrics.json", csv_path=folder / "metrics.csv", figures_dir=folder / "figures")
>>> record["protein"], record["engine"], record["frames"], sorted(record["metrics"])
('p', 'e', 400, ['we'])
>>> sorted(path.name for path in folder.glob("metrics.*")), len(record["figures"]["files"]) > 0
(['metrics.csv', 'metrics.json'], True)
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Mapping

import pandas as pd

from westbench.frames import ok_frames, read_frames
from westbench.metrics.divergences import kl_2d
from westbench.metrics.figures import write_metric_figures
from westbench.metrics.suite import DEFAULTS, MetricSuite, simulated_time_ps
from westbench.workflow import write_json

log = logging.getLogger("westbench.metrics")

REDUCED_MACROSTATES = ("the ground truth's cluster MSM resolves fewer metastable sets than requested "
                       "(too few frames or transitions); PCCA+ used the largest count it supports")


def score_engine(groundtruth_frames: str | Path, model_frames: str | Path, settings: Mapping, *, protein: str,
                 engine: str, json_path: str | Path, csv_path: str | Path, figures_dir: str | Path) -> dict:
    """Score an engine's exported frames against the ground truth and write ``metrics.json``, ``metrics.csv``
    and the per-engine figures (into ``figures_dir``).

    Parameters
    ----------
    groundtruth_frames, model_frames : path
        Frames files (:mod:`westbench.frames`) with TICs: the ground truth and the engine's export.
    settings : mapping
        The metric suite's ``metrics`` keys with ``weightings`` and the job's ``seed``; the first
        weighting is the figures' and the KL-sensitivity's.
    protein, engine : str
        Written into both files (the caller's identity of the job, not parsed from paths).

    Returns
    -------
    dict
        The record written to ``metrics.json``.
    """
    settings = dict(settings)
    weightings = list(settings.pop("weightings", DEFAULTS["weightings"]))
    start = time.perf_counter()
    exported = read_frames(model_frames)
    model = ok_frames(exported)  # segments of walkers a CG engine ended (exploded, imploded) are left out
    left_out = len(exported["ca"]) - len(model["ca"])
    if left_out:
        log.warning("%d of %d frames left out: segments of walkers the engine ended", left_out, len(exported["ca"]))
    suite = MetricSuite(read_frames(groundtruth_frames), model, settings)
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
        tables += [table, pd.DataFrame([{"weighting": weighting, "distribution": "macrostates",
                                         "metric": "total_variation",
                                         "value": values["macrostate_populations"]["total_variation"]}])]
    longest, aggregate = simulated_time_ps(suite.model)
    tables.append(pd.DataFrame([
        {"weighting": "", "distribution": "time", "metric": "longest_simulated_ps", "value": longest},
        {"weighting": "", "distribution": "time", "metric": "aggregate_simulated_ps", "value": aggregate},
        {"weighting": "", "distribution": "macrostates", "metric": "n_used", "value": labels["n_macrostates"]}]))
    table = pd.concat(tables, ignore_index=True)
    table.insert(0, "engine", engine)
    table.insert(0, "protein", protein)
    table.to_csv(csv_path, index=False)
    figure_weighting = weightings[0]
    s = suite.settings  # the given settings over the suite's defaults
    paths = write_metric_figures(Path(figures_dir), suite.groundtruth, suite.model, suite.weights(figure_weighting),
                                 results[figure_weighting], labels, s, label=engine,
                                 distributions=(suite.reference, suite.sample))
    gt_tics, model_tics = suite.groundtruth["tics"][:, :2], suite.model["tics"][:, :2]
    kl_by_bins = {int(b): kl_2d(gt_tics, model_tics, suite.groundtruth_weights, suite.weights(figure_weighting), b,
                                s["kl_floor"]) for b in s["kl_sensitivity_bins"]}
    requested, used = s["macrostates"], labels["n_macrostates"]
    record = {"protein": protein, "engine": engine, "frames": len(suite.model["ca"]),
              "discarded_iterations": suite.discarded_iterations,
              "simulated_ps": {"longest": longest, "aggregate": aggregate},
              "macrostates": {"requested": requested, "used": used, "reduced": used < requested,
                              "why": "" if used >= requested else REDUCED_MACROSTATES},
              "kl_tic01_by_bins": {"weighting": figure_weighting, "values": kl_by_bins},
              "frames_left_out": left_out, "groundtruth_frames": len(suite.groundtruth["ca"]),
              "settings": settings,
              "figures": {"weighting": figure_weighting, "files": sorted(p.name for p in paths.values())},
              "metrics": results}
    write_json(record, json_path)
    log.info("metrics and %d figures written in %.1f s", len(paths), time.perf_counter() - start)
    return record
