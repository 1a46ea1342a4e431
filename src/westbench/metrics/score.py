"""Score one engine's frames against the ground truth: ``metrics.json``, ``metrics.csv`` and the figures.

The job of the ``metric_suite`` rule (one protein, one engine). The protein and the engine are
data given by the caller (the rule's wildcards), written into both files. The protein's
macrostate model is the job of rule ``macrostates`` (:func:`fit_macrostate_model`), fitted
once and shared by every engine.

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
import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

import numpy as np
import pandas as pd

from westbench.geometry.sanity import SanityReport, engine_sanity, not_checked
from westbench.io.canonical import canonical_frames
from westbench.io.frames import DROPPED_ATTR, ok_frames, read_frames
from westbench.io.records import write_json
from westbench.metrics.divergences import kl_2d
from westbench.metrics.estimability import NotEstimable
from westbench.metrics.metastable import MacrostateEstimator, MacrostateModel
from westbench.metrics.noise_floor import UNDETERMINED, WITHIN_NOISE
from westbench.metrics.record import empty_record, make_record
from westbench.metrics.settings import MetricSettings
from westbench.metrics.suite import DEFAULTS, MetricSuite, simulated_time_ps
from westbench.presentation.training import failure_to_learn

log = logging.getLogger("westbench.metrics")

REDUCED_MACROSTATES = (
    "the ground truth's cluster MSM resolves fewer metastable sets than requested "
    "(too few frames or transitions); PCCA+ used the largest count it supports"
)
#: The frames-file attribute with the count of frames dropped for non-finite coordinates (on_nonfinite: drop).
NONFINITE_DROPPED = DROPPED_ATTR


def fit_macrostate_model(
    groundtruth_frames: str | Path, settings: Mapping, seed: int, path: str | Path
) -> MacrostateModel:
    """The protein's ground-truth macrostate model (rule ``macrostates``): KMeans (``macrostate_clusters`` on the
    first ``macrostate_dim`` TICs), a reversible MSM at ``msm_lag``, PCCA+ into ``macrostates`` sets; saved to
    ``path`` (:meth:`MacrostateModel.save`) with the seed and settings.

    Examples
    --------
    >>> import numpy as np, tempfile
    >>> from westbench.io.frames import write_frames
    >>> folder = Path(tempfile.mkdtemp())
    >>> centre = np.repeat(np.tile([0.0, 3.0], 5), 100)
    >>> write_frames(folder / "gt.h5", ca=np.zeros((1000, 3, 3)), time_ps=np.arange(1000.0), traj=np.zeros(1000, int),
    ...              tics=centre[:, None] + np.random.default_rng(0).normal(0, 0.1, (1000, 2)))
    >>> model = fit_macrostate_model(folder / "gt.h5", {"macrostate_clusters": 10, "macrostates": 2}, 1,
    ...                              folder / "macrostates.npz")
    >>> model.n_macrostates, MacrostateModel.load(folder / "macrostates.npz").n_macrostates
    (2, 2)
    """
    s = MetricSettings.of(settings)
    frames = canonical_frames(read_frames(groundtruth_frames))  # the frames the suite scores (io.canonical)
    model = MacrostateEstimator(s.macrostate_clusters, s.macrostates, s.msm_lag, s.macrostate_dim, int(seed)).fit(
        frames["tics"], frames["traj"]
    )
    model.save(
        path,
        seed=int(seed),
        settings={k: getattr(s, k) for k in ("macrostate_clusters", "macrostates", "macrostate_dim", "msm_lag")},
    )
    log.info(
        "macrostates: %d of %d requested from %d ground-truth frames%s",
        model.n_macrostates,
        s.macrostates,
        len(frames["tics"]),
        f" ({model.why})" if model.why else "",
    )
    return model


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
    figures): what :func:`score_engine` writes, and what the scoring contract
    (:mod:`westbench.metrics.contract`) checks.

    ``training``: a trained CG engine's training summary (:func:`_training`), reported with the scores.
    """
    settings = dict(settings)
    MetricSettings.of(settings)  # an unknown key fails here, naming the schema's keys, before any work
    weightings = list(settings.pop("weightings", DEFAULTS.weightings))
    start = time.perf_counter()
    exported = canonical_frames(exported)  # copies of a frame and weightless rows are no frames (io.canonical)
    model = ok_frames(exported)  # segments of walkers a CG engine ended (exploded, imploded) are left out
    left_out = len(exported["ca"]) - len(model["ca"])
    if left_out:
        log.warning("%d of %d frames left out: segments of walkers the engine ended", left_out, len(exported["ca"]))
    dropped = int(getattr(exported, "attrs", {}).get(NONFINITE_DROPPED, 0) or 0)
    exported_weight = float(np.sum(exported["weight"])) if "weight" in exported else 0.0
    weight_left_out = (
        max(0.0, 1.0 - float(np.sum(model["weight"])) / exported_weight) if left_out and exported_weight > 0 else 0.0
    )
    if not len(model["ca"]):
        return Scored(None, _empty_record(protein, engine, weightings, settings, len(exported["ca"]), dropped), None)
    shared = macrostate_model
    suite = MetricSuite(groundtruth, model, settings, macrostate_model=shared)
    if training and not training["learned"]:
        suite.caveats.add("training", failure_to_learn(training, "caveat"))  # the training curve's owner too
    if weight_left_out > 0:
        suite.caveats.add(
            "ended_walkers",
            f"{100 * weight_left_out:.3g} % of the exported weight ({left_out} frames) belongs to walkers the engine "
            "ended (exploded or imploded): the scores describe the rest, so they flatter the engine by that much",
        )
    if dropped:
        suite.caveats.add(
            "nonfinite", f"{dropped} frames with non-finite coordinates were dropped at import (on_nonfinite: drop)"
        )
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
        tables += [
            undetermined_if_insane(values, table, sanity),
            pd.DataFrame(
                [
                    {
                        "weighting": weighting,
                        "distribution": "macrostates",
                        "metric": "total_variation",
                        "value": values["macrostate_populations"]["total_variation"],
                        "note": suite.caveats.reasons.get("macrostates", ""),
                    }
                ]
            ),
        ]
    longest, aggregate = simulated_time_ps(suite.model)
    tables.append(
        pd.DataFrame(
            [
                {"weighting": "", "distribution": "time", "metric": "longest_simulated_ps", "value": longest},
                {"weighting": "", "distribution": "time", "metric": "aggregate_simulated_ps", "value": aggregate},
                {"weighting": "", "distribution": "macrostates", "metric": "n_used", "value": labels["n_macrostates"]},
                sanity_row(sanity),
            ]
        )
    )
    table = pd.concat([t for t in tables if len(t)], ignore_index=True)
    table.insert(0, "engine", engine)
    table.insert(0, "protein", protein)
    figure_weighting = next((w for w in weightings if w not in suite.caveats.reasons), weightings[0])
    s = suite.settings  # the given settings over the suite's defaults
    figure_weights = suite.weights(figure_weighting) if figure_weighting not in suite.caveats.reasons else None
    kl_by_bins = {}
    if figure_weights is not None:
        gt_tics, model_tics = suite.groundtruth["tics"][:, :2], suite.model["tics"][:, :2]
        kl_by_bins = {
            int(b): _finite(kl_2d(gt_tics, model_tics, suite.groundtruth_weights, figure_weights, b, s.kl_floor))
            for b in s.kl_sensitivity_bins
        }
    requested, used = s.macrostates, labels["n_macrostates"]
    record = make_record(
        protein=protein,
        engine=engine,
        frames=len(suite.model["ca"]),
        discarded_iterations=suite.discarded_iterations,
        simulated_ps={"longest": longest, "aggregate": aggregate},
        macrostates={
            "requested": requested,
            "used": used,
            "reduced": used < requested,
            "why": ""
            if used >= requested
            else (shared.why if shared is not None and shared.why else REDUCED_MACROSTATES),
            "shared_model": macrostate_model is not None,
        },
        kl_tic01_by_bins={"weighting": figure_weighting, "values": kl_by_bins},
        frames_left_out=left_out,
        weight_left_out=weight_left_out,
        **{NONFINITE_DROPPED: dropped},
        groundtruth_frames=len(suite.groundtruth["ca"]),
        resampling={
            "groundtruth": suite.groundtruth_unit_kind,
            "model": suite.model_unit_kind,
            "replicates": int(s.bootstrap),
            "model_memory_iterations": None if suite.model_memory is None else round(suite.model_memory, 3),
            "method": "BCa, widened for few units",
            "level": 0.95,
        },
        noise_floor=results[weightings[0]].get("noise_floor") or {},
        training=training or None,
        not_estimable=dict(sorted(suite.caveats.reasons.items())),
        sanity=sanity.to_dict(),
        settings=settings,
        figures={"weighting": figure_weighting, "files": []},
        metrics=results,
    )
    if suite.caveats.reasons:
        log.warning("not estimable: %s", "; ".join(f"{k}: {v}" for k, v in sorted(suite.caveats.reasons.items())))
    log.info("%s %s scored in %.1f s", protein, engine, time.perf_counter() - start)
    return Scored(suite, record, table, labels)


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
        The protein's macrostate model (:func:`fit_macrostate_model`); fitted here when not given.
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


