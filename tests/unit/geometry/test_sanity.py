"""Engine sanity on generated chains: honest engines pass, each broken one fails its own check, whatever the ground
truth's size; the checks are a property of the weighted frame set (row order, copies, zero weights, a constant factor
on the weights change nothing), and degenerate frame sets never crash them."""

import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from westbench.errors import WestbenchError
from westbench.geometry import chain_checks, ensemble_checks
from westbench.geometry.sanity import CHECKS, SanityReport, engine_sanity

from .chains import chain_ensemble

MIRROR = np.array([-1.0, 1.0, 1.0], dtype=np.float32)


def frames(ca, weight=None):
    return {"ca": ca} if weight is None else {"ca": ca, "weight": np.asarray(weight, dtype=np.float64)}


@pytest.fixture(scope="module")
def groundtruth():
    """A demo-sized ground truth: 60 frames of a 10-residue chain."""
    return frames(chain_ensemble(10, 60, seed=1))


@pytest.fixture(scope="module")
def honest():
    """Honest engines: the same ensemble, one with other populations (mostly strand), one short WE-like run whose
    weights span three orders of magnitude."""
    rng = np.random.default_rng(5)
    return {
        "same": frames(chain_ensemble(10, 1140, seed=2)),
        "other populations": frames(chain_ensemble(10, 2000, seed=3, helix_share=0.15, noise_deg=20.0)),
        "weighted": frames(chain_ensemble(10, 500, seed=4), 10 ** rng.uniform(-3, 0, 500)),
    }


def only_failure(report: SanityReport, check: str) -> None:
    assert report.failed == [check], report.to_dict()
    assert report.passed is False and report.checks[check].passed is False
    assert check in report.reason() and report.checks[check].message in report.reason()


def test_the_ground_truth_and_honest_engines_pass_every_check(groundtruth, honest):
    report = engine_sanity(groundtruth, groundtruth)
    assert report.passed and all(report.checks[name].passed for name in CHECKS), report.to_dict()
    assert report.checks["chirality"].value == pytest.approx(1.0)
    for name, model in honest.items():
        report = engine_sanity(groundtruth, model)
        assert report.failed == [] and report.reason() == "", (name, report.to_dict())
        assert report.checks["units"].value == pytest.approx(3.8, abs=0.05)
        assert report.checks["exploded"].value == 0.0 and report.checks["chirality"].value > 0.3


@pytest.mark.parametrize("repeated", [1, 3, 5, 9])
def test_a_few_frames_repeated_fail_collapse_alone(groundtruth, honest, repeated):
    """One ground-truth frame repeated 1,140 times (the issue's engine) and a few frames repeated fail collapse."""
    source = honest["same"]["ca"]
    rows = np.random.default_rng(repeated).choice(len(source), repeated, replace=False)
    stuck = source[rows[np.arange(1140) % repeated]]
    report = engine_sanity(groundtruth, frames(stuck))
    only_failure(report, "collapse")
    assert report.checks["collapse"].value == pytest.approx(repeated, rel=1e-3)
    one_of_the_groundtruth = np.repeat(groundtruth["ca"][:1], 1140, axis=0)
    only_failure(engine_sanity(groundtruth, frames(one_of_the_groundtruth)), "collapse")


def test_a_run_whose_weight_rests_on_a_few_frames_is_judged_on_its_weights(groundtruth, honest):
    ca = honest["same"]["ca"]
    weight = np.full(len(ca), 1e-9)
    weight[[10, 500, 900]] = 1.0  # 3 frames carry all but a millionth of the weight
    only_failure(engine_sanity(groundtruth, frames(ca, weight)), "collapse")
    assert engine_sanity(groundtruth, frames(ca, weight), weights=np.ones(len(ca))).passed  # the same frames, even


def test_frames_that_barely_move_fail_collapse_on_their_spread(groundtruth, honest):
    """One structure jittered by 0.1 Angstrom (a minimized structure, or dynamics near zero temperature): distinct
    frames, but no ensemble; the spread gives it away."""
    rng = np.random.default_rng(2)
    jittered = honest["same"]["ca"][:1] + rng.normal(0, 0.01, (1200, 10, 3)).astype(np.float32)
    report = engine_sanity(groundtruth, frames(jittered))
    assert report.checks["collapse"].value >= ensemble_checks.MIN_CONFORMATIONS  # distinct frames...
    only_failure(report, "collapse")  # ...spread far below the ground truth's
    assert "spread below" in report.checks["collapse"].message


def test_the_mirror_image_fails_chirality_alone(groundtruth, honest):
    for name, model in honest.items():
        report = engine_sanity(groundtruth, {**model, "ca": model["ca"] * MIRROR})
        only_failure(report, "chirality")
        assert report.checks["chirality"].value < ensemble_checks.MAX_MIRROR_HANDEDNESS, name
    report = engine_sanity(groundtruth, {"ca": groundtruth["ca"] * MIRROR})
    assert report.checks["chirality"].value == pytest.approx(-1.0)


