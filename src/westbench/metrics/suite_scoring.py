"""The metric suite's scores of one weighting: every statistic's estimate, interval, noise floor and verdict (with why
it is undetermined), the single-number metrics, and their ``metrics.csv`` rows.

Scoring a weighting is a fixed sequence of steps (:meth:`SuiteScoring.score`): the model's weights, once; the
statistics that every row reads (:class:`WeightingPass`: estimates, interval, floor); one row per statistic
(:meth:`SuiteScoring.statistic_scores`); the single-number metrics. What the data cannot give is null with its reason
in the suite's ``caveats``, never an exception. :class:`SuiteScoring` is a part of
:class:`westbench.metrics.suite.MetricSuite`: it reads what the suite's ``__init__`` sets up, its weights
(:mod:`westbench.metrics.suite_weights`) and statistics (:mod:`westbench.metrics.suite_statistics`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from westbench.metrics.divergences import floored_share
from westbench.metrics.estimability import NotEstimable
from westbench.metrics.intervals import BootstrapResult
from westbench.metrics.kl_rows import kl_mark
from westbench.metrics.noise_floor import UNDETERMINED, NoiseFloor, verdict
from westbench.metrics.record import empty_weighting, make_weighting, not_estimable_rows
from westbench.metrics.structure import mean_distance_map, share_of_bonds_outside
from westbench.metrics.suite_records import (
    TABLE_COLUMNS,
    finite,
    floor_bounds,
    floor_record,
    interval_record,
    single_number_rows,
    statistic_row,
)

__all__ = ["SuiteScoring", "WeightingPass"]


@dataclass
class WeightingPass:
    """What scoring one weighting computes once and every statistic's row reads."""

    weighting: str
    weights: np.ndarray
    #: Kish's effective sample size of ``weights``.
    effective: float
    #: The model's per-unit histograms under ``weights`` (:meth:`SuiteStatistics.model_histograms`).
    histograms: dict
    estimates: np.ndarray
    interval: BootstrapResult | None
    floor: NoiseFloor | None
    #: Why too few effective frames carry the weights for a verdict, or "".
    few: str
    #: Per statistic, the largest value any model could score (:meth:`SuiteStatistics.largest_reachable`).
    reachable: np.ndarray


