"""What limits a protein's ranking, in one sentence computed from the data (:func:`limitation`): the noise floor
(and how many ground-truth runs, or how much more of the engine's own sampling, would lower it below the
within-noise engines' intervals: :class:`FloorDesign`), undetermined values (their commonest reason), or
overlapping intervals (the sampling that would separate the closest pair).

Examples
--------
>>> round(FloorDesign(runs=3, pseudo_runs=1, engine_runs=20.0).scale(3), 3), runs_for_floor(1.0, 3, 0.5)
(1.225, 13)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Mapping, Sequence

import pandas as pd

from westbench.report.bottom_line import (
    DETERMINED,
    SEPARATED,
    WITHIN_NOISE,
    above,
    distribution_ranks,  # noqa: F401 (the examples)
    is_ranked,
    label,
)


@dataclass
class Limitation:
    """What limits one protein's result, as one sentence, and the kind of limit (``floor``, ``undetermined``,
    ``overlap`` or ``none``)."""

    kind: str
    sentence: str


@dataclass(frozen=True)
class FloorDesign:
    """How one engine's noise floor was made (``metrics.json``: ``noise_floor.of_units``, ``noise_floor.units``,
    ``frames``, ``groundtruth_frames``): the ground truth's ``runs``, the ``pseudo_runs`` of them scored against the
    rest (about the engine's sample, at most half), and the engine's sample in runs' worth of frames
    (``engine_runs``); None where the record lacks them."""

    runs: int
    pseudo_runs: int | None = None
    engine_runs: float | None = None

    def scale(self, runs: int) -> float:
        """The floor's sampling scale with ``runs`` ground-truth runs, sqrt(1/k + 1/(runs - k)) with k pseudo-model
        runs: as many as the engine's sample is worth, at least one, at most half the runs.

        Examples
        --------
        >>> design = FloorDesign(runs=3, pseudo_runs=1, engine_runs=2.0)
        >>> round(design.scale(3), 3), round(design.scale(4), 3), round(design.scale(1000), 3)
        (1.225, 1.0, 0.708)
        """
        cap = self.engine_runs if self.engine_runs is not None else math.inf
        k = max(1, min(round(cap) if math.isfinite(cap) else runs // 2, runs // 2))
        return math.sqrt(1 / k + 1 / (runs - k))

    def runs_for(self, floor: float, target: float, most: int = 100_000) -> int | None:
        """Ground-truth runs that bring ``floor`` (now, with :attr:`runs`) below ``target`` at this engine's sample
        size; None when no number of runs can (the engine's own sample then bounds the floor).

        Examples
        --------
        >>> capped = FloorDesign(runs=3, pseudo_runs=1, engine_runs=2.0)  # the engine: two runs' worth of frames
        >>> FloorDesign(runs=3).runs_for(1.0, 0.5), capped.runs_for(1.0, 0.5)
        (11, None)
        """
        now = self.scale(self.runs)
        runs = self.runs
        while runs <= most:
            if floor * self.scale(runs) / now < target:
                return runs
            runs = runs + 1 if runs < 64 else int(runs * 1.05) + 1
        return None


def runs_for_floor(floor: float, runs: int, target: float) -> int:
    """Ground-truth runs that bring a noise floor of ``floor`` (with ``runs`` runs) below ``target``, taking the
    floor to fall as 1/sqrt(runs) (a sampling error's rate; the fallback where the floor's design is unknown).

    Examples
    --------
    >>> runs_for_floor(1.0, 3, 0.5), runs_for_floor(1.0, 3, 2.0), len(str(runs_for_floor(1.0, 3, 5e-324)))
    (13, 3, 648)

    In exact rational arithmetic (a target far below the floor needs more runs than a float holds).
    """
    needed = math.floor(runs * (Fraction(floor) / Fraction(target)) ** 2) + 1  # exact: the smallest n above
    while floor * math.sqrt(runs / needed) >= target:  # as floats see it: a hair more where they round down
        needed += max(1, needed // 10**12)
    return max(runs, needed)


def count(n: int) -> str:
    """A count of runs as a sentence quotes it: in full below a billion, else its power of ten.

    Examples
    --------
    >>> count(76), count(10**15 + 3)
    ('76', '10^15')
    """
    return str(n) if n < 10**9 else f"10^{len(str(n)) - 1}"


def limitation(ranked: pd.DataFrame, designs: Mapping[str, FloorDesign] | int | None) -> Limitation:
    """The largest limit on one protein's result, computed from the data. ``ranked``: its rows of
    :func:`distribution_ranks`; ``designs``: how each engine's noise floor was made (:class:`FloorDesign`, by
    engine), or only the protein's count of ground-truth runs, or None when unknown.

    - ``undetermined``: most values have no verdict; the sentence gives the commonest reason;
    - ``floor``: most values are within the noise floor; the sentence takes the divergence with the most such
      engines and says how many ground-truth runs would bring the floor's upper bound below the lowest of their
      interval bounds (the floor's scale, sqrt(1/k + 1/(runs - k)) with k pseudo-model runs, the engine's sample's
      worth: :meth:`FloorDesign.scale`), or that the engine's own sample bounds it;
    - ``overlap``: determined, above the floor, but intervals overlap; the sentence gives how many times the
      sampling would separate the closest pair (interval width ~ 1/sqrt(sampling));
    - ``none``: every pair is ranked.

    Undetermined values are named after a ``floor`` or ``overlap`` limit too: they are why an engine is not ranked.

    Examples
    --------
    >>> rows = pd.DataFrame({"protein": "p", "engine": ["a", "b"], "weighting": "we", "metric": "W1",
    ...     "distribution": "tic0", "value": [0.3, 0.5], "low": [0.2, 0.3], "high": [0.6, 0.9],
    ...     "floor_high": [1.0, 1.0], "verdict": "within noise", "note": ""})
    >>> print(limitation(distribution_ranks(rows), 3).sentence)  # doctest: +NORMALIZE_WHITESPACE
    What limits this result: the ground truth's noise floor. On W1(TIC 0), 2 of 2 engines are within noise
    (the floor's upper bound is 1 with 3 ground-truth runs, at or above their intervals' lower bounds). The
    floor falls about as 1/√runs: about 76 runs would bring it below the lowest of those bounds (0.2).
    >>> design = {"a": FloorDesign(runs=3, pseudo_runs=1, engine_runs=1.5)}
    >>> print(limitation(distribution_ranks(rows), design).sentence)  # doctest: +NORMALIZE_WHITESPACE
    What limits this result: the ground truth's noise floor. On W1(TIC 0), 2 of 2 engines are within noise
    (the floor's upper bound is 1 with 3 ground-truth runs, at or above their intervals' lower bounds). The
    floor is the ground truth against itself at a's sample size (about 1.5 runs' worth): more ground-truth runs
    alone bring it to about 0.58 at best, so going below 0.2 takes a longer run of a as well.
    """
    rows = ranked.to_dict("records")
    if not rows:
        return Limitation("none", "")
    undetermined = [r for r in rows if r["verdict"] not in DETERMINED]
    within = [r for r in rows if r["verdict"] == WITHIN_NOISE]
    overlaps = _overlapping_pairs(ranked)
    separated_overlaps = [(a, b) for a, b in overlaps if a["verdict"] == b["verdict"] == SEPARATED]
    counts = {"undetermined": len(undetermined), "floor": len(within), "overlap": len(separated_overlaps)}
    if not any(counts.values()):
        return Limitation("none", "Every pair of engines is ranked on every divergence: nothing limits this ranking.")
    kind = max(counts, key=lambda k: (counts[k], -list(counts).index(k)))
    notes = pd.Series([r["note"] or "no reason recorded" for r in undetermined]).value_counts()
    if kind == "undetermined":
        return Limitation(
            kind,
            f"What limits this result: {len(undetermined)} of {len(rows)} values are undetermined (no verdict); "
            f"the commonest reason ({notes.iloc[0]} of them): {notes.index[0]}.",
        )
    if kind == "floor":
        found = _floor_limitation(ranked, within, designs)
    else:
        found = _overlap_limitation(separated_overlaps)
    if undetermined:  # the reader also needs to know why some engine is not ranked at all
        found.sentence += (
            f" Besides, {len(undetermined)} of {len(rows)} values are undetermined; the commonest reason "
            f"({notes.iloc[0]} of them): {notes.index[0]}."
        )
    return found


def _floor_limitation(ranked: pd.DataFrame, within: list, designs) -> Limitation:
    frame = pd.DataFrame(within)
    key = frame.groupby(["metric", "distribution"], sort=False).size().idxmax()
    chosen = frame[(frame["metric"] == key[0]) & (frame["distribution"] == key[1])]
    engines = ranked[(ranked["metric"] == key[0]) & (ranked["distribution"] == key[1])]
    floor = float(chosen["floor_high"].max())
    if isinstance(designs, int):
        designs = {engine: FloorDesign(runs=designs) for engine in chosen["engine"]}
    runs = next((d.runs for d in (designs or {}).values()), None)
    head = (
        f"What limits this result: the ground truth's noise floor. On {label(*key)}, {len(chosen)} of "
        f"{engines['engine'].nunique()} engines are within noise (the floor's upper bound is {_g(floor)}"
    )
    if runs is None or not math.isfinite(floor):
        return Limitation("floor", head + "). More ground-truth runs lower the floor.")
    head += f" with {runs} ground-truth runs, at or above their intervals' lower bounds)."
    positive = chosen[chosen["low"] > 0]
    if positive.empty:
        return Limitation(
            "floor",
            head + " Their intervals reach 0: no floor separates them; they are as close to the ground truth as it "
            "is to itself.",
        )
    target_row = positive.loc[positive["low"].idxmin()]
    target, engine = float(target_row["low"]), target_row["engine"]
    design = designs.get(engine) or FloorDesign(runs=runs)
    if design.pseudo_runs is None:  # the floor's design unknown: the plain 1/sqrt(runs)
        return Limitation(
            "floor",
            head + f" The floor falls about as 1/√runs: about {count(runs_for_floor(floor, runs, target))} runs would "
            f"bring it below the lowest of those bounds ({_g(target)}).",
        )
    needed = design.runs_for(floor, target)
    if needed is not None:
        return Limitation(
            "floor",
            head + f" The floor falls about as 1/√runs while the engine's sample allows: about {needed} runs would "
            f"bring it below the lowest of those bounds ({_g(target)}, {engine}).",
        )
    best = floor * design.scale(100_000) / design.scale(design.runs)
    return Limitation(
        "floor",
        head + f" The floor is the ground truth against itself at {engine}'s sample size (about "
        f"{_g(design.engine_runs)} runs' worth): more ground-truth runs alone bring it to about {_g(best)} at best, "
        f"so going below {_g(target)} takes a longer run of {engine} as well.",
    )


def _overlap_limitation(separated_overlaps: list) -> Limitation:
    a, b, factor = min(((a, b, _sampling_factor(a, b)) for a, b in separated_overlaps), key=lambda item: item[2])
    more = (
        "they agree within their intervals"
        if not math.isfinite(factor)
        else (f"about {_g(factor)} times the sampling (WE replicas or iterations) would separate them")
    )
    return Limitation(
        "overlap",
        f"What limits this result: overlapping intervals. {len(separated_overlaps)} pairs of engines, both separated "
        f"from the floor, overlap; the closest, {a['engine']} and {b['engine']} on "
        f"{label(a['metric'], a['distribution'])} ({_g(a['value'])} and {_g(b['value'])}): intervals narrow about as "
        f"1/√sampling, so {more}.",
    )


def _overlapping_pairs(ranked: pd.DataFrame) -> list[tuple[dict, dict]]:
    pairs = []
    for _, group in ranked.groupby(["metric", "distribution"], sort=False):
        records = [r for r in group.to_dict("records") if is_ranked(r)]
        for i, a in enumerate(records):
            for b in records[i + 1 :]:
                if not above(a, b) and not above(b, a):
                    pairs.append((a, b))
    return pairs


def _sampling_factor(a: Mapping, b: Mapping) -> float:
    """How many times the sampling would make two overlapping intervals just touch (their widths ~ 1/sqrt)."""
    gap = abs(a["value"] - b["value"])
    if gap == 0:
        return math.inf
    lower, upper = (a, b) if a["value"] < b["value"] else (b, a)
    reach = (lower["high"] - lower["value"]) + (upper["value"] - upper["low"])
    ratio = reach / gap
    return max(1.0, ratio * ratio)  # a product overflows to inf where ** raises (a gap of 1e-200)


def _g(value: float) -> str:
    """Two significant digits, as a sentence quotes a number."""
    return f"{value:.2g}"


def floor_designs(metrics: Sequence[tuple[str, str, object]]) -> dict[str, dict]:
    """Per protein and engine, how its noise floor was made (:class:`FloorDesign`),
    from its ``metrics.json`` (``noise_floor.of_units``, ``noise_floor.units``, ``frames``, ``groundtruth_frames``);
    records without a floor are left out."""
    import json
    from pathlib import Path

    designs: dict[str, dict] = {}
    for protein, engine, path in metrics:
        record = json.loads(Path(path).read_text())
        floor = record.get("noise_floor") or {}
        runs = floor.get("of_units")
        if not runs:
            continue
        per_run = (record.get("groundtruth_frames") or 0) / runs
        designs.setdefault(protein, {})[engine] = FloorDesign(
            runs=int(runs),
            pseudo_runs=floor.get("units"),
            engine_runs=(record["frames"] / per_run) if per_run and record.get("frames") else None,
        )
    return designs