def test_an_achiral_model_passes_and_is_called_achiral(groundtruth, honest):
    """Both hands alike (a CG network on distances alone): not a mirror image, so it passes, and the message says."""
    ca = honest["same"]["ca"]
    both = np.concatenate([ca, ca * MIRROR])
    report = engine_sanity(groundtruth, frames(both))
    assert report.passed and abs(report.checks["chirality"].value) < 0.05
    assert "achiral" in report.checks["chirality"].message


def test_a_ground_truth_that_is_not_clearly_chiral_leaves_chirality_undecided(honest):
    """A random walk (no handedness), or 6 frames whose profile is noise: passed None with the reason."""
    rng = np.random.default_rng(3)
    walk = frames(np.cumsum(rng.normal(0, 0.2, (400, 10, 3)), axis=1).astype(np.float32))
    for groundtruth in (walk, frames(np.concatenate([walk["ca"][:3], walk["ca"][:3] * MIRROR]))):
        check = engine_sanity(groundtruth, {"ca": honest["same"]["ca"] * MIRROR}).checks["chirality"]
        assert check.passed is None and check.value is None and "not clearly chiral" in check.message


@pytest.mark.parametrize(
    ("factor", "hint"),
    [(10.0, "Angstrom read as nm"), (0.1, "nm read as Angstrom"), (1.89, "Bohr read as Angstrom"), (0.8, "scale")],
)
def test_a_unit_mistake_fails_units_alone(groundtruth, honest, factor, hint):
    report = engine_sanity(groundtruth, {**honest["weighted"], "ca": honest["weighted"]["ca"] * factor})
    only_failure(report, "units")
    assert (
        report.checks["units"].value == pytest.approx(3.8 * factor, rel=0.02) and hint in report.checks["units"].message
    )


@pytest.mark.parametrize("share", [0.01, 0.05, 0.3])
def test_exploded_frames_fail_exploded_alone(groundtruth, honest, share):
    """A share of frames blown apart (coordinates scattered by nanometres) or imploded onto a point."""
    rng = np.random.default_rng(int(share * 100))
    for how in ("exploded", "imploded"):
        ca = honest["same"]["ca"].copy()
        broken = rng.random(len(ca)) < share
        if how == "exploded":
            ca[broken] += rng.normal(0, 1.0, ca[broken].shape).astype(np.float32)
        else:
            ca[broken] = ca[broken].mean(axis=1, keepdims=True) + 0.01 * (
                ca[broken] - ca[broken].mean(axis=1, keepdims=True)
            )
        report = engine_sanity(groundtruth, frames(ca))
        only_failure(report, "exploded")
        assert report.checks["exploded"].value == pytest.approx(broken.mean(), abs=1e-9)


def test_exploded_frames_of_negligible_weight_pass(groundtruth, honest):
    ca, weight = honest["same"]["ca"].copy(), np.ones(1140)
    ca[:3] *= 50.0
    weight[:3] = chain_checks.EXPLODED_MAX_SHARE / 10 / 3 * weight[3:].sum()
    assert engine_sanity(groundtruth, frames(ca, weight)).passed


def test_a_chain_break_is_no_stretched_bond_and_chains_drifting_apart_are_exploded(honest):
    """Two chains (a complex, or a missing loop): the pair across the break is not a bond (native or ground truth);
    chains that drift 20 nm apart are exploded by their radius of gyration."""
    ca = honest["same"]["ca"]
    complex_ = np.concatenate([ca[:, :5], ca[:, 5:] + np.array([2.0, 0, 0], np.float32)], axis=1)
    groundtruth = frames(complex_[:60])
    assert engine_sanity(groundtruth, frames(complex_[60:])).passed
    assert engine_sanity(groundtruth, frames(complex_[60:]), native_ca=complex_[0]).passed
    apart = complex_[60:].copy()
    apart[:100, 5:] += np.array([20.0, 0, 0], np.float32)
    only_failure(engine_sanity(groundtruth, frames(apart)), "exploded")


def reports_equal(a: SanityReport, b: SanityReport) -> None:
    one, two = a.to_dict(), b.to_dict()
    assert one["failed"] == two["failed"]
    for name in CHECKS:
        x, y = one["checks"][name], two["checks"][name]
        assert x["passed"] == y["passed"], name
        assert (x["value"] is None) == (y["value"] is None), name
        if x["value"] is not None:
            assert x["value"] == pytest.approx(y["value"], rel=1e-9, abs=1e-12), name


