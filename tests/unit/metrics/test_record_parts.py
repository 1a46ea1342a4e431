"""The parts of metrics.json beside each weighting's scores: the exported frames' accounting, the macrostates used,
the figures' weighting and the record of an engine with nothing to score, each in the declared fields."""

import numpy as np
import pytest

from westbench.io.frames import DROPPED_ATTR, Frames
from westbench.metrics.record import RECORD_KEYS, make_record
from westbench.metrics.record_parts import (
    REDUCED_MACROSTATES,
    ExportedFrames,
    exported_frames,
    macrostates_field,
    nothing_to_score_record,
)


def export(ok, weight, dropped=0):
    n = len(ok)
    frames = Frames(
        ca=np.random.default_rng(0).normal(0, 1, (n, 4, 3)),
        weight=np.asarray(weight, float),
        ok=np.asarray(ok, np.int8),
        traj=np.zeros(n, int),
        time_ps=np.arange(float(n)),
    )
    frames.attrs = {DROPPED_ATTR: dropped} if dropped else {}
    return frames


def test_ended_walkers_are_left_out_with_their_share_of_the_weight():
    frames = exported_frames(export([1, 0, 1, 0], [0.1, 0.2, 0.3, 0.4], dropped=5))
    assert (frames.exported, frames.left_out, frames.dropped, len(frames.frames["ca"])) == (4, 2, 5, 2)
    assert frames.weight_left_out == pytest.approx(0.6)
    assert frames.fields() == {"frames_left_out": 2, "weight_left_out": frames.weight_left_out, DROPPED_ATTR: 5}
    assert set(frames.fields()) <= set(RECORD_KEYS)


def test_nothing_left_out_is_no_weight_left_out():
    frames = exported_frames(export([1, 1, 1], [1, 1, 1]))
    assert (frames.left_out, frames.weight_left_out, frames.dropped) == (0, 0.0, 0)


def test_reduced_macrostates_say_why():
    class Shared:
        why = "two sets only"

    assert macrostates_field(5, 5, None) == {
        "requested": 5,
        "used": 5,
        "reduced": False,
        "why": "",
        "shared_model": False,
    }
    assert macrostates_field(5, 2, None)["why"] == REDUCED_MACROSTATES
    assert (
        macrostates_field(5, 2, Shared())["why"] == "two sets only"
        and macrostates_field(5, 2, Shared())["shared_model"]
    )


def test_the_record_of_nothing_to_score_is_a_declared_record_with_the_reason():
    ended = ExportedFrames({"ca": np.zeros((0, 4, 3))}, exported=7, left_out=7, weight_left_out=1.0, dropped=2)
    record = nothing_to_score_record("p", "e", ["we", "msm"], {"macrostates": 4}, ended)
    assert list(record) == list(make_record(training=None))
    reason = record["not_estimable"]["frames"]
    assert reason.startswith("no frame to score: all 7 exported frames") and record["sanity"]["passed"] is True
    assert (record["frames_left_out"], record[DROPPED_ATTR], record["frames"]) == (7, 2, 0)
    assert record["macrostates"] == {"requested": 4, "used": 0, "reduced": True, "why": reason, "shared_model": False}
    assert sorted(record["metrics"]) == ["msm", "we"] and record["figures"] == {"weighting": "we", "files": []}