def _empty_record(protein: str, engine: str, weightings: list, settings: Mapping, exported: int, dropped: int) -> dict:
    """The record of an engine with no frame left to score (every walker ended): every value null, the reason
    recorded."""
    reason = (
        f"no frame to score: all {exported} exported frames belong to walkers the engine ended (exploded or imploded)"
        if exported
        else "no frame to score: the engine exported none"
    )
    log.warning("%s %s: %s", protein, engine, reason)
    return empty_record(
        weightings,
        reason,
        protein=protein,
        engine=engine,
        macrostates={
            "requested": MetricSettings.of(settings).macrostates,
            "used": 0,
            "reduced": True,
            "why": reason,
            "shared_model": False,
        },
        kl_tic01_by_bins={"weighting": weightings[0], "values": {}},
        frames_left_out=exported,
        **{NONFINITE_DROPPED: dropped},
        sanity=not_checked(reason).to_dict(),
        settings=settings,
        figures={"weighting": weightings[0], "files": []},
    )


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


def check_sanity(suite: MetricSuite) -> SanityReport:
    """The engine's sanity checks (:func:`westbench.geometry.sanity.engine_sanity`) on the frames the suite scores,
    under their WE weights (the exported ones; every frame once where they are not a distribution); each failed
    check is logged and recorded as a caveat (``sanity/<check>``)."""
    try:
        weights = suite.weights("we")
    except NotEstimable:
        weights = suite.weights("counts")
    report = engine_sanity(suite.groundtruth, suite.model, weights)
    for name in report.failed:
        message = report.checks[name].message
        log.warning("engine sanity: %s failed: %s", name, message)
        suite.caveats.add(f"sanity/{name}", f"failed engine sanity check {name}: {message}")
    return report


