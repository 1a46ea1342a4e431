"""The calibration study's two figures, read back from the drawn axes: the resolution figure's measured and predicted
W1 of each perturbation family against its size with the noise-floor band, and the convergence figure's W1 of the
null engine after each WE iteration (its leading iterations discarded as the metrics discard them), equal to
scipy's weighted W1, with the floor, the whole run's estimate and the segments axis."""

import matplotlib.image
import numpy as np
import pandas as pd
import pytest
from scipy.stats import wasserstein_distance

import westbench.calibration.figures as figures
from westbench.calibration.table_rows import COLUMNS
from westbench.metrics.suite import distributions


@pytest.fixture
def drawn(monkeypatch):
    """The figure each call draws (kept after it is saved and closed), by order of drawing."""
    shown = []
    axes = figures._axes

    def keep(n, title):
        plt, figure, panels = axes(n, title)
        shown.append(figure)
        return plt, figure, panels

    monkeypatch.setattr(figures, "_axes", keep)
    return shown


def row(distribution, kind, temperature, contact, value, low, high, predicted, floor=(None, None)):
    """One W1 row of the study's table (its other columns empty)."""
    values = dict.fromkeys(COLUMNS)
    values.update(
        distribution=distribution,
        metric="w1",
        kind=kind,
        temperature_scale=temperature,
        contact_scale=contact,
        value=value,
        ci_low=low,
        ci_high=high,
        predicted=predicted,
        floor_low=floor[0],
        floor_high=floor[1],
    )
    return values


def lines(axis) -> dict:
    return {
        line.get_label(): (np.asarray(line.get_xdata(), float), np.asarray(line.get_ydata(), float))
        for line in axis.lines
    }


def test_resolution_draws_each_family_against_its_size_with_its_prediction_and_the_floor_band(drawn, tmp_path):
    table = pd.DataFrame(
        [
            row("tic0", "null", 1.0, 1.0, 0.05, 0.02, 0.08, 0.0, floor=(0.01, 0.1)),
            row("tic0", "perturbation", 1.1, 1.0, 0.3, 0.2, 0.4, 0.25),
            row("tic0", "perturbation", 1.05, 1.0, 0.15, None, None, 0.12),  # no interval: bars of zero length
            row("tic0", "perturbation", 1.0, 0.8, 0.5, 0.4, 0.6, 0.45),
            row("tic0", "trained", 1.0, 1.0, 0.9, 0.8, 1.0, None),  # not a perturbation: not drawn
            row("rg", "null", 1.0, 1.0, 0.1, 0.05, 0.2, 0.0, floor=(0.0, 0.3)),
        ],
        columns=COLUMNS,
    )
    path = tmp_path / "resolution.png"
    figures.resolution_figure(table, path, title="study: resolution")
    (figure,) = drawn
    tic0, rg = figure.axes  # one panel per distribution present, in the study's order (tic1 absent)
    assert (tic0.get_ylabel(), rg.get_ylabel()) == ("W1(TIC 0)", "W1(Rg) / Å")
    assert figure._suptitle.get_text() == "study: resolution"
    measured = {container.get_label(): container for container in tic0.containers}
    assert sorted(measured) == ["native contacts: measured", "temperature: measured"]
    x, y = (np.asarray(v, float) for v in measured["temperature: measured"].lines[0].get_data())
    assert x == pytest.approx([0, 5, 10]) and y == pytest.approx([0.05, 0.15, 0.3])  # sorted by size, null at 0
    low_caps, high_caps = (np.asarray(cap.get_ydata(), float) for cap in measured["temperature: measured"].lines[1])
    assert low_caps == pytest.approx([0.02, 0.15, 0.2]) and high_caps == pytest.approx([0.08, 0.15, 0.4])
    x, y = (np.asarray(v, float) for v in measured["native contacts: measured"].lines[0].get_data())
    assert x == pytest.approx([0, 20]) and y == pytest.approx([0.05, 0.5])
    predicted = lines(tic0)
    assert predicted["temperature: predicted (reweighting)"][1] == pytest.approx([0.0, 0.12, 0.25])
    assert predicted["native contacts: predicted (reweighting)"][1] == pytest.approx([0.0, 0.45])
    (band,) = tic0.patches
    assert band.get_label() == "noise floor (95 %)"
    assert (band.get_y(), band.get_y() + band.get_height()) == pytest.approx((0.01, 0.1))
    # Rg has the null alone: a family of one size is no curve, only the floor band.
    assert len(rg.lines) == 0 and rg.containers == [] and len(rg.patches) == 1
    image = matplotlib.image.imread(path)
    assert image.shape[1] > 2 * image.shape[0] and path.stat().st_size > 10_000  # two panels side by side


def test_resolution_without_a_floor_draws_no_band(drawn, tmp_path):
    table = pd.DataFrame(
        [row("tic1", "null", 1.0, 1.0, 0.1, 0.0, 0.2, 0.0), row("tic1", "perturbation", 1.2, 1.0, 0.4, 0.3, 0.5, 0.3)],
        columns=COLUMNS,
    )
    figures.resolution_figure(table, tmp_path / "r.png")
    (axis,) = drawn[0].axes
    assert len(axis.patches) == 0 and axis.get_ylabel() == "W1(TIC 1)"
    assert lines(axis)["temperature: predicted (reweighting)"][0] == pytest.approx([0, 20])
    assert (tmp_path / "r.png").stat().st_size > 5_000


