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
import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping

import numpy as np
import pandas as pd

from westbench.config import section_defaults
from westbench.errors import ConfigError, WestbenchError
from westbench.io.frames import Frames
from westbench.metrics import control_engines as engines
from westbench.metrics.noise_floor import SEPARATED, UNDETERMINED, WITHIN_NOISE
from westbench.metrics.resampling import resampling_units
from westbench.metrics.suite import DEFAULTS as SUITE_DEFAULTS
from westbench.metrics.suite import MetricSuite
from westbench.seeds import derive_seed

log = logging.getLogger(__name__)

#: The control families, in the order they are scored (``controls.kinds`` picks among them).
KINDS = (
    "null_half",
    "rigid",
    "collapse",
    "mirror",
    "scale",
    "shift",
    "spread",
    "temperature",
    "missing_state",
    "noise",
)
#: The weighting every control is scored under: the frames' own weights (the ground truth's, or a reweighting's).
WEIGHTING = "we"
#: The JSON keys of a control's cell.
CELL_KEYS = ("value", "low", "high", "floor_high", "verdict", "note")
#: The columns of ``controls.csv``.
TABLE_COLUMNS = [
    "protein",
    "control",
    "kind",
    "failure_mode",
    "expected",
    "detected",
    "moves",
    "metric",
    "distribution",
    "value",
    "low",
    "high",
    "floor_high",
    "verdict",
    "note",
]
#: Gaussian noise (nm) on each row of the collapsed control: a stuck engine's frames are close, never bitwise copies
#: (copies are one conformation to the scoring, westbench.io.canonical); 0.05 Angstrom, below any thermal spread.
COLLAPSE_JITTER_NM = 0.005
#: ``detects`` values by a control's ``detected``.
DETECTS = {True: "yes", False: "no", None: "cannot tell"}
_TICS = ("tic0", "tic1", "tic2", "tic3", "tic01")
_ALL = (*_TICS, "rg", "bonds", "angles", "dihedrals")


@dataclass
class Context:
    """What the controls are made with besides the source frames: the protein's TICA and macrostate models, the
    ground truth's TIC-0 standard deviation (the unit of the shifts) and the job's seed."""

    tica_model: object | None
    macrostate_model: object | None
    tic0_sd: float
    seed: int


@dataclass(frozen=True)
class ControlSpec:
    """One control: its name (unique), family (:data:`KINDS`), kind (``null`` or ``failure``), the failure mode
    it stands for (None for a null), a description, the distributions it moves by construction, its graded effect
    (None when not graded) and how it is made from the source half (frames and what was done, given a
    :class:`Context`)."""

    name: str
    family: str
    kind: str
    failure_mode: str | None
    description: str
    moves: tuple[str, ...]
    make: Callable[[Frames, Context], tuple[Frames, str]]
    effect: float | None = None

    @property
    def expected(self) -> str:
        return WITHIN_NOISE if self.kind == "null" else SEPARATED


def _number(value: float) -> str:
    return f"{float(value):g}"


def _graded(settings: Mapping, key: str, forbidden: float | None = None) -> list[float]:
    values = [float(v) for v in settings[key]]
    if forbidden is not None and any(math.isclose(v, forbidden) for v in values):
        raise ConfigError(
            f"controls.{key} holds {_number(forbidden)}: that control would be the null itself; remove it "
            "(config/schema.yaml, section controls)"
        )
    return values


