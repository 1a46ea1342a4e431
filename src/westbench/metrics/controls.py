"""Negative and positive controls inside every run: engines whose answer is known, made from the run's own ground
truth (no new MD) and scored with the same metric suite, and the run's resolution from them.

A verdict *within noise* says nothing unless the run could have told: with 60 ground-truth frames an engine that
is one frame repeated, or the mirror-image protein, comes out within noise on many cells. The controls measure what
this run's ground truth can separate:

- negative controls (``kind`` ``null``, expected *within noise*): ``null``, a random half of the ground truth's
  independent runs scored against the other half; ``rigid``, that half rigidly moved (nothing a score sees);
- known-bad engines (``kind`` ``failure``, expected *separated* on the distributions they move): ``collapse`` (a
  few frames repeated), ``mirror`` (x -> -x: only the dihedrals see it), ``scale`` (coordinates times a factor:
  10 is Angstrom read as nm), ``shift`` (TIC 0 moved by graded multiples of the ground truth's TIC-0 standard
  deviation), ``spread`` (TIC deviations broadened or narrowed), ``temperature`` (the weights of a flatter or
  sharper equilibrium along TIC 0/1), ``missing_state`` (one metastable state's frames removed) and ``noise``
  (Gaussian noise on the coordinates). :mod:`westbench.metrics.control_engines` makes them.

The reference, and why: a seeded random half of the ground truth's independent units (runs) is the reference; every
control is made from the other half. A control is then an independent sample of the ground truth's equilibrium, as
a real engine is, with an independent sample's finite-sample excess; a control made from frames of its own
reference lacks that excess (the null against the full ground truth could never fail, and every fault would read
closer than a real engine's). The price is a reference with half the runs: its noise floors and intervals are wider
than those a real engine meets against the full ground truth, so the resolution is conservative (what is separated
here would be separated against the full ground truth; what is within noise here might not be). Every control shares
the one reference, so each noise floor is computed once (``MetricSuite(floors=...)``).

Result (:class:`RunResolution`, written by :func:`run_controls` as ``controls.json`` and ``controls.csv``):
per control its cells (every W1 and KL with its interval, floor, verdict and note) and whether the run detected
it; ``detects`` (failure mode -> yes / no / cannot tell); ``resolution`` (per metric and distribution the smallest
control value separated, the largest within noise, and whether any known-bad control that moves it was separated).
:func:`read_controls` reads the file for the report.

Examples
--------
>>> import numpy as np
>>> from westbench.io.frames import Frames
>>> rng = np.random.default_rng(0)
>>> runs, per_run = 16, 60
>>> frames = Frames(ca=np.cumsum(rng.normal(0, 0.2, (runs * per_run, 6, 3)), axis=1).astype(np.float32),
...                 tics=rng.normal(size=(runs * per_run, 4)), weight=np.full(runs * per_run, 1.0),
...                 traj=np.repeat(np.arange(runs), per_run), time_ps=np.tile(np.arange(per_run, dtype=float), runs),
...                 iteration=np.zeros(runs * per_run, int))
>>> frames.attrs = {}
>>> estimator = ControlsEstimator({"kinds": ["null_half", "shift"], "tic0_shifts": [3.0]}, {"bootstrap": 50}, seed=1)
>>> result = estimator.fit(frames)
>>> [c["name"] for c in result.controls], result.detects
(['null_half', 'shift_tic0_3sd'], {'shift along TIC 0 by 3 sd': 'yes'})
>>> result.negatives["null_half"]["within_noise"], result.resolution["w1"]["tic0"]["resolved"]
(True, True)
"""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path
from typing import Mapping

import numpy as np

from westbench.config import section_defaults
from westbench.errors import WestbenchError
from westbench.geometry.sanity import engine_sanity
from westbench.metrics import control_engines as engines
from westbench.metrics.control_results import DETECTS, RunResolution, cells_of, detected
from westbench.metrics.control_sanity import sanity_over_splits, split_rotations
from westbench.metrics.control_specs import Context, ControlSpec, control_specs
from westbench.metrics.resampling import resampling_units
from westbench.metrics.settings import MetricSettings
from westbench.metrics.suite import DEFAULTS as SUITE_DEFAULTS
from westbench.metrics.suite import MetricSuite
from westbench.seeds import derive_seed

log = logging.getLogger(__name__)

#: The weighting every control is scored under: the frames' own weights (the ground truth's, or a reweighting's).
WEIGHTING = "we"


