"""One engine's frames scored against the ground truth in memory: every number of ``metrics.json`` and the tidy
table of ``metrics.csv``, no file written and no figure drawn (:func:`westbench.metrics.score.score_engine` writes
them; the scoring contract, :mod:`westbench.metrics.contract`, checks them).

:func:`score_frames` runs the steps in order, each building one part of the record: the frames to score
(:mod:`westbench.metrics.record_parts`), the suite with its caveats, the sanity checks
(:mod:`westbench.metrics.sanity_verdicts`), each weighting's scores (:meth:`MetricSuite.score`) and their rows, the
run's rows, then the frames, macrostates, KL sensitivity and resampling fields; :func:`make_record` assembles them in
the order :mod:`westbench.metrics.record` declares.

Examples
--------
>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> def frames(n=200):
...     return {"ca": np.cumsum(rng.normal(0, 0.2, (n, 6, 3)), axis=1), "weight": np.full(n, 1 / n),
...             "traj": np.repeat(np.arange(4), n // 4), "time_ps": np.arange(float(n)),
...             "iteration": np.ones(n, int), "tics": rng.normal(0, 1, (n, 2))}
>>> scored = score_frames(frames(), frames(), {"weightings": ["counts"], "bootstrap": 0, "macrostate_clusters": 5,
...                       "macrostates": 2, "seed": 1}, protein="p", engine="e")
>>> scored.record["frames"], list(scored.table.columns[:2]), sorted(scored.record["metrics"])
(200, ['protein', 'engine'], ['counts'])
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Mapping

import pandas as pd

from westbench.geometry.sanity import SanityReport
from westbench.metrics.metastable import MacrostateModel
from westbench.metrics.record import make_record
from westbench.metrics.record_parts import (
    ExportedFrames,
    exported_frames,
    figure_weighting,
    frame_fields,
    kl_tic01_by_bins,
    macrostates_field,
    nothing_to_score_record,
    resampling_field,
)
from westbench.metrics.sanity_verdicts import check_sanity, sanity_row, undetermined_if_insane
from westbench.metrics.settings import MetricSettings
from westbench.metrics.suite import DEFAULTS, MetricSuite
from westbench.metrics.suite_frames import simulated_time_ps
from westbench.presentation.training import failure_to_learn

__all__ = ["Scored", "score_frames"]

log = logging.getLogger("westbench.metrics")


@dataclass
class Scored:
    """What :func:`score_frames` gives: the suite (None when no frame was left to score), the record of
    ``metrics.json``, the tidy table of ``metrics.csv`` and the frames' macrostate labels."""

    suite: MetricSuite | None
    record: dict
    table: pd.DataFrame | None
    labels: Mapping | None = None


def score_frames(
    groundtruth: Mapping,
    exported: Mapping,
    settings: Mapping,
    *,
    protein: str,
    engine: str,
    macrostate_model: MacrostateModel | None = None,
    training: Mapping | None = None,
) -> Scored:
    """Every number of ``metrics.json`` for an engine's frames against the ground truth, in memory (no files, no
    figures): what :func:`westbench.metrics.score.score_engine` writes, and what the scoring contract
    (:mod:`westbench.metrics.contract`) checks.

    ``training``: a trained CG engine's training summary (``model.json``'s, as ``score_engine`` reads it),
    reported with the scores.
    """
    settings = dict(settings)
    MetricSettings.of(settings)  # an unknown key fails here, naming the schema's keys, before any work
    weightings = list(settings.pop("weightings", DEFAULTS.weightings))
    start = time.perf_counter()
    frames = exported_frames(exported)
    if not len(frames.frames["ca"]):
        return Scored(None, nothing_to_score_record(protein, engine, weightings, settings, frames), None)
    suite = _suite(groundtruth, frames, settings, macrostate_model, training)
    sanity = check_sanity(suite)
    log.info(
        "%s %s: features of %d model and %d ground-truth frames in %.1f s; bootstrap units: ground truth %s, model %s",
        protein,
        engine,
        len(suite.model["ca"]),
        len(suite.groundtruth["ca"]),
        time.perf_counter() - start,
        suite.groundtruth_unit_kind,
        suite.model_unit_kind,
    )
    labels = suite.macrostates()
    log.info("macrostates: %d (%.1f s so far)", labels["n_macrostates"], time.perf_counter() - start)
    results, tables = _score_weightings(suite, weightings, labels, sanity, start)
    simulated = simulated_time_ps(suite.model)
    table = _tidy(tables + [_run_rows(simulated, labels["n_macrostates"], sanity)], protein, engine)
    figures_weighting = figure_weighting(suite, weightings)
    record = make_record(
        protein=protein,
        engine=engine,
        **frame_fields(suite, frames, simulated),
        macrostates=macrostates_field(suite.settings.macrostates, labels["n_macrostates"], macrostate_model),
        kl_tic01_by_bins=kl_tic01_by_bins(suite, figures_weighting),
        resampling=resampling_field(suite),
        noise_floor=results[weightings[0]].get("noise_floor") or {},
        training=training or None,
        not_estimable=dict(sorted(suite.caveats.reasons.items())),
        sanity=sanity.to_dict(),
        settings=settings,
        figures={"weighting": figures_weighting, "files": []},
        metrics=results,
    )
    if suite.caveats.reasons:
        log.warning("not estimable: %s", "; ".join(f"{k}: {v}" for k, v in sorted(suite.caveats.reasons.items())))
    log.info("%s %s scored in %.1f s", protein, engine, time.perf_counter() - start)
    return Scored(suite, record, table, labels)


