"""The Go reference potential: forces are its gradient, the native structure is a minimum, both states populated."""

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from westbench.cg.engine import CGEngine
from westbench.cg.model import energy_and_forces, load_energy_model
from westbench.cg.native import native_ca, native_residues, write_native_pdb
from westbench.cg.reference import GoModel, build_reference, contact_fraction, contact_pairs, folded_fraction
from westbench.config import section_defaults

REFERENCE = section_defaults("calibration.reference")
STUDY_T = section_defaults("calibration")["temperature_k"]
LANGEVIN = section_defaults("calibration.langevin")


@pytest.fixture(scope="module")
def model():
    return GoModel(native_ca("1UAO").tolist(), **REFERENCE)


def test_forces_are_minus_the_gradient_of_the_energy(model):
    rng = np.random.default_rng(0)
    x = torch.tensor(native_ca("1UAO")[None] + rng.normal(0, 0.03, (4, 10, 3)))
    forces = model.forces(x)  # the closed form the engine integrates
    assert torch.allclose(forces, energy_and_forces(model, x)[1], rtol=1e-9, atol=1e-6)  # and autograd's
    h = 1e-6
    numeric = torch.zeros_like(x)
    for bead in range(10):
        for axis in range(3):
            step = torch.zeros_like(x)
            step[:, bead, axis] = h
            numeric[:, bead, axis] = -(model(x + step) - model(x - step)) / (2 * h)
    scale = float(forces.abs().max())
    assert torch.allclose(forces, numeric, atol=1e-6 * scale, rtol=1e-6)


def test_the_native_structure_is_a_local_minimum(model):
    from scipy.optimize import minimize

    native = native_ca("1UAO")

    def energy(flat):
        x = torch.tensor(flat.reshape(1, 10, 3), requires_grad=True)
        e = model(x).sum()
        (g,) = torch.autograd.grad(e, x)
        return float(e.detach()), g.numpy().ravel()

    found = minimize(energy, native.ravel(), jac=True, method="L-BFGS-B").x.reshape(10, 3)
    shift = found - found.mean(0) - (native - native.mean(0))
    assert np.sqrt(np.mean(np.sum(shift**2, axis=1))) < 0.01  # nm: the minimum is the native structure
    rng = np.random.default_rng(1)
    lowest = energy(found.ravel())[0]
    for _ in range(20):  # every small displacement costs energy
        assert energy(found.ravel() + rng.normal(0, 0.005, 30))[0] > lowest
    assert float(contact_fraction(native[None], model)[0]) == 1.0


def test_folded_and_unfolded_are_both_populated_at_the_study_temperature(tmp_path, model):
    path = tmp_path / "reference.pt"
    build_reference("1UAO", REFERENCE, path)
    engine = CGEngine(
        path,
        "reference",
        basis_positions=native_ca("1UAO"),
        langevin={**LANGEVIN, "temperature_k": STUDY_T},
        device="cpu",
    )
    states, frames = [engine.basis_state()] * 32, []
    for chunk in range(40):  # 40 ps, 1 ps per frame; the first 10 ps relax from the native start
        results = engine.propagate(states, n_steps=100, save_every=100, seeds=[chunk * 100 + i for i in range(32)])
        assert {r.status for r in results} == {"ok"}
        states = [r.final for r in results]
        if chunk >= 10:
            frames.append(np.stack([r.frames[-1] for r in results]))
    share = folded_fraction(np.concatenate(frames), model)
    assert 0.25 <= share <= 0.7  # docs/calibration.md: about 45 % folded at 300 K


def test_a_weaker_contact_term_lowers_the_native_energy_by_its_share(model):
    x = model.native[None]
    weaker = GoModel(native_ca("1UAO").tolist(), **{**REFERENCE, "contact_scale": 0.8})
    contacts = float(model.terms(x)["contacts"][0])
    assert float(weaker(x)[0] - model(x)[0]) == pytest.approx(-0.2 * contacts, rel=1e-9)


def test_the_model_loads_through_the_cg_model_contract(tmp_path, model):
    path = tmp_path / "m.pt"
    build_reference("1UAO", REFERENCE, path, contact_scale=0.9)
    loaded = load_energy_model(path, protein="reference")
    x = torch.tensor(native_ca("1UAO")[None])
    assert loaded.contact_scale == 0.9
    assert float(loaded(x)[0]) == pytest.approx(float(model(x)[0]) - 0.1 * float(model.terms(x)["contacts"][0]))


def test_a_native_pdb_round_trips(tmp_path):
    path = tmp_path / "native.pdb"
    write_native_pdb("1UAO", path)
    assert native_residues(str(path)) == native_residues("1UAO")
    assert np.allclose(native_ca(str(path)), native_ca("1UAO"), atol=1e-3)


def test_an_unknown_native_source_names_the_fix(tmp_path):
    with pytest.raises(Exception, match="calibration.native"):
        native_ca(str(tmp_path / "missing.pdb"))


@settings(max_examples=30, deadline=None)
@given(n=st.integers(4, 12), cutoff=st.floats(0.1, 2.0), separation=st.integers(3, 6), seed=st.integers(0, 100))
def test_contact_pairs_split_every_far_pair_once(n, cutoff, separation, seed):
    x = np.random.default_rng(seed).normal(0, 0.5, (n, 3))
    native, other = contact_pairs(x, cutoff, separation)
    pairs = {tuple(p) for p in np.concatenate([native, other])}
    assert len(pairs) == len(native) + len(other)
    assert pairs == {(i, j) for i in range(n) for j in range(i + separation, n)}
    assert all(np.linalg.norm(x[i] - x[j]) <= cutoff for i, j in native)


def test_too_few_beads_is_an_error():
    with pytest.raises(ValueError, match="n_beads >= 4"):
        GoModel([[0.0, 0.0, 0.0]] * 3)