def split_units(groundtruth: Mapping, seed: int) -> tuple[np.ndarray, np.ndarray, str]:
    """The reference's frames (a seeded random half of the independent units, the larger half when odd), the
    source's frames (the rest) as boolean masks, and what a unit is.

    Examples
    --------
    >>> reference, source, units = split_units({"traj": np.repeat(np.arange(5), 2)}, seed=0)
    >>> int(reference.sum()), int(source.sum()), bool(np.any(reference & source)), units
    (6, 4, False, '5 runs')
    """
    units, description = resampling_units(groundtruth)
    reference = split_rotations(units, seed, splits=1)[0]  # the first of the sanity checks' splits: one owner
    return reference, ~reference, description


class ControlsEstimator:
    """Make the run's controls from its ground truth and score each with the metric suite.

    Parameters
    ----------
    settings : mapping, optional
        The ``controls`` config section (schema defaults for keys not given; ``enabled`` is the workflow's).
    metric_settings : mapping, optional
        The ``metrics`` keys the suite reads (its defaults for keys not given; ``bootstrap`` 0 gives no interval).
    seed : int
        The job's seed; the split, the controls and the suite's bootstrap and floors derive theirs from it.
    """

    def __init__(self, settings: Mapping | None = None, metric_settings: Mapping | None = None, *, seed: int):
        self.settings = {**section_defaults("controls"), **(settings or {})}
        self.metric_settings = dict(metric_settings or {})
        self.seed = int(seed)
        self.specs = control_specs(self.settings)

    def fit(self, groundtruth: Mapping, tica_model=None, macrostate_model=None) -> RunResolution:
        """Score every control against a random half of ``groundtruth`` (frames with ``tics``).

        ``tica_model`` (:class:`westbench.tica.model.TicaModel`) projects the TICs of controls that move
        coordinates (without it those controls are not made, with the reason); ``macrostate_model``
        (:class:`westbench.metrics.metastable.MacrostateModel`) gives the missing state (the far end of TIC 0
        without it).
        """
        start = time.perf_counter()
        frames = engines.kept(groundtruth)
        reference_rows, source_rows, unit_kind = split_units(frames, self.seed)
        units = resampling_units(frames)[0]
        n_units = int(units.max()) + 1 if len(units) else 0
        reference, source = engines.kept(frames, reference_rows), engines.kept(frames, source_rows)
        tic0 = np.asarray(frames["tics"])[:, :1]
        _, sd = engines.weighted_mean_sd(tic0, frames["weight"])
        spread = float(sd[0]) if len(tic0) and np.ptp(tic0) > 0 else 0.0  # equal values: none, not rounding's
        context = Context(tica_model, macrostate_model, spread, self.seed)
        suite_settings = MetricSettings.of(
            {**SUITE_DEFAULTS.as_dict(), **self.metric_settings, "seed": derive_seed(self.seed, "suite")}
        )
        floors: dict = {}  # every control has the one reference: each noise floor is computed once
        too_few = ""
        if n_units < 2:
            too_few = (
                f"the ground truth has {unit_kind}: controls need at least 2 independent units (one half the "
                "reference, the other made into the controls), and intervals at least 6 (3 a side)"
            )
        controls = []
        for spec in self.specs:
            record = blank_record(spec, too_few)
            controls.append(record)
            if not too_few:
                score_control(record, spec, reference, source, context, suite_settings, floors)
                log.info(
                    "control %s: %s (%d frames, %.1f s so far)",
                    spec.name,
                    DETECTS[record["detected"]],
                    record["frames"],
                    time.perf_counter() - start,
                )
        if not too_few:  # the sanity verdicts over several splits: one split answers for one choice of runs
            sanity_over_splits(self.specs, controls, frames, units, context, self.seed)
        n_reference, n_source = len(np.unique(units[reference_rows])), len(np.unique(units[source_rows]))
        settings = {
            "controls": self.settings,
            "metrics": {k: v for k, v in sorted(suite_settings.as_dict().items()) if k in self.metric_settings},
            "seed": self.seed,
            "weighting": WEIGHTING,
            "units": unit_kind,
            "reference_units": n_reference,
            "control_units": n_source,
            "reference_frames": int(reference_rows.sum()),
            "control_source_frames": int(source_rows.sum()),
            "tic0_sd": round(context.tic0_sd, 6),
        }
        return RunResolution(
            reference_description(unit_kind, n_reference, n_source, n_units),
            controls,
            settings,
            time.perf_counter() - start,
        )


def reference_description(unit_kind: str, n_reference: int, n_source: int, n_units: int) -> str:
    """How the controls' reference was made and which way that biases the resolution (``controls.json``)."""
    return (
        f"A seeded random half of the ground truth's {unit_kind}: {n_reference} of {n_units} are the reference, "
        f"the other {n_source} are made into every control, so each control is an independent sample of the ground "
        "truth's equilibrium as a real engine is (a control made from its own reference's frames lacks an "
        "independent sample's finite-sample excess: the null could not fail and every fault would read closer than "
        "a real engine's). The reference has about half the ground truth's units, so its noise floors and intervals "
        "are wider than those a real engine meets against the full ground truth: this resolution is conservative "
        "(what is separated here would be separated there; what is within noise here might not be)."
    )