def undetermined_if_insane(values: dict, table: pd.DataFrame, sanity: SanityReport) -> pd.DataFrame:
    """Where the engine failed a sanity check, every verdict that would read *within noise* becomes *undetermined*
    with the failure as its reason (in ``values`` and in the tidy ``table``, which is returned); *separated* stays.

    Agreement within noise is no evidence for an engine that is not the protein (a mirror image has the ground
    truth's TICs; a few frames repeated can sit inside a small ground truth's floor): it must never read as fine.
    A separated verdict stays true of such an engine. The values, intervals and floors are kept.

    Examples
    --------
    >>> from westbench.geometry.sanity import Check, SanityReport
    >>> failed = SanityReport({"units": Check(False, 38.2, "3.3-4.3 Å", "median bond 38.2 Å")})
    >>> values = {"verdicts": {"w1": {"rg": "separated", "tic0": "within noise"}}, "verdict_notes": {"w1": {}}}
    >>> table = pd.DataFrame({"distribution": ["rg", "tic0"], "metric": ["w1", "w1"],
    ...                       "verdict": ["separated", "within noise"], "note": ["", ""]})
    >>> undetermined_if_insane(values, table, failed)["verdict"].tolist(), values["verdicts"]["w1"]["tic0"]
    (['separated', 'undetermined'], 'undetermined')
    """
    if sanity.passed:
        return table
    why = f"the engine {sanity.reason()}: agreement within noise is no evidence for an engine that is not the protein"
    for metric, verdicts in values.get("verdicts", {}).items():
        for name, decided in verdicts.items():
            if decided == WITHIN_NOISE:
                verdicts[name] = UNDETERMINED
                values.setdefault("verdict_notes", {}).setdefault(metric, {})[name] = why
    if "verdict" in table:
        within = (table["verdict"] == WITHIN_NOISE).to_numpy()
        table = table.copy()
        notes = table["note"].astype(object).where(table["note"].notna(), "") if "note" in table else None
        table.loc[within, "verdict"] = UNDETERMINED
        table.loc[within, "note"] = [
            why if notes is None or not notes[i] else f"{why}; {notes[i]}" for i in table.index[within]
        ]
    return table


def sanity_row(sanity: SanityReport) -> dict:
    """The tidy ``metrics.csv`` row of the sanity checks: ``note`` the failed checks, ";"-joined ("" when none),
    ``value`` their count (the tables' ``sanity_failed`` column, :func:`westbench.metrics.tables.divergence_table`)."""
    return {
        "weighting": "",
        "distribution": "sanity",
        "metric": "failed",
        "value": float(len(sanity.failed)),
        "note": ";".join(sanity.failed),
    }


def finite_or_null(value):
    """``value`` with every non-finite float replaced by None (JSON null, never NaN), recursively.

    Examples
    --------
    >>> finite_or_null({"a": [1.0, float("nan")], "b": {"c": float("inf")}})
    {'a': [1.0, None], 'b': {'c': None}}
    """
    if isinstance(value, dict):
        return {k: finite_or_null(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite_or_null(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _finite(value):
    return float(value) if value is not None and math.isfinite(value) else None


def _shown(value) -> str:
    return "not estimable" if value is None else f"{value:.4g}"
