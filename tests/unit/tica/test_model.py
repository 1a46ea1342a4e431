"""The stored model: deeptime's map read from its attributes, the pairs saved with it, old models as all pairs."""

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from westbench.errors import WestbenchError
from westbench.geometry.features import pairwise_distances
from westbench.tica import FEATURE_CA_DISTANCES, TicaModel, choose_features, fit_tica

from .synthetic import synthetic_protein


@settings(max_examples=15, deadline=None)
@given(n_features=st.integers(3, 40), dim=st.integers(1, 6), lag=st.integers(1, 5), seed=st.integers(0, 10**6))
def test_the_affine_map_from_deeptimes_attributes_is_its_transform(n_features, dim, lag, seed):
    rng = np.random.default_rng(seed)
    data = [np.cumsum(rng.normal(size=(300, n_features)), axis=0) * 0.01 + rng.normal(size=(300, n_features))]
    fitted = fit_tica(data, lag=lag, dim=dim)
    model = TicaModel.from_deeptime(fitted, "toy", "test", n_features, lag, 1.0)
    probe = rng.normal(size=(50, n_features)) + data[0][:50]
    assert model.dim == fitted.output_dimension
    assert np.allclose(model.transform(probe), fitted.transform(probe), atol=1e-9, rtol=1e-9)
    values = fitted.singular_values[: model.dim]
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = np.where((values > 0) & (values < 1), -lag / np.log(np.abs(values)), np.nan)  # deeptime's, or none
    assert np.allclose(model.timescales_frames, expected, equal_nan=True)


def test_pairs_are_saved_and_every_projection_uses_them(tmp_path):
    runs, _, native = synthetic_protein(n_residues=30, n_frames=400, n_runs=2, seed=1)
    features = choose_features(30, {"all_pairs_up_to": 100, "max_features": 120}, native, seed=4)
    fitted = fit_tica(runs, lag=2, dim=3, featurize=features.compute)
    model = TicaModel.from_deeptime(fitted, "toy", FEATURE_CA_DISTANCES, 120, 2, 0.2, features=features)
    model.save(tmp_path / "model")
    description = json.loads((tmp_path / "model.json").read_text())
    assert description["features"]["selection"] == "contacts" and description["features"]["n_features"] == 120
    loaded = TicaModel.load(tmp_path / "model.json", protein="toy", feature=FEATURE_CA_DISTANCES, n_features=120)
    assert np.array_equal(loaded.features.pairs, features.pairs)
    expected = fitted.transform(features.compute(runs[1]).astype(np.float64))
    assert np.allclose(loaded.project(runs[1]), expected, atol=1e-8)
    assert np.allclose(loaded.project(runs[1], chunk_frames=7), loaded.project(runs[1]), atol=1e-12)  # chunked alike
    assert loaded.project(runs[1][:0]).shape == (0, 3)


def test_a_model_saved_before_pairs_were_stored_loads_as_all_pairs(tmp_path):
    runs, _, _ = synthetic_protein(n_residues=8, n_frames=300, n_runs=1, seed=2)
    features = pairwise_distances(runs[0])
    fitted = fit_tica([features], lag=1, dim=2)
    TicaModel.from_deeptime(fitted, "toy", FEATURE_CA_DISTANCES, 28, 1, 0.1).save(tmp_path / "old")
    description = json.loads((tmp_path / "old.json").read_text())
    description["version"] = 1  # what format 1 wrote: no pairs, no features record
    (tmp_path / "old.json").write_text(json.dumps(description))
    old = TicaModel.load(tmp_path / "old", protein="toy")
    assert old.features is None and old.pair_features.selection == "all"
    assert np.allclose(old.project(runs[0]), fitted.transform(features.astype(np.float64)), atol=1e-8)
    description["version"] = 3
    (tmp_path / "old.json").write_text(json.dumps(description))
    with pytest.raises(WestbenchError, match="format version 1 or 2"):
        TicaModel.load(tmp_path / "old")
    model = TicaModel(np.ones((4, 2)), np.zeros(2), np.ones(2), "toy", "other", 4, 1, 1.0)
    with pytest.raises(WestbenchError, match="not C-alpha distances"):
        model.project(runs[0])