def control_specs(settings: Mapping | None = None) -> list[ControlSpec]:
    """Every control the ``controls`` settings ask for (schema defaults for keys not given), graded ones once per
    level, in :data:`KINDS` order.

    Examples
    --------
    >>> [spec.name for spec in control_specs({"kinds": ["null_half", "scale", "shift"], "scale_factors": [10],
    ...                                       "tic0_shifts": [0.5, 1]})]
    ['null_half', 'scale_x10', 'shift_tic0_0.5sd', 'shift_tic0_1sd']
    """
    s = {**section_defaults("controls"), **(settings or {})}
    unknown = sorted(set(s["kinds"]) - set(KINDS))
    if unknown:
        raise ConfigError(f"controls.kinds names {unknown}: not controls; choose among {', '.join(KINDS)}")
    specs: list[ControlSpec] = []
    kinds = set(s["kinds"])
    if "null_half" in kinds:
        specs.append(
            ControlSpec(
                "null_half",
                "null_half",
                "null",
                None,
                "the other half of the ground truth's runs as it is: an engine that samples the ground truth's "
                "equilibrium, which must come out within noise",
                (),
                lambda frames, c: (engines.kept(frames), "the source half as it is"),
            )
        )
    if "rigid" in kinds:
        specs.append(
            ControlSpec(
                "rigid",
                "rigid",
                "null",
                None,
                "the null's frames each rotated at random and moved up to 1 nm (TICs projected again): a "
                "transformation no score may see, so within noise as the null",
                (),
                lambda frames, c: (
                    engines.rigidly_moved(frames, derive_seed(c.seed, "rigid"), c.tica_model),
                    "rotated and moved",
                ),
            )
        )
    if "collapse" in kinds:
        k = int(s["collapse_frames"])
        specs.append(
            ControlSpec(
                "collapse",
                "collapse",
                "failure",
                f"collapse ({k} conformation{'s' if k != 1 else ''} repeated)",
                f"{k} frame{'s' if k != 1 else ''} of the source half repeated over its rows, each row jittered by "
                f"{_number(10 * COLLAPSE_JITTER_NM)} Å (TICs projected again): an engine stuck in a few conformations "
                "(exact copies are one conformation to the scoring, whose effective sample size then says it)",
                _ALL,
                lambda frames, c: (
                    engines.collapsed(frames, k, derive_seed(c.seed, "collapse"), COLLAPSE_JITTER_NM, c.tica_model),
                    f"{k} conformations repeated",
                ),
                float(k),
            )
        )
    if "mirror" in kinds:
        specs.append(
            ControlSpec(
                "mirror",
                "mirror",
                "failure",
                "mirror image",
                "every frame mirrored (x -> -x), TICs projected again: the wrong chirality; every distance, hence "
                "every TIC, Rg, bond and angle, is unchanged, only the dihedrals change sign",
                ("dihedrals",),
                lambda frames, c: (engines.mirrored(frames, c.tica_model), "mirrored"),
            )
        )
    for factor in _graded(s, "scale_factors", 1.0) if "scale" in kinds else []:
        units = " (Angstrom read as nm)" if math.isclose(factor, 10.0) else ""
        specs.append(
            ControlSpec(
                f"scale_x{_number(factor)}",
                "scale",
                "failure",
                f"coordinates x{_number(factor)}{units}",
                f"every coordinate times {_number(factor)}{units}, TICs projected again; angles and dihedrals are "
                "unchanged",
                ("tic0", "tic1", "tic2", "tic3", "tic01", "rg", "bonds"),
                lambda frames, c, factor=factor: (engines.scaled(frames, factor, c.tica_model), "scaled"),
                factor,
            )
        )
    for shift in _graded(s, "tic0_shifts", 0.0) if "shift" in kinds else []:
        specs.append(
            ControlSpec(
                f"shift_tic0_{_number(shift)}sd",
                "shift",
                "failure",
                f"shift along TIC 0 by {_number(shift)} sd",
                f"TIC 0 moved by {_number(shift)} standard deviations of the ground truth's TIC 0 (coordinates "
                "unchanged): the smallest W1 on TIC 0 the run separates",
                ("tic0", "tic01"),
                lambda frames, c, shift=shift: _shift(frames, c, shift),
                shift,
            )
        )
    for factor in _graded(s, "spread_factors", 1.0) if "spread" in kinds else []:
        how = "broadened" if factor > 1 else "narrowed"
        specs.append(
            ControlSpec(
                f"spread_x{_number(factor)}",
                "spread",
                "failure",
                f"TIC spread x{_number(factor)} ({how})",
                f"every TIC's deviation from its mean times {_number(factor)} ({how}; coordinates unchanged)",
                _TICS,
                lambda frames, c, factor=factor, how=how: (engines.spread(frames, factor), how),
                factor,
            )
        )
    for ratio in _graded(s, "temperature_ratios", 1.0) if "temperature" in kinds else []:
        how = "hotter" if ratio > 1 else "colder"
        specs.append(
            ControlSpec(
                f"temperature_x{_number(ratio)}",
                "temperature",
                "failure",
                f"{how} equilibrium along TIC 0/1 (T' = {_number(ratio)} T)",
                f"the source half reweighted by p(x)^(T/T' - 1) with T'/T = {_number(ratio)}, p its own kernel "
                f"density along TIC 0/1: a {'flatter' if ratio > 1 else 'sharper'} equilibrium (the "
                "explicit-solvent energies are the whole solvated system's and cannot reweight it)",
                ("tic0", "tic1", "tic01"),
                lambda frames, c, ratio=ratio: (
                    engines.reweighted(frames, ratio, derive_seed(c.seed, "temperature", _number(ratio))),
                    f"reweighted to T' = {_number(ratio)} T",
                ),
                ratio,
            )
        )
    if "missing_state" in kinds:
        share = float(s["missing_state_share"])
        specs.append(
            ControlSpec(
                "missing_state",
                "missing_state",
                "failure",
                "a missing metastable state",
                "the source half without one metastable state's frames (the macrostate whose share is closest to "
                f"{_number(share)}): an engine that never reaches it",
                _TICS,
                lambda frames, c: engines.without_state(frames, c.macrostate_model, share),
                share,
            )
        )
    for sigma in _graded(s, "noise_angstrom", 0.0) if "noise" in kinds else []:
        specs.append(
            ControlSpec(
                f"noise_{_number(sigma)}A",
                "noise",
                "failure",
                f"coordinate noise {_number(sigma)} Å",
                f"Gaussian noise of {_number(sigma)} Å on every coordinate, TICs projected again: an engine too hot "
                "at the bond level",
                _ALL,
                lambda frames, c, sigma=sigma: (
                    engines.noisy(frames, sigma / 10.0, derive_seed(c.seed, "noise", _number(sigma)), c.tica_model),
                    "noise added",
                ),
                sigma,
            )
        )
    return specs


