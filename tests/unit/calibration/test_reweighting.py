"""A known answer's frames: the ground truth's with their weights, and the engine's own sample beside them."""

import numpy as np

from westbench.calibration.known_answer import KnownAnswer


def test_a_known_answer_pools_its_frames_with_the_ground_truths_keeping_runs_apart():
    groundtruth = {
        "ca": np.zeros((4, 2, 3)),
        "tics": np.zeros((4, 2)),
        "weight": np.full(4, 0.25),
        "traj": np.array([0, 0, 1, 1]),
        "time_ps": np.array([1.0, 2.0, 1.0, 2.0]),
        "iteration": np.zeros(4),
        "forces": np.ones((4, 2, 3)),  # a column the own sample lacks: not pooled
    }
    own = {**{k: v[:2] for k, v in groundtruth.items() if k != "forces"}, "weight": np.array([0.3, 0.3])}
    pooled = KnownAnswer(np.full(4, 0.1), own).pooled(groundtruth)
    assert pooled["weight"].tolist() == [0.1, 0.1, 0.1, 0.1, 0.3, 0.3]
    assert pooled["traj"].tolist() == [0, 0, 1, 1, 2, 2] and "forces" not in pooled
    alone = KnownAnswer(np.full(4, 0.25)).pooled(groundtruth)
    assert len(alone["ca"]) == 4 and np.allclose(alone["weight"], 0.25)
    from_sample = KnownAnswer(np.zeros(4), {**own, "weight": np.array([0.5, 0.5])}).pooled(groundtruth)
    # the ground truth's weightless frames stay: uniform weights would read as the reference's own equilibrium
    assert from_sample["weight"].tolist() == [0.0, 0.0, 0.0, 0.0, 0.5, 0.5]
