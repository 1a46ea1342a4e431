"""The scoring contract: properties every number the metric suite reports must have, checked on any frames.

The numbers are enumerated from the record itself (:func:`reported_numbers` walks ``metrics.json`` as
:func:`westbench.metrics.engine_scoring.score_frames` makes it), so a metric is covered by being reported. Each
number has a direction (:func:`direction`): *lower* is closer to the ground truth (every W1 and KL, the
sensitivity line of the TIC 0/1 KL, the contact map's W1, the share of bonds outside their range, the
macrostates' total variation), *higher* is closer (coverage), or *descriptive* (intervals, floors,
effective sample sizes, frame counts, the signed contact-map difference).

Properties (:func:`check_contract`), each a transformation of the frames and what it may do to the numbers:

- **self**: the ground truth scored against itself: every *lower* number 0 (but the share of bonds outside
  3.5-4.5 Angstrom, the ground truth's own; a number not estimable, None, reports nothing), coverage 1; under the
  ``we`` and ``counts`` weightings, which keep the sample's own weights (the ``msm`` weighting re-estimates them
  from transitions, so against itself it measures that estimator's error, which is reported, not 0: there the
  ground truth must come out *within noise* or *undetermined*, never *separated*, on every distribution).
- **invariances** (:data:`INVARIANCES`): transformations of both frame sets that carry no information
  (docs/scoring.md, "What an interval depends on"): every value of the record unchanged, numbers to
  :data:`TOLERANCE` (relative), and every verdict, flag and text (reasons, unit descriptions) exactly:

  - **order**: the rows permuted (the contract identifies a frame by its piece and time);
  - **duplication**: every row written twice; **written twice**: some rows written twice in their piece;
  - **copies in new pieces**: every frame also written as a copy in a new piece, the weights halved (the copies
    of a piece one new piece; **copies, a piece each**: each copy a piece of its own);
  - **piece duplicated**: a whole piece written again as a new piece; **file duplicated**: the whole file;
  - **weights scaled**: every weight times 1000;
  - **zero-weight frames**: frames of weight 0 added, as new pieces and inside existing ones;
  - **rigid motion**: every frame rotated and translated (one motion each; float64).

  What keeps them is one canonical form of the frames (:mod:`westbench.io.canonical`), float64 geometry
  (:mod:`westbench.geometry.ca_geometry`) and BCa ties by tolerance (:mod:`westbench.metrics.intervals`).
- **far mass**: a share of the model's weight moved to copies of its frames placed far away (every TIC at
  ``FAR_TIC``, the chain scaled to a radius of gyration of ``FAR_RG_ANGSTROM``), each copy a piece of its
  own in the last iteration: no *lower* number falls and coverage does not rise. Scaling a chain keeps its
  angles and dihedrals, so the copies are not far on those distributions (:data:`NOT_FAR`) and those two
  are exempt.

Examples
--------
>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> def frames(seed):
...     r = np.random.default_rng(seed)
...     return {"ca": np.cumsum(r.normal(0, 0.2, (120, 5, 3)), axis=1), "tics": r.normal(size=(120, 4)),
...             "weight": np.full(120, 1 / 120), "traj": np.repeat(np.arange(12), 10),
...             "time_ps": np.tile(np.arange(10.0), 12), "iteration": np.repeat(np.arange(1, 13), 10)}
>>> settings = {"weightings": ["we", "counts"], "bootstrap": 0, "macrostate_clusters": 5, "macrostates": 2}
>>> check_contract(frames(1), frames(2), settings, shares=(0.01,), invariances=("order", "rigid motion"))
[]
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass
from typing import Iterable, Mapping

import numpy as np

from westbench.metrics.adversarial import (
    copied_to_new_pieces,
    duplicated,
    file_duplicated,
    permuted,
    piece_duplicated,
    rigidly_moved,
    scaled_weights,
    with_far_mass,
    with_zero_weight_frames,
    written_twice,
)
from westbench.metrics.engine_scoring import score_frames
from westbench.metrics.noise_floor import SEPARATED
from westbench.metrics.record import directed_paths

#: Weight shares moved far away by default (0.01 % to 5 %).
FAR_SHARES = (1e-4, 1e-2, 5e-2)
#: Record paths (fnmatch patterns) whose numbers are lower when the model is closer to the ground truth, and higher
#: when closer; of the lower ones, those that are a property of the model alone, not a divergence (not 0 against
#: itself). Each field declares its direction once (westbench.metrics.record).
LOWER = directed_paths("lower")
HIGHER = directed_paths("higher")
ABSOLUTE = directed_paths("lower", absolute=True)
#: Distributions on which the far copies are not far (a scaled chain keeps its angles and dihedrals).
NOT_FAR = ("angles", "dihedrals")
#: Weightings that re-estimate the sample's weights (not 0 against itself).
REESTIMATED = ("msm",)
#: Subtrees of the record that are not results (the job's settings, file names).
NOT_NUMBERS = ("settings", "figures", "resampling")
#: Two numbers are the same when they differ by at most this much (absolute and relative).
TOLERANCE = 1e-9
#: Subtrees of the record that an invariance does not compare (what the job was asked, what it drew).
NOT_RESULTS = ("settings", "figures")
#: Transformations that carry no information, by property name: (frames, seed) -> frames. Each is applied to both
#: frame sets (the ground truth with the seed, the model with the seed + 1) and every value must stay.
INVARIANCES = {
    "order": lambda frames, seed: permuted(frames, seed),
    "duplication": lambda frames, seed: duplicated(frames),
    "written twice": lambda frames, seed: written_twice(frames, 0.3, seed),
    "copies in new pieces": lambda frames, seed: copied_to_new_pieces(frames),
    "copies, a piece each": lambda frames, seed: copied_to_new_pieces(frames, per_frame=True),
    "piece duplicated": lambda frames, seed: piece_duplicated(frames, 1, seed),
    "file duplicated": lambda frames, seed: file_duplicated(frames),
    "weights scaled": lambda frames, seed: scaled_weights(frames, 1000.0),
    "zero-weight frames": lambda frames, seed: with_zero_weight_frames(frames, 0.2, seed),
    "rigid motion": lambda frames, seed: rigidly_moved(frames, seed, per_frame=True),
}


@dataclass(frozen=True)
class Violation:
    """One number that broke one property: its record path, the baseline and the transformed value."""

    prop: str
    path: str
    baseline: float | None
    value: float | None

    def __str__(self) -> str:
        return f"{self.prop}: {self.path} {self.baseline!r} -> {self.value!r}"


def reported_numbers(record: Mapping) -> dict[str, float | None]:
    """Every number of a ``metrics.json`` record by its path ("metrics/we/w1/tic0"), nulls included.

    Examples
    --------
    >>> reported_numbers({"frames": 3, "metrics": {"we": {"w1": {"tic0": 0.5, "rg": None}}}, "settings": {"bins": 4}})
    {'frames': 3.0, 'metrics/we/w1/tic0': 0.5, 'metrics/we/w1/rg': None}
    """
    out: dict[str, float | None] = {}

    def walk(value, path):
        if isinstance(value, Mapping):
            for key, item in value.items():
                if not path and key in NOT_NUMBERS:
                    continue
                walk(item, f"{path}/{key}" if path else str(key))
        elif isinstance(value, (list, tuple)):
            for index, item in enumerate(value):
                walk(item, f"{path}/{index}")
        elif value is None:
            out[path] = None
        elif isinstance(value, (int, float, np.number)) and not isinstance(value, bool):
            out[path] = float(value)

    walk(record, "")
    return out


def reported_values(record: Mapping) -> dict[str, object]:
    """Every value of a ``metrics.json`` record by its path, numbers as floats, verdicts, flags and texts as they
    are: what an invariance compares (all but :data:`NOT_RESULTS`).

    Examples
    --------
    >>> reported_values({"frames": 3, "metrics": {"we": {"verdicts": {"w1": {"tic0": "separated"}}}}, "figures": {}})
    {'frames': 3.0, 'metrics/we/verdicts/w1/tic0': 'separated'}
    """
    out: dict[str, object] = {}

    def walk(value, path):
        if isinstance(value, Mapping):
            for key, item in value.items():
                if not path and key in NOT_RESULTS:
                    continue
                walk(item, f"{path}/{key}" if path else str(key))
        elif isinstance(value, (list, tuple)):
            for index, item in enumerate(value):
                walk(item, f"{path}/{index}")
        elif isinstance(value, (bool, np.bool_, str)) or value is None:
            out[path] = value if isinstance(value, str) or value is None else bool(value)
        elif isinstance(value, (int, float, np.number)):
            out[path] = float(value)
        else:
            out[path] = repr(value)

    walk(record, "")
    return out


def same_value(a, b) -> bool:
    """Numbers within :data:`TOLERANCE` (relative, absolute below 1), anything else equal.

    >>> same_value(1.0, 1.0 + 1e-12), same_value(0.5, 0.51), same_value("within noise", "separated")
    (True, False, False)
    """
    if isinstance(a, float) and isinstance(b, float):
        return _same(a, b)
    return type(a) is type(b) and a == b


def direction(path: str) -> str:
    """``lower``, ``higher`` or ``descriptive``: which way a number of the record moves as the model gets closer.

    Examples
    --------
    >>> direction("metrics/msm/kl/tic01"), direction("metrics/we/coverage"), direction("metrics/we/intervals/w1/rg/low")
    ('lower', 'higher', 'descriptive')
    """
    if _matches(path, LOWER):
        return "lower"
    if _matches(path, HIGHER):
        return "higher"
    return "descriptive"


def _matches(path: str, patterns: Iterable[str]) -> bool:
    """Whether ``path`` matches one of ``patterns`` segment by segment ("*" never spans a "/"; a last "**" matches
    the rest)."""
    parts = path.split("/")
    for pattern in patterns:
        globs = pattern.split("/")
        rest = globs[-1] == "**"
        if rest:
            globs = globs[:-1]
        if (len(parts) > len(globs) if rest else len(parts) == len(globs)) and all(
            fnmatch.fnmatchcase(part, glob) for part, glob in zip(parts, globs)
        ):
            return True
    return False


def _same(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return abs(a - b) <= TOLERANCE * max(1.0, abs(a), abs(b))


def _distribution(path: str) -> str:
    parts = path.split("/")
    return parts[3] if len(parts) > 3 and parts[2] in ("w1", "kl") else ""


def check_contract(
    groundtruth: Mapping,
    model: Mapping,
    settings: Mapping,
    *,
    macrostate_model=None,
    shares: Iterable[float] = FAR_SHARES,
    seed: int = 0,
    invariances: Iterable[str] | None = None,
) -> list[Violation]:
    """Every violation of the contract's properties (module docstring) by the suite on these frames: [] when
    it holds. ``settings``: the ``metrics`` keys with ``weightings`` (as ``metrics.json`` records them);
    ``invariances``: the names of :data:`INVARIANCES` to check (all when None)."""

    def record(gt, frames):
        return score_frames(
            gt, frames, settings, protein="contract", engine="contract", macrostate_model=macrostate_model
        ).record

    def numbers(gt, frames):
        return reported_numbers(record(gt, frames))

    first = record(groundtruth, model)
    baseline = reported_numbers(first)
    violations = []
    itself = record(groundtruth, groundtruth)
    for weighting in REESTIMATED:
        verdicts = (itself.get("metrics", {}).get(weighting) or {}).get("verdicts") or {}
        for metric, by_name in verdicts.items():
            for name, verdict in by_name.items():
                if verdict == SEPARATED:
                    path = f"metrics/{weighting}/verdicts/{metric}/{name}"
                    violations.append(Violation("self", path, "within noise", verdict))
    for path, value in reported_numbers(itself).items():
        kind = direction(path)
        expected = 0.0 if kind == "lower" else 1.0 if kind == "higher" else None
        if _matches(path, ABSOLUTE) or _matches(path, [f"metrics/{w}/**" for w in REESTIMATED]):
            continue
        # a number not estimable against itself (None: no macrostate model over a tiny ground truth) reports nothing
        if expected is not None and value is not None and not _same(value, expected):
            violations.append(Violation("self", path, expected, value))
    violations += check_invariances(groundtruth, model, record, invariances=invariances, seed=seed, baseline=first)
    for share in shares:
        changed = numbers(groundtruth, with_far_mass(model, share, seed))
        for path, value in baseline.items():
            kind, after = direction(path), changed.get(path)
            if kind == "descriptive" or value is None or after is None or _distribution(path) in NOT_FAR:
                continue
            worse_or_equal = after >= value - TOLERANCE * max(1.0, abs(value))
            if kind == "higher":
                worse_or_equal = after <= value + TOLERANCE * max(1.0, abs(value))
            if not worse_or_equal:
                violations.append(Violation(f"far mass {share:g}", path, value, after))
    return violations


def check_invariances(
    groundtruth: Mapping,
    model: Mapping,
    score,
    *,
    invariances: Iterable[str] | None = None,
    seed: int = 0,
    baseline: Mapping | None = None,
) -> list[Violation]:
    """Every value of the record that one of :data:`INVARIANCES` changes: ``score(groundtruth, model)`` gives a
    ``metrics.json`` record; each transformation is applied to both frame sets and the records compared
    (:func:`same_value` on :func:`reported_values`). ``baseline``: the untransformed record, when already made."""
    before = reported_values(score(groundtruth, model) if baseline is None else baseline)
    violations = []
    for prop in INVARIANCES if invariances is None else invariances:
        transform = INVARIANCES[prop]
        after = reported_values(score(transform(groundtruth, seed), transform(model, seed + 1)))
        for path in sorted(set(before) | set(after)):
            if not same_value(before.get(path), after.get(path)):
                violations.append(Violation(prop, path, before.get(path), after.get(path)))
    return violations


def contract_report(
    groundtruth_frames,
    model_frames,
    record_path,
    path,
    *,
    protein: str,
    engine: str,
    macrostates=None,
    shares: Iterable[float] = FAR_SHARES,
) -> dict:
    """Check the contract on a finished run's real frames and write ``contract.json``.

    The settings and weightings are the ones the engine's ``metrics.json`` (``record_path``) was scored with,
    so the numbers checked are the numbers reported. ``contract.json``: ``protein``, ``engine``, ``numbers``
    (how many numbers the record reports), ``checked`` (per property, how many numbers it constrains),
    ``violations`` (property, path, baseline, value), ``holds``.
    """
    import json
    from pathlib import Path

    from westbench.io.frames import read_frames
    from westbench.io.records import write_json
    from westbench.metrics.metastable import MacrostateModel

    record = json.loads(Path(record_path).read_text())
    settings = {**record.get("settings", {}), "weightings": list(record.get("metrics", {}))}
    shared = MacrostateModel.load(macrostates) if macrostates else None
    violations = check_contract(
        read_frames(groundtruth_frames), read_frames(model_frames), settings, macrostate_model=shared, shares=shares
    )
    numbers = reported_numbers(record)
    kinds = [direction(path) for path in numbers]
    values = len(reported_values(record))
    report = {
        "protein": protein,
        "engine": engine,
        "numbers": len(numbers),
        "values": values,
        "checked": {
            **{prop: values for prop in INVARIANCES},
            "self": sum(kind != "descriptive" for kind in kinds),
            "far mass": sum(
                kind != "descriptive" and _distribution(p) not in NOT_FAR for p, kind in zip(numbers, kinds)
            ),
        },
        "far_shares": list(shares),
        "violations": [vars(v) for v in violations],
        "holds": not violations,
    }
    write_json(report, path)
    return report