def blank_record(spec: ControlSpec, note: str) -> dict:
    """A control's record before it is scored: what it is, no cells, not detected (``note``: why, when it will not
    be scored)."""
    return {
        "name": spec.name,
        "family": spec.family,
        "kind": spec.kind,
        "failure_mode": spec.failure_mode,
        "description": spec.description,
        "expected": spec.expected,
        "moves": list(spec.moves),
        "effect": spec.effect,
        "made": "",
        "frames": 0,
        "effective_frames": None,
        "note": note,
        "cells": {},
        "detected": None,
        "sanity_failed": [],
    }


def score_control(
    record: dict, spec: ControlSpec, reference, source, context: Context, settings: MetricSettings, floors: dict
) -> None:
    """Make one control from the ``source`` half, score it against ``reference`` with the metric suite (floors
    shared through ``floors``) and fill its ``record``: cells, detection, and the engine sanity checks it fails
    (:func:`westbench.geometry.sanity.engine_sanity`, which catch some failures whatever the ground truth's size)."""
    try:
        made, record["made"] = spec.make(source, context)
        suite = MetricSuite(reference, made, settings, floors=floors)
    except WestbenchError as exc:
        record["note"] = f"not made: {exc}"
        log.warning("control %s not made: %s", spec.name, exc)
        return
    values, _ = suite.score(WEIGHTING)
    record["frames"] = len(suite.model["ca"])
    record["effective_frames"] = values.get("effective_frames")
    record["cells"] = cells_of(values, suite.binned.keys)
    record["moves"] = [name for name in spec.moves if name in suite.names or name == "tic01"]
    record["note"] = "; ".join(sorted(set(suite.caveats.reasons.values())))
    record["detected"] = detected(record["cells"], record["moves"], spec.kind)
    record["sanity_failed"] = engine_sanity(suite.groundtruth, suite.model, suite.weights(WEIGHTING)).failed


def run_controls(
    groundtruth_frames: str | Path,
    tica_model: str | Path | None,
    macrostates: str | Path | None,
    settings: Mapping,
    metric_settings: Mapping,
    seed: int,
    *,
    protein: str,
    json_path: str | Path,
    csv_path: str | Path,
) -> dict:
    """The controls of one protein (rule ``controls``): read the ground truth and the models, fit, write
    ``controls.json`` (:meth:`RunResolution.to_dict`) and ``controls.csv`` (:meth:`RunResolution.table`).

    Examples
    --------
    >>> import tempfile
    >>> from westbench.io.frames import write_frames
    >>> folder = Path(tempfile.mkdtemp())
    >>> rng = np.random.default_rng(0)
    >>> write_frames(folder / "gt.h5", ca=np.cumsum(rng.normal(0, 0.2, (40, 5, 3)), axis=1), time_ps=np.arange(40.0),
    ...              traj=np.repeat(np.arange(4), 10), tics=rng.normal(size=(40, 4)))
    >>> record = run_controls(folder / "gt.h5", None, None, {"kinds": ["null_half", "shift"]}, {}, 7, protein="p",
    ...                       json_path=folder / "controls.json", csv_path=folder / "controls.csv")
    >>> read_controls(folder / "controls.json")["protein"], sorted(record["detects"].values())[0]
    ('p', 'cannot tell')
    """
    from westbench.io.frames import read_frames
    from westbench.io.records import write_json
    from westbench.metrics.metastable import MacrostateModel
    from westbench.metrics.record import finite_or_null
    from westbench.tica.model import TicaModel

    result = ControlsEstimator(settings, metric_settings, seed=seed).fit(
        read_frames(groundtruth_frames),
        TicaModel.load(tica_model) if tica_model is not None else None,
        MacrostateModel.load(macrostates) if macrostates is not None else None,
    )
    record = finite_or_null(result.to_dict(protein))
    write_json(record, json_path)
    result.table(protein).to_csv(csv_path, index=False)
    for line in result.lines():
        log.info("%s: %s", protein, line)
    log.info("%s: %d controls in %.1f s", protein, len(result.controls), result.seconds)
    return record


def read_controls(path: str | Path | None) -> dict | None:
    """A protein's ``controls.json`` as written by :func:`run_controls`; None when there is no such file (controls
    disabled, or a run from before them).

    Examples
    --------
    >>> read_controls("no/such/controls.json") is None
    True
    """
    if path is None or not Path(path).is_file():
        return None
    return json.loads(Path(path).read_text())