@pytest.mark.parametrize("broken", ["none", "collapse", "chirality"])
def test_the_checks_depend_on_the_weighted_frame_set_only(groundtruth, honest, broken):
    """Row order, every frame written twice with half its weight, weights times 1000 and zero-weight frames (even
    exploded ones) change no check."""
    model = dict(honest["weighted"])
    if broken == "collapse":
        model["ca"] = model["ca"][np.arange(500) % 4]
    elif broken == "chirality":
        model["ca"] = model["ca"] * MIRROR
    base = engine_sanity(groundtruth, model)
    order = np.random.default_rng(7).permutation(500)
    reports_equal(base, engine_sanity(groundtruth, {"ca": model["ca"][order], "weight": model["weight"][order]}))
    twice = {"ca": np.concatenate([model["ca"]] * 2), "weight": np.concatenate([model["weight"]] * 2) / 2}
    reports_equal(base, engine_sanity(groundtruth, twice))
    reports_equal(base, engine_sanity(groundtruth, {**model, "weight": model["weight"] * 1000}))
    ghosts = {
        "ca": np.concatenate([model["ca"], model["ca"][:50] * 30]),
        "weight": np.concatenate([model["weight"], np.zeros(50)]),
    }
    reports_equal(base, engine_sanity(groundtruth, ghosts))


def test_at_the_calibration_study_s_scale_the_same_failures_are_caught():
    """12,800 ground-truth frames and engines of 20,000: honest passes, each broken copy fails its check."""
    groundtruth = frames(chain_ensemble(10, 12_800, seed=11))
    model = chain_ensemble(10, 20_000, seed=12, helix_share=0.4)
    assert engine_sanity(groundtruth, frames(model)).passed
    only_failure(engine_sanity(groundtruth, frames(model * MIRROR)), "chirality")
    only_failure(engine_sanity(groundtruth, frames(model * 10)), "units")
    only_failure(engine_sanity(groundtruth, frames(model[np.arange(20_000) % 5])), "collapse")
    exploded = model.copy()
    exploded[::50] += np.random.default_rng(1).normal(0, 1.0, exploded[::50].shape).astype(np.float32)
    only_failure(engine_sanity(groundtruth, frames(exploded)), "exploded")


def test_no_frame_of_positive_weight_leaves_every_check_undecided_and_mismatched_frames_are_refused(groundtruth):
    report = engine_sanity(groundtruth, frames(groundtruth["ca"], np.zeros(60)))
    assert report.passed and report.failed == [] and all(report.checks[n].passed is None for n in CHECKS)
    assert "no frame of positive weight" in report.checks["units"].message
    with pytest.raises(WestbenchError, match="C-alpha frames of one protein"):
        engine_sanity(groundtruth, frames(groundtruth["ca"][:, :9]))
    with pytest.raises(WestbenchError, match="native structure has 9 C-alpha"):
        engine_sanity(groundtruth, groundtruth, native_ca=groundtruth["ca"][0, :9])


@st.composite
def degenerate(draw):
    """Tiny frame sets: 1-6 residues, 1-5 frames, identical frames, coincident atoms, zero and tiny weights."""
    residues = draw(st.integers(1, 6))
    n = draw(st.integers(1, 5))
    coordinate = st.floats(-1.0, 1.0, allow_nan=False, width=32)
    ca = np.array(draw(st.lists(coordinate, min_size=n * residues * 3, max_size=n * residues * 3)), np.float32)
    ca = ca.reshape(n, residues, 3)
    if draw(st.booleans()):
        ca[:] = ca[0]  # one conformation repeated
    if draw(st.booleans()):
        ca[:, :] = ca[:, :1]  # every atom on one point
    weight = np.array(draw(st.lists(st.sampled_from([0.0, 1e-300, 1e-3, 1.0]), min_size=n, max_size=n)))
    return {"ca": ca, "weight": weight}


@settings(max_examples=80, suppress_health_check=[HealthCheck.too_slow])
@given(groundtruth=degenerate(), model=degenerate())
def test_degenerate_frame_sets_never_crash_and_give_a_complete_report(groundtruth, model):
    model["ca"] = np.resize(model["ca"], (len(model["ca"]), *groundtruth["ca"].shape[1:]))
    report = engine_sanity(groundtruth, model)
    record = json.loads(json.dumps(report.to_dict(), allow_nan=False))  # JSON: finite numbers or null
    assert list(record["checks"]) == list(CHECKS) and record["failed"] == report.failed
    assert record["passed"] == (not record["failed"])
    for check in record["checks"].values():
        assert check["passed"] in (True, False, None) and check["message"] and check["threshold"]
        assert check["value"] is None or np.isfinite(check["value"])
    itself = engine_sanity(groundtruth, groundtruth)
    assert "collapse" not in itself.failed and "chirality" not in itself.failed and "units" not in itself.failed