def frames(rng, n, shift):
    return {
        "ca": np.cumsum(rng.normal(0, 0.2, (n, 5, 3)), axis=1).astype(np.float32),
        "tics": rng.normal(shift, 1.0, (n, 2)).astype(np.float32),
    }


@pytest.fixture
def study_frames():
    """A ground truth of 200 frames and a null run of 4 iterations, 6 segments of 5 frames each, random weights."""
    rng = np.random.default_rng(0)
    groundtruth, null = frames(rng, 200, 0.0), frames(rng, 120, 0.5)
    null.update(iteration=np.repeat(np.arange(1, 5), 30), traj=np.repeat(np.arange(24), 5), weight=rng.random(120))
    return groundtruth, null


def expected_w1(groundtruth, null, name, discard):
    """W1 of each iteration's window by scipy: frames after the discarded share (or count) up to that iteration."""
    reference, sample = distributions(groundtruth)[name].ravel(), distributions(null)[name].ravel()
    values = []
    for last in range(1, 5):
        first = min(int(np.floor(discard * last)) if discard < 1 else int(discard), last - 1)
        inside = (null["iteration"] > first) & (null["iteration"] <= last)
        values.append(wasserstein_distance(reference, sample[inside], None, null["weight"][inside]))
    return values


@pytest.mark.parametrize(
    ("discard", "window"), [(0.5, "the later half of the iterations so far"), (0.0, "the iterations so far"), (2, None)]
)
def test_convergence_is_the_weighted_w1_of_each_iterations_window(drawn, study_frames, tmp_path, discard, window):
    groundtruth, null = study_frames
    figures.convergence_figure(groundtruth, null, {"tic0": 0.2}, tmp_path / "c.png", discard=discard)
    (figure,) = drawn
    panels = figure.axes
    assert [axis.get_ylabel() for axis in panels] == ["W1(TIC 0)", "W1(TIC 1)", "W1(Rg) / Å"]
    for axis, name in zip(panels, ("tic0", "tic1", "rg")):
        (label, (x, y)), *_ = lines(axis).items()
        assert label == f"null engine ({window})" if window else label.startswith("null engine (")
        assert x.tolist() == [1, 2, 3, 4]
        assert y == pytest.approx(expected_w1(groundtruth, null, name, discard), rel=1e-9)
    if discard == 0.0:  # the whole run so far: the last point is the W1 of every frame
        everything = wasserstein_distance(groundtruth["tics"][:, 0], null["tics"][:, 0], None, null["weight"])
        assert lines(panels[0])["null engine (the iterations so far)"][1][-1] == pytest.approx(everything)


def test_convergence_draws_the_floor_and_the_whole_runs_estimate_where_finite(drawn, study_frames, tmp_path):
    groundtruth, null = study_frames
    final = {
        "tic0": {"value": 0.3, "ci_low": 0.1, "ci_high": 0.5, "verdict": "within noise"},
        "tic1": {"value": float("nan"), "ci_low": 0.1, "ci_high": 0.5, "verdict": "undetermined"},
    }
    path = tmp_path / "convergence.png"
    figures.convergence_figure(groundtruth, null, {"tic0": 0.2, "tic1": float("nan")}, path, final=final)
    tic0, tic1, rg = drawn[0].axes
    floor = lines(tic0)["noise floor (upper bound)"]
    assert floor[1] == pytest.approx([0.2, 0.2])
    (whole,) = tic0.containers
    assert whole.get_label().startswith("the whole run")
    assert np.asarray(whole.lines[0].get_xdata(), float).tolist() == [4.0]
    assert [float(np.asarray(cap.get_ydata())[0]) for cap in whole.lines[1]] == pytest.approx([0.1, 0.5])
    assert tic0.get_title(loc="right") == "whole run: within noise"
    # A NaN floor and a NaN estimate are not drawn; a distribution without either has the curve alone.
    for axis in (tic1, rg):
        assert list(lines(axis)) == ["null engine (the iterations so far)"] and axis.containers == []
        assert axis.get_title(loc="right") == ""
    # The top axis counts segments: 6 a iteration, 24 in all, no tick past the last.
    (top,) = tic0.child_axes
    assert top.get_xlabel() == "segments" and max(top.get_xticks()) <= 24
    image = matplotlib.image.imread(path)
    assert image.shape[1] > 3 * image.shape[0] and path.stat().st_size > 20_000


def test_thousands_of_segments_are_labelled_in_thousands(drawn, tmp_path):
    rng = np.random.default_rng(1)
    groundtruth, null = frames(rng, 100, 0.0), frames(rng, 2400, 0.2)
    null.update(iteration=np.repeat(np.arange(1, 5), 600), traj=np.arange(2400), weight=np.full(2400, 1 / 600))
    figures.convergence_figure(groundtruth, null, {}, tmp_path / "c.png")
    (top,) = drawn[0].axes[0].child_axes
    ticks, labels = top.get_xticks(), [label.get_text() for label in top.get_xticklabels()]
    assert labels == [f"{t / 1000:g}k" if t >= 1000 else f"{t:g}" for t in ticks]  # e.g. 0, 600, 1.2k, ..., 2.4k
    assert 3 <= len(ticks) <= 5 and sum(text.endswith("k") for text in labels) >= 2 and max(ticks) <= 2400
