"""The protein's ground-truth macrostate model (rule macrostates): fitted from the frames file, saved with its seed
and settings, and the same model whatever the order of the file's rows."""

import json

import numpy as np

from westbench.io.frames import write_frames
from westbench.metrics.macrostate_fit import fit_macrostate_model
from westbench.metrics.metastable import MacrostateModel


def two_basins(n=600, seed=0):
    rng = np.random.default_rng(seed)
    centre = np.repeat(np.tile([0.0, 3.0], 6), n // 12)
    return {
        "ca": np.cumsum(rng.normal(0, 0.2, (n, 4, 3)), axis=1),
        "time_ps": np.tile(np.arange(n / 2), 2),
        "traj": np.repeat([0, 1], n // 2),
        "tics": centre[:, None] + rng.normal(0, 0.1, (n, 2)),
    }


def test_the_model_is_saved_with_its_seed_and_settings(tmp_path):
    write_frames(tmp_path / "gt.h5", **two_basins())
    settings = {"macrostate_clusters": 8, "macrostates": 2, "msm_lag": 2}
    model = fit_macrostate_model(tmp_path / "gt.h5", settings, 7, tmp_path / "macrostates.npz")
    with np.load(tmp_path / "macrostates.npz") as data:
        facts = json.loads(str(data["facts"]))
    assert facts["seed"] == 7 and facts["settings"]["macrostate_clusters"] == 8 and facts["settings"]["msm_lag"] == 2
    assert set(facts["settings"]) == {"macrostate_clusters", "macrostates", "macrostate_dim", "msm_lag"}
    loaded = MacrostateModel.load(tmp_path / "macrostates.npz")
    assert loaded.n_macrostates == model.n_macrostates == 2


def test_the_rows_order_changes_no_model(tmp_path):
    """The model is fitted on the frames the suite scores, in their canonical order (westbench.io.canonical)."""
    frames = two_basins(seed=1)
    order = np.random.default_rng(2).permutation(len(frames["tics"]))
    write_frames(tmp_path / "sorted.h5", **frames)
    write_frames(tmp_path / "shuffled.h5", **{key: values[order] for key, values in frames.items()})
    settings = {"macrostate_clusters": 8, "macrostates": 2}
    models = [
        fit_macrostate_model(tmp_path / f"{n}.h5", settings, 3, tmp_path / f"{n}.npz") for n in ("sorted", "shuffled")
    ]
    assert np.array_equal(models[0].assign(frames["tics"]), models[1].assign(frames["tics"]))
