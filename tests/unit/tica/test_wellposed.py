"""Well-posedness: too few frames for the features is an error, a TIC without a timescale an error or a caveat."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from westbench.io.frames import write_frames
from westbench.tica import fit_groundtruth
from westbench.tica.wellposed import IllPosedError, assess, check_data

from .synthetic import synthetic_protein


@settings(max_examples=200, deadline=None)
@given(
    eigenvalues=st.lists(st.floats(-1.5, 1.5, allow_nan=False), min_size=0, max_size=8),
    dim=st.integers(1, 10),
    lagged=st.integers(0, 10**6),
    n_features=st.integers(1, 10**4),
    ratio=st.floats(0, 20),
)
def test_errors_and_caveats_follow_the_stated_rules(eigenvalues, dim, lagged, n_features, ratio):
    outside = [k for k, value in enumerate(eigenvalues) if not 0 < value < 1]
    if len(eigenvalues) < 2 or 0 in outside:
        with pytest.raises(IllPosedError, match="Fix: use fewer features"):
            assess(eigenvalues, dim, lagged, n_features, ratio, "p")
        return
    result = assess(eigenvalues, dim, lagged, n_features, ratio, "p")
    record = result.record()
    expected = bool(lagged / n_features >= ratio and not outside and len(eigenvalues) >= dim)
    assert record["well_posed"] is expected and (record["why"] == "") is expected
    assert record["well_posedness"]["tics_without_timescale"] == outside
    for k in outside:
        assert f"TIC {k} has eigenvalue" in record["why"]


def test_more_features_than_lagged_pairs_is_refused_before_fitting(tmp_path):
    """The issue's case, smaller: 98 frames for 2,016 features (64 residues), refused with the keys to change."""
    runs, _, native = synthetic_protein(n_residues=64, n_frames=98, n_runs=1, seed=0)
    write_frames(tmp_path / "run.h5", ca=runs[0], time_ps=np.arange(1, 99) * 10.0)
    with pytest.raises(
        IllPosedError, match=r"88 lagged frame pairs for 2,016 features.*all_pairs_up_to below 2,016.*max_features: 17"
    ):
        fit_groundtruth([tmp_path / "run.h5"], "p64", 10, 4, reference=native)
    check_data(2016, 2016, "p")  # as many as features: allowed (then judged by its eigenvalues)


def test_a_fit_on_noise_has_no_slow_process_and_is_refused(tmp_path):
    """Frames of pure noise around one structure: every eigenvalue is noise, TIC 0 among them may be negative."""
    rng = np.random.default_rng(4)
    runs, _, native = synthetic_protein(n_residues=12, n_frames=60, n_runs=2, seed=4, switch_probabilities=())
    paths = []
    for index, ca in enumerate(runs):
        paths.append(tmp_path / f"run{index}.h5")
        write_frames(paths[-1], ca=ca + rng.normal(scale=0.3, size=ca.shape), time_ps=np.arange(1, 61) * 1.0)
    outcomes = []
    for lag in (1, 2, 3, 4, 5):
        try:
            model, _ = fit_groundtruth(paths, "noise", lag, 4, reference=native)
            outcomes.append(model.metadata["well_posed"])
        except IllPosedError as exc:
            outcomes.append(str(exc))
    # 2 x (60 - lag) pairs for 66 features: never well posed, and an error whenever TIC 0 came out negative
    assert all(outcome is False or "TIC 0 has eigenvalue" in outcome for outcome in outcomes), outcomes
    assert any(isinstance(outcome, str) for outcome in outcomes), outcomes


def test_a_fit_that_fewer_features_cannot_save_names_more_data_alone(tmp_path):
    """Two random pairs of a noise-only protein: the fit is refused, and the fix never reads "lower
    tica.features.max_features from 2 to 2" (fewer than 2 features is no TICA): it names more frames and the lag."""
    rng = np.random.default_rng(4)
    runs, _, native = synthetic_protein(n_residues=12, n_frames=12, n_runs=1, seed=4, switch_probabilities=())
    write_frames(tmp_path / "run.h5", ca=runs[0] + rng.normal(scale=0.3, size=runs[0].shape), time_ps=np.arange(12.0))
    messages = []
    for lag in range(1, 11):
        try:
            fit_groundtruth([tmp_path / "run.h5"], "few", lag, 2, features={"pairs": "random", "max_features": 2})
        except IllPosedError as exc:
            messages.append(str(exc))
    assert messages
    for message in messages:
        assert "from 2 to 2" not in message and "max_features" not in message, message
        assert message.endswith("Fix: give more frames (longer or more runs), or lower tica.lag_frames"), message
