"""Score one engine's frames against the ground truth: ``metrics.json``, ``metrics.csv`` and the figures.

The job of the ``metric_suite`` rule (one protein, one engine). The protein and the engine are
data given by the caller (the rule's wildcards), written into both files. The numbers are
:func:`westbench.metrics.engine_scoring.score_frames`'s (in memory); this module reads the frames files, writes the
files and draws the figures. The protein's macrostate model is the job of rule ``macrostates``
(:func:`westbench.metrics.macrostate_fit.fit_macrostate_model`), fitted once and shared by every engine.

``metrics.json`` keys: ``protein``, ``engine``, ``frames``, ``frames_left_out`` (segments of
walkers a CG engine ended), ``nonfinite_frames_dropped`` (frames with non-finite coordinates
dropped at import, ``on_nonfinite: drop``), ``groundtruth_frames``, ``discarded_iterations``,
``simulated_ps`` (``longest``, ``aggregate``), ``macrostates`` (``requested``, ``used``,
``reduced``, ``why``), ``kl_tic01_by_bins`` (KL of TIC 0/1 at each of ``kl_sensitivity_bins``:
the sensitivity of a headline number to the binning), ``resampling`` (what the bootstrap's
units are), ``noise_floor`` (the first weighting's, per metric and distribution: ``value``, ``low``, ``high``;
each weighting's own is in ``metrics.<weighting>.noise_floor``, matched on its effective sample size),
``not_estimable`` ({key: reason}: what the data could not give, null where the number would
be; ``sanity/<check>`` for each failed sanity check), ``sanity`` (the engine's sanity checks before
scoring, :func:`westbench.geometry.sanity.engine_sanity`: ``passed``, ``failed`` (check names),
``checks`` ({name: {``passed``, ``value``, ``threshold``, ``message``}}); an engine that fails one has
every verdict that would read *within noise* made *undetermined*, the failure its reason), ``settings``,
``figures`` (``weighting``, ``files``) and ``metrics`` (per weighting, see
:meth:`westbench.metrics.suite.MetricSuite.score`). Every number is finite or null.
``metrics.csv``: the tidy rows of every weighting plus the simulated time and the macrostate
count, with ``protein`` and ``engine`` columns, and the row ``sanity`` ``failed`` (``note``: the failed
checks, ";"-joined; ``value`` their count).

Examples
--------
>>> import numpy as np, tempfile
>>> from westbench.io.frames import write_frames
>>> rng, folder = np.random.default_rng(0), Path(tempfile.mkdtemp())
>>> centre = np.repeat(np.tile([0.0, 3.0], 4), 50)  # two states visited in turn
>>> for name in ("gt", "model"):
...     write_frames(folder / f"{name}.h5", ca=np.cumsum(rng.normal(0, 0.2, (400, 6, 3)), axis=1),
...                  weight=np.full(400, 1 / 400), traj=np.repeat(np.arange(8), 50), time_ps=np.arange(400.0),
...                  iteration=np.ones(400, int), tics=centre[:, None] + rng.normal(0, 0.3, (400, 4)))
>>> record = score_engine(folder / "gt.h5", folder / "model.h5", {"weightings": ["we"], "bootstrap": 50,
...     "macrostate_clusters": 10, "macrostates": 2, "seed": 1}, protein="p", engine="e",
...     json_path=folder / "metrics.json", csv_path=folder / "metrics.csv", figures_dir=folder / "figures")
>>> record["protein"], record["engine"], record["frames"], sorted(record["metrics"])
('p', 'e', 400, ['we'])
>>> interval = record["metrics"]["we"]["intervals"]["w1"]["tic0"]
>>> bool(interval["low"] <= record["metrics"]["we"]["w1"]["tic0"] <= interval["high"])
True
>>> sorted(path.name for path in folder.glob("metrics.*")), len(record["figures"]["files"]) > 0
(['metrics.csv', 'metrics.json'], True)
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Mapping

import pandas as pd

from westbench.io.frames import read_frames
from westbench.io.records import write_json
from westbench.metrics.engine_scoring import Scored, score_frames

# scripts/macrostates.py imports fit_macrostate_model from here (its old home): editing a script reruns its rule on
# every finished run (westbench._moved), so this path stays importable; everything else imports macrostate_fit.
from westbench.metrics.macrostate_fit import fit_macrostate_model  # noqa: F401
from westbench.metrics.metastable import MacrostateModel
from westbench.metrics.record import finite_or_null

__all__ = ["score_engine"]

log = logging.getLogger("westbench.metrics")


def score_engine(
    groundtruth_frames: str | Path,
    model_frames: str | Path,
    settings: Mapping,
    *,
    protein: str,
    engine: str,
    json_path: str | Path,
    csv_path: str | Path,
    figures_dir: str | Path | None,
    macrostates: str | Path | None = None,
    training_record: str | Path | None = None,
) -> dict:
    """Score an engine's exported frames against the ground truth and write ``metrics.json``, ``metrics.csv``
    and the per-engine figures (into ``figures_dir``; none where it is None).

    Parameters
    ----------
    groundtruth_frames, model_frames : path
        Frames files (:mod:`westbench.io.frames`) with TICs: the ground truth and the engine's export.
    settings : mapping
        The metric suite's ``metrics`` keys with ``weightings`` and the job's ``seed``; the first
        weighting is the figures' and the KL-sensitivity's.
    protein, engine : str
        Written into both files (the caller's identity of the job, not parsed from paths).
    json_path, csv_path : path
        Where ``metrics.json`` and ``metrics.csv`` go.
    figures_dir : path or None
        The folder of the registry's per-engine figures (:mod:`westbench.metrics.figure_list`); None draws none
        (the calibration study's engines: no report shows them, and drawing is a third of a suite's time).
    macrostates : path, optional
        The protein's macrostate model (:func:`westbench.metrics.macrostate_fit.fit_macrostate_model`); fitted here
        when not given.
    training_record : path, optional
        A trained CG engine's model record (``model.json``): its training summary goes into ``metrics.json``
        (``training``), and a run that did not learn (:func:`westbench.cg.train.learned`) is reported as a
        failure to learn (``not_estimable.training``).

    Returns
    -------
    dict
        The record written to ``metrics.json``.
    """
    start = time.perf_counter()
    shared = MacrostateModel.load(macrostates) if macrostates is not None else None
    scored = score_frames(
        read_frames(groundtruth_frames),
        read_frames(model_frames),
        settings,
        protein=protein,
        engine=engine,
        macrostate_model=shared,
        training=_training(training_record),
    )
    if scored.suite is None:
        return _nothing_to_score(scored, json_path, csv_path, figures_dir)
    suite, record = scored.suite, scored.record
    scored.table.to_csv(csv_path, index=False)
    paths = {}
    if figures_dir is not None:
        from westbench.metrics.figures import write_metric_figures  # matplotlib: only a job that draws loads it

        weighting = record["figures"]["weighting"]
        paths = write_metric_figures(
            Path(figures_dir),
            suite.groundtruth,
            suite.model,
            suite.weights(weighting) if weighting not in suite.caveats.reasons else None,
            record["metrics"][weighting],
            scored.labels,
            suite.settings,
            label=engine,
            distributions=(suite.reference, suite.sample),
            caveats=suite.caveats,
            msm_weights=lambda: suite.weights("msm"),
        )  # the suite's MSM, estimated once
    record["figures"]["files"] = sorted(p.name for p in paths.values())
    record["not_estimable"] = dict(sorted(suite.caveats.reasons.items()))  # the figures' caveats too
    write_json(finite_or_null(record), json_path)
    if suite.caveats.reasons:
        log.warning("not estimable: %s", "; ".join(f"{k}: {v}" for k, v in sorted(suite.caveats.reasons.items())))
    log.info("metrics and %d figures written in %.1f s", len(paths), time.perf_counter() - start)
    return finite_or_null(record)


def _training(record_path) -> dict | None:
    """What metrics.json says of a trained engine's training (None for engines that are not trained)."""
    if not record_path:
        return None
    import json

    summary = json.loads(Path(record_path).read_text()).get("training_summary", {})
    keys = (
        "best_epoch",
        "epochs",
        "initial_validation_loss",
        "best_validation_loss",
        "force_noise_floor",
        "stopped_because",
        "relative_drop",
        "min_relative_drop",
    )
    # Training decides whether it learned (westbench.cg.train.learned) and records it; a record without it is older.
    return {"learned": bool(summary.get("learned", False)), **{k: summary.get(k) for k in keys}}


def _nothing_to_score(scored: Scored, json_path, csv_path, figures_dir: str | Path | None) -> dict:
    """Write the record of an engine with no frame left to score, its table (every verdict undetermined, with the
    reason) and, where it draws them, every figure as a placeholder that says why."""
    record = scored.record
    reason = record["not_estimable"]["frames"]
    if figures_dir is not None:
        from westbench.metrics.figures import FIGURES, placeholder

        Path(figures_dir).mkdir(parents=True, exist_ok=True)
        for name, title in FIGURES.items():
            placeholder(Path(figures_dir) / f"{name}.png", title, reason)
        record["figures"]["files"] = sorted(f"{name}.png" for name in FIGURES)
    rows = [
        {
            "protein": record["protein"],
            "engine": record["engine"],
            "weighting": weighting,
            "distribution": "all",
            "metric": "all",
            "value": None,
            "verdict": "undetermined",
            "note": reason,
        }
        for weighting in record["metrics"]
    ]
    pd.DataFrame(rows).to_csv(csv_path, index=False)
    write_json(record, json_path)
    return record