def _suite(
    groundtruth: Mapping,
    frames: ExportedFrames,
    settings: Mapping,
    macrostate_model: MacrostateModel | None,
    training: Mapping | None,
) -> MetricSuite:
    """The metric suite of the frames to score, with the caveats known before scoring: a failure to learn, the
    weight of ended walkers left out, frames with non-finite coordinates dropped at import."""
    suite = MetricSuite(groundtruth, frames.frames, settings, macrostate_model=macrostate_model)
    if training and not training["learned"]:
        suite.caveats.add("training", failure_to_learn(training, "caveat"))  # the training curve's owner too
    if frames.weight_left_out > 0:
        suite.caveats.add(
            "ended_walkers",
            f"{100 * frames.weight_left_out:.3g} % of the exported weight ({frames.left_out} frames) belongs to "
            "walkers the engine ended (exploded or imploded): the scores describe the rest, so they flatter the "
            "engine by that much",
        )
    if frames.dropped:
        suite.caveats.add(
            "nonfinite",
            f"{frames.dropped} frames with non-finite coordinates were dropped at import (on_nonfinite: drop)",
        )
    return suite


def _score_weightings(
    suite: MetricSuite, weightings: list[str], labels: Mapping, sanity: SanityReport, start: float
) -> tuple[dict, list[pd.DataFrame]]:
    """Each weighting's scores (the record's ``metrics``, :meth:`MetricSuite.score` with the model's macrostate
    populations) and its tidy rows, every verdict that would read *within noise* undetermined where the engine
    failed a sanity check (:func:`westbench.metrics.sanity_verdicts.undetermined_if_insane`)."""
    results, tables = {}, []
    for weighting in weightings:
        values, table = suite.score(weighting)
        log.info(
            "weighting %s: W1(TIC 0) %s, KL(TIC 0/1) %s, coverage %s (%.1f s so far)",
            weighting,
            _shown(values["w1"].get("tic0")),
            _shown(values["kl"].get("tic01")),
            _shown(values["coverage"]),
            time.perf_counter() - start,
        )
        values["macrostate_populations"] = suite.macrostate_populations(labels, weighting)
        results[weighting] = values
        total_variation = {
            "weighting": weighting,
            "distribution": "macrostates",
            "metric": "total_variation",
            "value": values["macrostate_populations"]["total_variation"],
            "note": suite.caveats.reasons.get("macrostates", ""),
        }
        tables += [undetermined_if_insane(values, table, sanity), pd.DataFrame([total_variation])]
    return results, tables


def _run_rows(simulated_ps: tuple[float, float], n_macrostates: int, sanity: SanityReport) -> pd.DataFrame:
    """The tidy rows of the run as a whole: its simulated time, the macrostates used and the sanity checks."""
    longest, aggregate = simulated_ps
    return pd.DataFrame(
        [
            {"weighting": "", "distribution": "time", "metric": "longest_simulated_ps", "value": longest},
            {"weighting": "", "distribution": "time", "metric": "aggregate_simulated_ps", "value": aggregate},
            {"weighting": "", "distribution": "macrostates", "metric": "n_used", "value": n_macrostates},
            sanity_row(sanity),
        ]
    )


def _tidy(tables: list[pd.DataFrame], protein: str, engine: str) -> pd.DataFrame:
    """The ``metrics.csv`` table: the non-empty tables one after another, led by the ``protein`` and ``engine``
    columns."""
    table = pd.concat([t for t in tables if len(t)], ignore_index=True)
    table.insert(0, "engine", engine)
    table.insert(0, "protein", protein)
    return table


def _shown(value) -> str:
    return "not estimable" if value is None else f"{value:.4g}"