def _shift(frames: Frames, context: Context, shift: float) -> tuple[Frames, str]:
    if not context.tic0_sd > 0:
        raise WestbenchError("the ground truth's TIC 0 has no spread: a shift in its units is 0")
    delta = shift * context.tic0_sd
    return engines.shifted(frames, 0, delta), f"TIC 0 + {delta:.4g}"


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
    n = int(units.max()) + 1 if len(units) else 0
    order = np.random.default_rng(derive_seed(seed, "split")).permutation(n)
    reference = np.isin(units, order[: (n + 1) // 2])
    return reference, ~reference, description


def _cells(values: Mapping, keys) -> dict:
    """{metric: {distribution: {value, low, high, floor_high, verdict, note}}} of one score."""
    out: dict = {}
    for metric, name in keys:
        interval = values.get("intervals", {}).get(metric, {}).get(name, {})
        floor = values.get("noise_floor", {}).get(metric, {}).get(name, {})
        out.setdefault(metric, {})[name] = {
            "value": _finite(values.get(metric, {}).get(name)),
            "low": _finite(interval.get("low")),
            "high": _finite(interval.get("high")),
            "floor_high": _finite(floor.get("high")),
            "verdict": values.get("verdicts", {}).get(metric, {}).get(name, UNDETERMINED),
            "note": values.get("verdict_notes", {}).get(metric, {}).get(name, ""),
        }
    return out


def _finite(value) -> float | None:
    return float(value) if value is not None and np.isfinite(value) else None


def detected(cells: Mapping, moves, kind: str) -> bool | None:
    """Whether the run shows a control's effect: a failure separated on a cell it moves (True), none of those
    separated but one decided (False), or none decided (None); a null, whether any cell was separated (True: a
    false alarm).

    Examples
    --------
    >>> cells = {"w1": {"tic0": {"verdict": "separated"}, "rg": {"verdict": "within noise"}}}
    >>> detected(cells, ("tic0",), "failure"), detected(cells, ("rg",), "failure"), detected(cells, (), "null")
    (True, False, True)
    """
    verdicts = [
        cell["verdict"] for metric in cells.values() for name, cell in metric.items() if kind == "null" or name in moves
    ]
    if SEPARATED in verdicts:
        return True
    return False if WITHIN_NOISE in verdicts else None


def resolution(controls: list[dict]) -> dict:
    """Per metric and distribution: the smallest value of a known-bad control that moves it and was separated
    there, the largest such value within noise, the controls of each, and ``resolved`` (one was separated).

    Examples
    --------
    >>> controls = [{"kind": "failure", "name": "a", "moves": ["tic0"], "cells": {"w1": {"tic0": {"value": 0.4,
    ...     "verdict": "separated"}}}}, {"kind": "failure", "name": "b", "moves": ["tic0"], "cells": {"w1": {"tic0":
    ...     {"value": 0.1, "verdict": "within noise"}}}}]
    >>> resolution(controls)["w1"]["tic0"]["smallest_separated"], resolution(controls)["w1"]["tic0"]["resolved"]
    (0.4, True)
    """
    out: dict = {}
    for control in controls:
        for metric, cells in control["cells"].items():
            for name, cell in cells.items():
                entry = out.setdefault(metric, {}).setdefault(
                    name,
                    {
                        "smallest_separated": None,
                        "largest_within_noise": None,
                        "resolved": False,
                        "separated_by": [],
                        "within_noise": [],
                    },
                )
                if control["kind"] != "failure" or name not in control["moves"] or cell["value"] is None:
                    continue
                if cell["verdict"] == SEPARATED:
                    entry["separated_by"].append(control["name"])
                    entry["resolved"] = True
                    if entry["smallest_separated"] is None or cell["value"] < entry["smallest_separated"]:
                        entry["smallest_separated"] = cell["value"]
                elif cell["verdict"] == WITHIN_NOISE:
                    entry["within_noise"].append(control["name"])
                    if entry["largest_within_noise"] is None or cell["value"] > entry["largest_within_noise"]:
                        entry["largest_within_noise"] = cell["value"]
    return out


@dataclass
class RunResolution:
    """What the controls of one run found (see the module docstring); :meth:`to_dict` is ``controls.json``."""

    reference: str
    controls: list[dict]
    settings: dict
    seconds: float = 0.0
    detects: dict = field(init=False)
    negatives: dict = field(init=False)
    resolution: dict = field(init=False)

    def __post_init__(self):
        self.detects = {c["failure_mode"]: DETECTS[c["detected"]] for c in self.controls if c["kind"] == "failure"}
        self.negatives = {
            c["name"]: {
                "within_noise": None if c["detected"] is None else not c["detected"],
                "separated": [
                    f"{metric}/{name}"
                    for metric, cells in c["cells"].items()
                    for name, cell in cells.items()
                    if cell["verdict"] == SEPARATED
                ],
            }
            for c in self.controls
            if c["kind"] == "null"
        }
        self.resolution = resolution(self.controls)

    def to_dict(self, protein: str) -> dict:
        return {
            "protein": protein,
            "reference": self.reference,
            "controls": self.controls,
            "detects": self.detects,
            "negatives": self.negatives,
            "resolution": self.resolution,
            "settings": self.settings,
            "seconds": round(self.seconds, 3),
        }

    def table(self, protein: str) -> pd.DataFrame:
        """Tidy rows (:data:`TABLE_COLUMNS`): one per control, metric and distribution."""
        rows = [
            {
                "protein": protein,
                "control": c["name"],
                "kind": c["kind"],
                "failure_mode": c["failure_mode"] or "",
                "expected": c["expected"],
                "detected": DETECTS[c["detected"]],
                "moves": name in c["moves"],
                "metric": metric,
                "distribution": name,
                **{key: cell[key] for key in CELL_KEYS},
            }
            for c in self.controls
            for metric, cells in c["cells"].items()
            for name, cell in cells.items()
        ]
        rows += [
            {
                "protein": protein,
                "control": c["name"],
                "kind": c["kind"],
                "failure_mode": c["failure_mode"] or "",
                "expected": c["expected"],
                "detected": DETECTS[c["detected"]],
                "verdict": UNDETERMINED,
                "note": c["note"],
            }
            for c in self.controls
            if not c["cells"]
        ]
        return pd.DataFrame(rows, columns=TABLE_COLUMNS)

    def lines(self) -> list[str]:
        """What the controls say, one sentence each (the log's summary)."""
        out = [f"with this ground truth, {mode} would be caught: {answer}" for mode, answer in self.detects.items()]
        for name, negative in self.negatives.items():
            answer = {True: "yes", False: "no", None: "cannot tell"}[negative["within_noise"]]
            out.append(f"control {name} (a correct engine) within noise: {answer}")
        tic0 = self.resolution.get("w1", {}).get("tic0", {})
        if tic0:
            out.append(
                f"the smallest W1 separated on TIC 0: {_shown(tic0['smallest_separated'])}; the largest within "
                f"noise: {_shown(tic0['largest_within_noise'])}"
            )
        return out


def _shown(value) -> str:
    return "none" if value is None else f"{value:.3g}"


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
        suite_settings = {**SUITE_DEFAULTS, **self.metric_settings, "seed": derive_seed(self.seed, "suite")}
        floors: dict = {}
        too_few = ""
        if n_units < 2:
            too_few = (
                f"the ground truth has {unit_kind}: controls need at least 2 independent units (one half the "
                "reference, the other made into the controls), and intervals at least 6 (3 a side)"
            )
        controls = []
        for spec in self.specs:
            record = {
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
                "note": too_few,
                "cells": {},
                "detected": None,
            }
            controls.append(record)
            if too_few:
                continue
            try:
                made, record["made"] = spec.make(source, context)
                suite = MetricSuite(reference, made, suite_settings, floors=floors)
            except WestbenchError as exc:
                record["note"] = f"not made: {exc}"
                log.warning("control %s not made: %s", spec.name, exc)
                continue
            values, _ = suite.score(WEIGHTING)
            record["frames"] = len(suite.model["ca"])
            record["effective_frames"] = values.get("effective_frames")
            record["cells"] = _cells(values, suite.binned.keys)
            record["moves"] = [name for name in spec.moves if name in suite.names or name == "tic01"]
            record["note"] = "; ".join(sorted(set(suite.caveats.reasons.values())))
            record["detected"] = detected(record["cells"], record["moves"], spec.kind)
            log.info(
                "control %s: %s (%d frames, %.1f s so far)",
                spec.name,
                DETECTS[record["detected"]],
                record["frames"],
                time.perf_counter() - start,
            )
        n_reference, n_source = len(np.unique(units[reference_rows])), len(np.unique(units[source_rows]))
        description = (
            f"A seeded random half of the ground truth's {unit_kind}: {n_reference} of {n_units} are the "
            f"reference, the other {n_source} are made into every "
            "control, so each control is an independent sample of the ground truth's equilibrium as a real engine "
            "is (a control made from its own reference's frames lacks an independent sample's finite-sample "
            "excess: the null could not fail and every fault would read closer than a real engine's). The "
            "reference has about half the ground truth's units, so its noise floors and intervals are wider than "
            "those a real engine meets against the full ground truth: this resolution is conservative (what is "
            "separated here would be separated there; what is within noise here might not be)."
        )
        settings = {
            "controls": self.settings,
            "metrics": {k: suite_settings[k] for k in sorted(self.metric_settings)},
            "seed": self.seed,
            "weighting": WEIGHTING,
            "units": unit_kind,
            "reference_units": n_reference,
            "control_units": n_source,
            "reference_frames": int(reference_rows.sum()),
            "control_source_frames": int(source_rows.sum()),
            "tic0_sd": round(context.tic0_sd, 6),
        }
        return RunResolution(description, controls, settings, time.perf_counter() - start)


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
    from westbench.metrics.score import finite_or_null
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
