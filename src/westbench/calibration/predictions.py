"""Each engine's known answer as the study's table reads it: the divergence it predicts on every metric the suite
reports, and that answer as a sample of the engine's size shows it.

The answer itself (the ground truth reweighted to the engine's equilibrium, or the engine's own unbiased sample) is
:mod:`westbench.calibration.known_answer`'s; here it becomes the table's ``predicted`` and ``predicted_at_size``
columns (:func:`westbench.calibration.table_rows.engine_rows`) and ``calibration.json``'s ``known_answer_at_size``.

Examples
--------
>>> record = {"metrics": {"we": {"noise_floor": {"w1": {"tic0": {"value": 0.04, "low": 0.01, "high": 0.09}}}}}}
>>> floor_medians(record, "we")
{('w1', 'tic0'): 0.04}
>>> known_answer_at_size({"metrics": {"we": {}}}, "we", known=None, answer=None, engine="contacts_80")
(None, {'how': "none: the engine's metrics.json has no effective frames"})
"""

from __future__ import annotations

from typing import Mapping, NamedTuple

import numpy as np

from westbench.metrics.weighted import effective_sample_size

__all__ = ["EngineAnswer", "engine_answer", "floor_medians", "known_answer_at_size", "predicted_divergences"]


def predicted_divergences(
    groundtruth: Mapping, weights: np.ndarray, settings: Mapping | None = None, own: Mapping | None = None
) -> dict:
    """Every divergence the metric suite reports, {(metric, distribution): value}, between the ground truth and the
    ground truth reweighted by ``weights`` (aligned with its frames), or the known answer's ``own`` sample where it
    has one (:class:`~westbench.calibration.known_answer.KnownAnswer`): the suite itself computes them, on its
    grids and with its estimators, so a prediction and an engine's score are the same number of the same
    distributions."""
    from westbench.calibration.known_answer import KnownAnswer

    suite = KnownAnswer(np.asarray(weights, dtype=np.float64), own).suite(groundtruth, settings)
    values = suite.divergences(suite.weights("we"))
    return {(metric, name): float(value) for metric, by_name in values.items() for name, value in by_name.items()}


def floor_medians(record: Mapping, weighting: str) -> dict:
    """{(metric, distribution): the noise floor's median} of an engine's metrics.json: the ground truth against
    itself at the engine's effective frames, the reference's equilibrium as a sample of the engine's size shows it
    (its known answer at that size, :mod:`westbench.calibration.known_answer`)."""
    floor = ((record.get("metrics") or {}).get(weighting) or {}).get("noise_floor") or record.get("noise_floor") or {}
    return {
        (metric, name): float(bound["value"])
        for metric in ("w1", "kl")
        for name, bound in (floor.get(metric) or {}).items()
        if isinstance(bound, Mapping) and bound.get("value") is not None
    }


def known_answer_at_size(record: Mapping, weighting: str, known, answer, engine: str) -> tuple[dict | None, dict]:
    """An engine's known answer at its own sample size and how it was made (``calibration.json``'s
    ``known_answer_at_size``): its own sample's runs drawn to the engine's Kish effective frames
    (:func:`westbench.calibration.known_answer.answer_at_size`), the noise floor's median for the reference's
    equilibrium (:func:`floor_medians`), or none for a reweighted ground truth (no independent sample to draw:
    the answer as it is)."""
    from westbench.calibration.known_answer import answer_at_size
    from westbench.seeds import derive_seed

    effective = ((record.get("metrics") or {}).get(weighting) or {}).get("effective_frames")
    if effective is None:
        return None, {"how": "none: the engine's metrics.json has no effective frames"}
    if known.sampled:
        seed = derive_seed(int((record.get("settings") or {}).get("seed", 0)), "known_answer_at_size", engine)
        values, drawn = answer_at_size(answer, float(effective), seed)
        return values, {"how": "own sample drawn to the engine's size", "engine_effective_frames": effective, **drawn}
    if known.is_reference():
        return floor_medians(record, weighting), {
            "how": "the noise floor's median (the ground truth against itself at the engine's size)",
            "engine_effective_frames": effective,
        }
    return None, {"how": "none: a reweighted ground truth has no independent sample to draw"}


class EngineAnswer(NamedTuple):
    """An engine's known answer as its table rows and ``calibration.json`` read it (:func:`engine_answer`)."""

    #: {(metric, distribution): the divergence the answer predicts}: the table's ``predicted``.
    predicted: dict
    #: {(metric, distribution): (low, high)} of the engine's score minus the answer; None without the engine's frames.
    differences: dict | None
    #: The answer at the engine's sample size (:func:`known_answer_at_size`): the table's ``predicted_at_size``.
    at_size: dict | None
    #: How ``at_size`` was made: ``calibration.json``'s ``known_answer_at_size`` of the engine.
    at_size_how: dict
    #: The Kish effective frames of the answer's sample: ``known_answer_effective_frames``.
    effective_frames: float


def engine_answer(
    engine: str,
    record: Mapping,
    groundtruth: Mapping,
    reweighting_path,
    weighting: str,
    known_sample=None,
    frames_path=None,
) -> EngineAnswer:
    """The known answer of a reference-model engine (one with weights in ``reweighting_path``), scored by the suite
    with the engine's own settings (its metrics.json ``record``): the divergences it predicts, the same at the
    engine's size, and with the engine's exported frames (``frames_path``) the difference intervals of its
    score minus the answer (:func:`westbench.calibration.known_answer.difference_intervals`). ``known_sample``: the
    engine's own weighted sample where its answer rests on one."""
    from westbench.calibration.known_answer import difference_intervals, load_known_answer
    from westbench.io.frames import read_frames

    settings = record.get("settings", {})
    known = load_known_answer(reweighting_path, engine, known_sample)
    own_weight = np.zeros(0) if known.own is None else np.asarray(known.own["weight"])
    effective_frames = effective_sample_size(np.concatenate([known.shared, own_weight]))
    answer = known.suite(groundtruth, settings)
    predicted = {key: float(value) for key, value in zip(answer.binned.keys, answer.estimates(answer.weights("we")))}
    at_size, how = known_answer_at_size(record, weighting, known, answer, engine)
    differences = None
    if frames_path is not None:
        frames = read_frames(frames_path)
        differences = difference_intervals(
            groundtruth, frames, known.shared, settings, weighting, known.own, answer=answer
        )
    return EngineAnswer(predicted, differences, at_size, how, effective_frames)
