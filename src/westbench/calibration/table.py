"""The calibration study's one job (:func:`calibration_table`, the workflow's ``calibration_table`` rule): every
engine's scores beside its known answer in one table, the checks read from it and the two figures.

The study reads top to bottom in these modules of :mod:`westbench.calibration`:

1. :mod:`~westbench.calibration.study`: its engines (the reference, its perturbations, the trained presets);
2. :mod:`~westbench.calibration.groundtruth`, :mod:`~westbench.calibration.reweighting` and
   :mod:`~westbench.calibration.known_answer`: the ground truth and each engine's known answer;
3. :mod:`~westbench.calibration.verdicts`: the verdict a known answer predicts, and whether the suite's agrees;
4. :mod:`~westbench.calibration.predictions`: each engine's known answer as the table reads it;
5. :mod:`~westbench.calibration.table_rows`: the table, one row per engine, metric and distribution;
6. :mod:`~westbench.calibration.checks`: the pass/fail checks read from it (the families' ordering in
   :mod:`~westbench.calibration.ordering`, the intervals' coverage in :mod:`~westbench.calibration.coverage`, the
   trained engines in :mod:`~westbench.calibration.training_checks`);
7. :mod:`~westbench.calibration.figures`: the resolution and convergence figures;
8. this module: reads every engine's metrics.json and writes all of the above.

Examples
--------
>>> engine_kind("reference", True, "reference"), engine_kind("friction_x10", True, "reference", ["friction_x10"])
('null', 'dynamics')
>>> engine_kind("cg_fulltrained", False, "reference", trained=["cg_fulltrained"]), engine_kind("mine", False, "ref")
('trained', 'user')
>>> sampling_memory({"resampling": {"model_memory_iterations": 4}}, segment_ps=2.5)
{'iterations': 4, 'ps': 10.0}
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Collection, Mapping, Sequence

import numpy as np
import pandas as pd

from westbench.calibration.checks import checks
from westbench.calibration.figures import convergence_figure, resolution_figure
from westbench.calibration.predictions import engine_answer
from westbench.calibration.table_rows import CHANGE_DEFAULTS, COLUMNS, DISTRIBUTIONS, engine_rows, headline_rows

__all__ = ["calibration_table", "engine_kind", "sampling_memory"]

log = logging.getLogger(__name__)


def engine_kind(
    engine: str, has_answer: bool, reference_engine: str, dynamics_only: Collection[str] = (), trained=()
) -> str:
    """The table's ``kind`` of an engine: with a known answer (``has_answer``) ``null`` (the reference itself),
    ``dynamics`` (it changes only its dynamics: ``dynamics_only``) or ``perturbation`` (of the equilibrium);
    without one ``trained`` (a CG preset: ``trained``) or ``user`` (calibration.engines)."""
    if not has_answer:
        return "trained" if engine in trained else "user"  # a user engine: no known answer
    return "null" if engine == reference_engine else "dynamics" if engine in dynamics_only else "perturbation"


def sampling_memory(record: Mapping, segment_ps: float | None) -> dict:
    """How many WE iterations an engine's run needs to forget itself (its metrics.json ``record``'s
    ``model_memory_iterations``), and that in ps given its WE segment of ``segment_ps`` (None without it)."""
    tau = (record.get("resampling") or {}).get("model_memory_iterations")
    return {"iterations": tau, "ps": None if tau is None or segment_ps is None else round(tau * segment_ps, 3)}


def calibration_table(
    study: str,
    engines: Sequence[str],
    metrics_paths: Sequence[str | Path],
    groundtruth_path,
    reweighting_path,
    reference_engine: str,
    trained_records: Mapping[str, str | Path],
    perturbations: Mapping[str, Mapping],
    null_frames_path,
    table_path,
    summary_path,
    resolution_path,
    convergence_path,
    weighting: str = "we",
    *,
    discard_iterations: float,
    dynamics_only: Sequence[str] = (),
    segment_ps: Mapping[str, float] | None = None,
    run_paths: Sequence[str | Path] = (),
    engine_frames: Mapping[str, str | Path] | None = None,
    known_samples: Mapping[str, str | Path] | None = None,
) -> dict:
    """Write the study's table (CSV), its checks (JSON) and its two figures; return the checks.

    ``reweighting_path``: the ground truth's weights per reference-model engine
    (:func:`westbench.calibration.reweighting.write_reweighting`). ``perturbations``: per engine its changes
    (``temperature_scale``, ``contact_scale``, ``friction_scale``, ``timestep_scale``, ``steps_per_segment``);
    ``dynamics_only``: the engines that change only their dynamics (kind ``dynamics``, expected within noise);
    ``segment_ps``: each engine's WE segment in ps (its sampling speed in ps); ``run_paths``: the ground truth's
    run files in the order of its ``traj`` (their ``start`` attribute: the equilibration check); ``engine_frames``:
    the exported frames of each engine with a prediction (the difference intervals of ``covers``);
    ``known_samples``: the engines whose known answer also rests on their own sample, its weighted frames
    (:func:`westbench.calibration.reweighting.write_reweighting`)."""
    from westbench.io.frames import read_frames

    groundtruth = read_frames(groundtruth_path)
    with np.load(reweighting_path) as data:
        predictions = set(data.files)
    rows, ess, memory, sizes = [], {}, {}, {}
    suite_settings = None
    for engine, path in zip(engines, metrics_paths):
        record = json.loads(Path(path).read_text())
        suite_settings = suite_settings or record.get("settings", {})
        change = {key: perturbations[engine].get(key, CHANGE_DEFAULTS[key]) for key in CHANGE_DEFAULTS}
        predicted, differences, at_size = None, None, None
        if engine in predictions:
            frames, sample = (engine_frames or {}).get(engine), (known_samples or {}).get(engine)
            answer = engine_answer(engine, record, groundtruth, reweighting_path, weighting, sample, frames)
            predicted, differences, at_size = answer.predicted, answer.differences, answer.at_size
            ess[engine], sizes[engine] = answer.effective_frames, answer.at_size_how
        kind = engine_kind(engine, engine in predictions, reference_engine, dynamics_only, trained_records)
        rows += engine_rows(study, engine, kind, change, record, weighting, predicted, differences, at_size)
        memory[engine] = sampling_memory(record, (segment_ps or {}).get(engine))
    table = pd.DataFrame(rows, columns=COLUMNS)
    Path(table_path).parent.mkdir(parents=True, exist_ok=True)
    table.to_csv(table_path, index=False)
    training = {e: json.loads(Path(p).read_text()).get("training_summary", {}) for e, p in trained_records.items()}
    result = checks(table, training)
    # The user's engines (calibration.engines): scored beside the known answers, read by no check.
    result["user_engines"] = [e for e in engines if e not in predictions and e not in trained_records]
    result["known_answer_effective_frames"] = {e: round(v, 1) for e, v in ess.items()}
    # Each known answer as a sample of its engine's size shows it (the answer covers and the lean are read against).
    result["known_answer_at_size"] = sizes
    result["groundtruth_frames"] = int(len(groundtruth["ca"]))
    # Sampling speed, apart from accuracy: how many iterations (and ps) each engine's WE run needs to forget itself.
    result["sampling_memory"] = memory
    if run_paths:
        from westbench.calibration.equilibration import equilibration_check

        starts = [str(read_frames(p).attrs.get("start", "")) for p in run_paths]
        result["groundtruth_equilibrated"] = equilibration_check(groundtruth, starts, suite_settings or {})
    Path(summary_path).parent.mkdir(parents=True, exist_ok=True)
    Path(summary_path).write_text(json.dumps(result, indent=2, sort_keys=True, default=float) + "\n")
    _draw_figures(
        study,
        table,
        groundtruth,
        null_frames_path,
        reference_engine,
        resolution_path,
        convergence_path,
        discard_iterations,
    )
    log.info(
        "calibration %s: %s", study, json.dumps({k: v for k, v in result.items() if k != "training"}, default=float)
    )
    return result


def _draw_figures(
    study, table, groundtruth, null_frames_path, reference_engine, resolution_path, convergence_path, discard
) -> None:
    """The study's resolution figure (its headline rows) and convergence figure (the null engine's frames against
    WE iterations, with the null's floors and its whole-run rows)."""
    from westbench.io.frames import read_frames

    headline = headline_rows(table)
    resolution_figure(headline, resolution_path, title=f"{study}: resolution of the metric suite")
    null_rows = headline[headline["kind"] == "null"].set_index("distribution")
    floors = {name: float(null_rows.loc[name, "floor_high"]) for name in DISTRIBUTIONS if name in null_rows.index}
    convergence_figure(
        groundtruth,
        read_frames(null_frames_path),
        floors,
        convergence_path,
        title=f"{study}: the null engine ({reference_engine}) against WE iterations",
        discard=discard,
        final={name: null_rows.loc[name].to_dict() for name in null_rows.index},
    )
