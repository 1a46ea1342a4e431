"""The structure figures, read back from the drawn axes: the contact-map difference's symmetric colour scale, its
1-based residue ticks and label, a zero map; the macrostate scatter's seeded subsample, its colours per state and
grey unassigned points; and the registry's draw functions on a job's figure data (the contact map refused with its
reason when the suite could not estimate it)."""

import matplotlib.image
import numpy as np
import pytest
from matplotlib.colors import to_rgba

import westbench.metrics.figures.structure as structure
from westbench.metrics.estimability import NotEstimable
from westbench.metrics.figure_list import figure
from westbench.metrics.figures.data import EngineFigureData

from .frames import frames


@pytest.fixture
def drawn(monkeypatch):
    """The figures drawn, each kept after it is saved (and written as the module writes it)."""
    shown = []
    save = structure.save

    def keep(fig, path):
        shown.append(fig)
        save(fig, path)

    monkeypatch.setattr(structure, "save", keep)
    return shown


def test_the_contact_map_scale_is_symmetric_about_zero_at_the_largest_difference(drawn, tmp_path):
    difference = np.zeros((30, 30))
    difference[0, 29] = difference[29, 0] = 1.5
    difference[3, 4] = difference[4, 3] = -4.0
    path = tmp_path / "contact.png"
    structure.contact_map_difference(difference, path, label="implicit")
    axis, colourbar = drawn[0].axes
    image = axis.images[0]
    assert (image.norm.vmin, image.norm.vcenter, image.norm.vmax) == (-4.0, 0.0, 4.0)
    assert colourbar.get_ylabel() == "implicit - ground truth (Å)"
    assert np.array_equal(image.get_array(), difference)
    # At most about ten ticks, every third residue here, numbered from 1.
    assert axis.get_xticks().tolist() == list(range(0, 30, 3))
    assert [t.get_text() for t in axis.get_xticklabels()] == [str(i + 1) for i in range(0, 30, 3)]
    assert axis.get_yticks().tolist() == axis.get_xticks().tolist()
    assert path.stat().st_size > 5_000


def test_a_map_without_differences_draws_white_on_a_tiny_scale(drawn, tmp_path):
    path = tmp_path / "zero.png"
    structure.contact_map_difference(np.zeros((4, 4)), path)
    image = drawn[0].axes[0].images[0]
    assert (image.norm.vmin, image.norm.vmax) == (-1e-3, 1e-3)  # no zero-width scale
    colours = image.to_rgba(image.get_array())[..., :3]
    assert np.all(colours > 0.9)  # zero is the diverging map's white, every cell
    assert matplotlib.image.imread(path)[..., :3].std() > 0.01  # axes, ticks and colour bar drawn


def tic_points(rng, n):
    return rng.normal(size=(n, 2))


def test_the_scatter_draws_a_seeded_subsample_of_each_panel_coloured_by_state(drawn, tmp_path):
    rng = np.random.default_rng(4)
    truth, model = tic_points(rng, 500), tic_points(rng, 300)
    truth_labels, model_labels = rng.integers(-1, 3, 500), rng.integers(-1, 2, 300)
    for k in range(2):
        structure.macrostate_scatter(
            truth, truth_labels, model, model_labels, tmp_path / f"m{k}.png", max_points=200, seed=7, label="cg"
        )
    first, second = drawn
    for fig in drawn:
        left, right = fig.axes
        assert (left.get_title(), right.get_title()) == ("ground truth", "cg")
        assert sum(len(c.get_offsets()) for c in left.collections) == 200  # 500 points: the subsample
        assert sum(len(c.get_offsets()) for c in right.collections) == 200
        unassigned, *states = left.collections
        assert np.allclose(unassigned.get_facecolor()[0], to_rgba("0.8"))
        for state, collection in enumerate(states):
            assert np.allclose(collection.get_facecolor()[0], to_rgba(f"C{state}"))
        assert [t.get_text() for t in right.get_legend().get_texts()] == [
            "macrostate 0",
            "macrostate 1",
            "macrostate 2",
        ]
    # The same seed, the same points; every point drawn is one of the panel's frames.
    offsets = [np.concatenate([c.get_offsets() for c in fig.axes[0].collections]) for fig in drawn]
    assert np.array_equal(offsets[0], offsets[1])
    assert {tuple(p) for p in offsets[0]} <= {tuple(p) for p in truth}
    assert (tmp_path / "m0.png").stat().st_size > 10_000


def test_a_scatter_without_any_assigned_point_has_no_legend(drawn, tmp_path):
    rng = np.random.default_rng(5)
    structure.macrostate_scatter(
        tic_points(rng, 50), np.full(50, -1), tic_points(rng, 40), np.full(40, -1), tmp_path / "m.png"
    )
    left, right = drawn[0].axes
    assert left.get_legend() is None and right.get_legend() is None
    assert [len(c.get_offsets()) for c in left.collections] == [50]
    assert (tmp_path / "m.png").stat().st_size > 5_000


def job_data(values, labels=None, settings=None):
    groundtruth, model = frames(200, 0.0, 1, dims=2), frames(100, 0.4, 2, dims=2)
    return EngineFigureData.of(groundtruth, model, None, values, labels or {}, settings or {}, "implicit", ({}, {}))


def test_the_registry_draws_the_contact_map_from_the_suites_values_or_says_why_not(drawn, tmp_path):
    draw = figure("contact_map_difference").function()
    assert draw is structure.draw_contact_map_difference
    with pytest.raises(NotEstimable, match="contact map of this weighting could not be estimated"):
        draw(job_data({"contact_map_diff_A": None}), tmp_path / "none.png")
    assert not (tmp_path / "none.png").exists() and drawn == []
    difference = [[0.0, 2.0], [2.0, 0.0]]
    draw(job_data({"contact_map_diff_A": difference}), tmp_path / "map.png")
    axis, colourbar = drawn[0].axes
    assert axis.images[0].get_array().tolist() == difference and colourbar.get_ylabel().startswith("implicit")


def test_the_registry_draws_the_macrostates_with_the_jobs_point_limit_and_seed(drawn, tmp_path):
    draw = figure("macrostates").function()
    assert draw is structure.draw_macrostates
    labels = {"groundtruth": np.repeat([0, 1], 100), "model": np.repeat([1, -1], 50)}
    data = job_data({}, labels, {"scatter_max_points": 60, "seed": 2})
    draw(data, tmp_path / "macro.png")
    left, right = drawn[0].axes
    assert right.get_title() == "implicit"
    assert sum(len(c.get_offsets()) for c in left.collections) == 60
    assert sum(len(c.get_offsets()) for c in right.collections) == 60
    expected = data.groundtruth_tics[np.sort(np.random.default_rng(2).choice(200, 60, replace=False))]
    drawn_points = np.concatenate([c.get_offsets() for c in left.collections])
    assert {tuple(p) for p in drawn_points} == {tuple(p) for p in expected}