class SuiteScoring:
    """The metric suite's scores of one weighting, each step a method."""

    def score(self, weighting: str = "we") -> tuple[dict, pd.DataFrame]:
        """All metrics under one weighting.

        Returns
        -------
        values : dict
            ``w1`` and ``kl`` per distribution (None where not estimable), ``intervals``
            {metric: {distribution: {low, high, bias, extended, collapsed, widened}}}, ``verdicts`` {metric:
            {distribution: verdict}}, ``verdict_notes`` {metric: {distribution: why undetermined}},
            ``noise_floor`` {metric: {distribution: {value, low, high}}, splits, units, of_units}
            (matched on ``effective_frames``), ``effective_frames`` (Kish's effective sample size of
            the weights), ``msm`` (the msm weighting: ``outside_connected_share``, ``states``,
            ``connected_states``), ``kl_floor``, ``contact_map_w1_A`` (mean over residue pairs of the
            W1 of their distance distributions), ``contact_map_diff_A`` (matrix of mean distance
            differences), ``bonds_outside_share``, ``coverage``, ``discarded_iterations``. What could
            not be estimated is in :attr:`caveats`.
        table : DataFrame
            Tidy rows: weighting, distribution, metric, value, ci_low, ci_high, bias, floor,
            floor_low, floor_high, verdict, note.
        """
        values: dict = {
            "weighting": weighting,
            "kl_floor": self.settings.kl_floor,
            "discarded_iterations": self.discarded_iterations,
        }
        try:
            weights = self.weights(weighting)
        except NotEstimable as exc:
            self.caveats.add(weighting, str(exc))
            return self._not_estimable(values, str(exc))
        effective = self.effective_frames(weighting)
        values["effective_frames"] = round(effective, 3)
        if weighting == "msm" and self.msm is not None:
            values["msm"] = {
                "outside_connected_share": self.msm.outside_share,
                "states": self.msm.states,
                "connected_states": self.msm.connected_states,
            }
        scored = self.weighting_pass(weighting, weights, effective)
        values["noise_floor"] = floor_record(scored.floor, self.binned.keys)
        rows = self.statistic_scores(scored, values)
        values.update(self.single_number_metrics(weights))
        rows += single_number_rows(weighting, values)
        return make_weighting(**values), pd.DataFrame(rows, columns=TABLE_COLUMNS)

    def weighting_pass(self, weighting: str, weights: np.ndarray, effective: float) -> WeightingPass:
        """The estimates, interval and noise floor of every statistic under ``weights`` (the interval or floor None,
        with its caveat, where not estimable), and what the verdicts check them against."""
        histograms = self.model_histograms(weights)  # once per weighting: the estimates and every replicate use them
        estimates = self.estimates(weights, histograms)
        interval, floor = None, None
        with self.caveats.guard(f"{weighting}/intervals"):
            interval = self.intervals(weights, estimates, histograms, reestimated=weighting == "msm")
        with self.caveats.guard(f"{weighting}/noise_floor"):
            floor = self.noise_floor(effective, weighting)
        few = self.too_few_effective_frames(effective)
        return WeightingPass(
            weighting, weights, effective, histograms, estimates, interval, floor, few, self.largest_reachable()
        )

    def statistic_scores(self, scored: WeightingPass, values: dict) -> list[dict]:
        """Every statistic's estimate, interval, KL mark, verdict and note into ``values`` (in
        :attr:`BinnedDivergences.keys` order), and their ``metrics.csv`` rows."""
        values.update(
            w1={},
            kl={},
            intervals={"w1": {}, "kl": {}},
            verdicts={"w1": {}, "kl": {}},
            verdict_notes={"w1": {}, "kl": {}},
            kl_marks={},
            kl_estimator={"method": "histogram", "bins": self.settings.bins}
            if self.knn is None
            else self.knn.describe(),
        )
        return [
            self.statistic_score(scored, i, metric, name, values) for i, (metric, name) in enumerate(self.binned.keys)
        ]

    def statistic_score(self, scored: WeightingPass, i: int, metric: str, name: str, values: dict) -> dict:
        """Statistic ``i`` (``metric`` of distribution ``name``) into ``values``, and its ``metrics.csv`` row."""
        weighting, interval = scored.weighting, scored.interval
        estimate = finite(scored.estimates[i])
        note = ""
        if estimate is None:
            note = "no model or ground-truth mass on this distribution's grid"
            self.caveats.add(f"{weighting}/{metric}/{name}", note)
        record: dict = {}
        if interval is not None and estimate is not None:
            record = values["intervals"][metric][name] = interval_record(interval, i)
            if interval.failed[i]:
                note = f"{int(interval.failed[i])} of {interval.replicates} bootstrap replicates failed"
        floor = floor_bounds(scored.floor, i)
        mark, marked = "", ""
        if metric == "kl":  # a KL that is mostly bias, or pinned by the bin floor, is no score (kl_marks)
            mark, marked = self.kl_score_mark(scored, i, name, floor)
            values["kl_marks"][name] = mark
        decided = verdict(record.get("low"), floor[2])
        why = self.undetermined_reason(scored, i, metric, name, floor[2], marked if mark else "")
        if why:
            decided = UNDETERMINED
            note = f"{why}; {note}" if note and note != why else why
        values[metric][name] = estimate
        values["verdicts"][metric][name] = decided
        values["verdict_notes"][metric][name] = why
        return statistic_row(weighting, metric, name, estimate, record, floor, decided, note)

    def kl_score_mark(self, scored: WeightingPass, i: int, name: str, floor: tuple) -> tuple[str, str]:
        """:func:`westbench.metrics.kl_rows.kl_mark` of the KL of ``name`` (statistic ``i``): its mark and why, from
        the share of its value the floor of empty cells (or of the nearest-neighbour densities) makes."""
        if self.knn is None:
            p, q = self.binned.reference_histograms[("kl", name)], scored.histograms[("kl", name)]
            share = floored_share(p.sum(axis=0), q.sum(axis=0), self.binned.floor)
        else:
            share = self.knn.floored_share(name, scored.weights)
        floor_value, _, floor_high = floor
        return kl_mark(floor_value, floor_high, share, scored.reachable[i])

    def undetermined_reason(
        self, scored: WeightingPass, i: int, metric: str, name: str, floor_high: float | None, marked: str
    ) -> str:
        """Why statistic ``i``'s verdict cannot be decided, or "": the first that holds of no interval, no floor, too
        few effective frames, too few nearest-neighbour points, an ill-posed TIC, a floor no model could clear, and
        ``marked`` (why a KL is no score, :meth:`kl_score_mark`; "" when it is one)."""
        weighting = scored.weighting
        if scored.interval is None:
            return self.caveats.reasons.get(f"{weighting}/intervals", "no interval")
        if scored.floor is None:
            return self.caveats.reasons.get(f"{weighting}/noise_floor", "no noise floor")
        if scored.few:
            return scored.few
        if metric == "kl" and self.knn is not None and (thin := self.knn_too_few(name, scored.floor, scored.effective)):
            return thin
        if self.ill_posed(name):
            return f"the TICA is not well posed for this TIC (no positive finite timescale): {self.tica_caveat}"
        if floor_high is not None and floor_high >= scored.reachable[i]:
            return (
                f"cannot be separated: no model could score above {scored.reachable[i]:.3g} against this ground truth "
                f"(all its mass off the ground truth's cells), and the noise floor reaches {floor_high:.3g}; "
                "more ground-truth runs lower the floor"
            )
        return marked

    def single_number_metrics(self, weights: np.ndarray) -> dict:
        """The contact-map difference and W1, the share of bonds outside 3.5-4.5 A and the coverage of the ground
        truth's TIC 0/1 cells, under the model's frame ``weights``."""
        model_tics = np.asarray(self.model["tics"])[:, :2]
        difference = mean_distance_map(self.model["ca"], weights) - self.reference_distances
        pair_w1 = self.contact_w1(self.groundtruth_weights, weights)
        return {
            "contact_map_diff_A": difference.round(6).tolist(),
            "contact_map_w1_A": float(pair_w1.mean()) if len(pair_w1) else None,
            "bonds_outside_share": share_of_bonds_outside(self.model["ca"], weights, bonds=self.sample["bonds"] / 10.0),
            "coverage": self.grid.fraction(model_tics[weights > 0]),
        }

    def knn_too_few(self, name: str, floor: NoiseFloor, effective: float) -> str:
        """:meth:`SuiteKL.too_few_points` for a distribution: the floor's pseudo-model is ``floor.units`` of the
        ground truth's runs, counted at the smallest run's frames."""
        unit_frames = self.groundtruth_unit_frames
        floor_frames = floor.units * float(np.min(unit_frames)) if len(unit_frames) else 0.0
        return self.knn.too_few_points(name, floor_frames, float(effective))

    def ill_posed(self, name: str) -> bool:
        """Whether a distribution rests on a TIC that the TICA fit left without a timescale."""
        if name == "tic01":
            return bool({0, 1} & self.ill_posed_tics)
        return name.startswith("tic") and name[3:].isdigit() and int(name[3:]) in self.ill_posed_tics

    def too_few_effective_frames(self, effective: float) -> str:
        """Why a verdict cannot rest on weights that few frames carry, or "" when enough do.

        The floor is the ground truth against itself at the model's effective sample size; its smallest
        pseudo-model is one ground-truth unit. A model whose weight rests on fewer than half of that unit's
        frames, or on fewer than ``min_effective_frames``, would be held to a floor measured at a sample
        larger than its own, which is lower than its real noise.
        """
        unit_frames = self.groundtruth_unit_frames
        smallest = 0.5 * float(np.median(unit_frames)) if len(unit_frames) else 0.0
        needed = max(float(self.settings.min_effective_frames), smallest)
        if effective >= needed:
            return ""
        return (
            f"few frames carry the weight: {effective:.1f} effective frames (Kish), fewer than {needed:.0f} "
            f"(metrics.min_effective_frames, or half of one ground-truth unit of {np.median(unit_frames):.0f} "
            "frames, the smallest sample the noise floor can be measured at); sample longer or more evenly"
        )

    def _not_estimable(self, values: dict, reason: str) -> tuple[dict, pd.DataFrame]:
        """The score of a weighting that could not be had: every value None, every row's note the reason
        (:func:`westbench.metrics.record.empty_weighting`)."""
        keys = self.binned.keys
        scores = empty_weighting(values.pop("weighting"), keys, reason, **values)
        return scores, pd.DataFrame(not_estimable_rows(scores["weighting"], keys, reason), columns=TABLE_COLUMNS)
