"""Force matching on data from the reference engine (OpenMM): the loss falls, presets differ, a toy is reproduced."""

import numpy as np
import pytest

from westbench.cg.data import ProteinData
from westbench.cg.engine import CGEngine
from westbench.cg.model import save_model
from westbench.cg.train import preset_training, train_model
from westbench.geometry.ca_geometry import bond_lengths

from .toy import harmonic_chain

SMALL = {"embedding": 16, "interaction_layers": 2, "rbf": 8}
PRESETS = {
    "training": {"max_epochs": 3, "batch_size": 16, "learning_rate": 1e-3},
    "presets": {
        "undertrained": {"frame_fraction": 0.1, "lr_schedule": "constant"},
        "fulltrained": {"frame_fraction": 1.0, "lr_schedule": "plateau"},
    },
}


@pytest.fixture(scope="module")
def folding_chain():
    """A chain with attraction between distant beads: forces the bond/angle prior cannot explain."""
    positions, forces, _ = harmonic_chain(n_beads=8, n_frames=100, attraction=3.0, seed=5)
    return ProteinData("toy", "GYDPETGT", positions, forces)


def test_training_loss_decreases(folding_chain):
    _, history, summary = train_model(
        [folding_chain],
        network=SMALL,
        prior={"terms": ["bonds", "angles"]},
        training={**PRESETS["training"], "max_epochs": 6, "learning_rate": 1e-2},
        seed=3,
    )
    # Measured: 3230 -> 2284 (kJ/mol/nm)^2 on the training frames, 3882 -> 2771 on the validation frames.
    assert history["train_loss"].iloc[-1] < 0.85 * history["train_loss"].iloc[0]
    assert history["train_loss"].is_monotonic_decreasing
    assert summary["best_validation_loss"] < 0.9 * summary["initial_validation_loss"]
    assert summary["frames"]["toy"] == {"used": 100, "train": 90, "validation": 10}


def test_presets_use_a_tenth_of_the_frames_and_a_constant_rate(folding_chain):
    results = {}
    for preset in ("undertrained", "fulltrained"):
        training = preset_training(PRESETS, preset)
        results[preset] = train_model([folding_chain], network=SMALL, prior={}, training=training, seed=3)
    under, full = results["undertrained"][2], results["fulltrained"][2]
    assert under["frames"]["toy"]["used"] == 10 and full["frames"]["toy"]["used"] == 100
    assert results["undertrained"][1]["learning_rate"].nunique() == 1
    assert under["training"]["lr_schedule"] == "constant" and full["training"]["lr_schedule"] == "plateau"
    assert under["data_sha256"] == full["data_sha256"]  # the same ground truth, different use of it


def test_trained_model_reproduces_the_bond_length_distribution_of_a_harmonic_chain(tmp_path):
    """Reference (OpenMM) harmonic chain -> force matching -> CG Langevin: the same bond lengths."""
    positions, forces, start = harmonic_chain(n_beads=8, n_frames=400, seed=2)
    data = ProteinData("toy", "GYDPETGT", positions, forces)
    model, _, _ = train_model([data], network=SMALL, prior={}, training={"max_epochs": 1, "batch_size": 32}, seed=1)
    save_model(model, tmp_path / "model.pt")
    engine = CGEngine(
        tmp_path / "model.pt",
        "toy",
        basis_positions=start,
        bead_mass_amu=100.0,
        langevin={"temperature_k": 300.0, "friction_per_ps": 10.0, "timestep_fs": 4.0},
    )
    results = engine.propagate([engine.basis_state()] * 8, n_steps=400, save_every=25, seeds=list(range(1, 9)))
    assert all(r.status == "ok" for r in results)
    frames = np.concatenate([r.frames[4:] for r in results])  # after 0.4 ps (4 / friction) of equilibration
    model_bonds, reference_bonds = bond_lengths(frames).ravel(), bond_lengths(positions).ravel()
    assert model_bonds.mean() == pytest.approx(reference_bonds.mean(), abs=0.003)
    assert model_bonds.std() == pytest.approx(reference_bonds.std(), rel=0.15)


def test_training_on_a_missing_gpu_is_an_error_not_a_quiet_cpu_run(monkeypatch):
    """Training asks the device policy (westbench.cg.torch_device, by westbench.runtime.devices), as the CG engine
    does."""
    import torch

    from westbench.runtime.devices import DeviceError

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    rng = np.random.default_rng(0)
    ca = np.cumsum(rng.normal(0, 0.2, (20, 5, 3)), axis=1).astype(np.float32)
    data = ProteinData("p", "GYDPE", ca, rng.normal(0, 10, (20, 5, 3)).astype(np.float32))
    options = {"network": None, "prior": {"terms": ["bonds"]}, "training": {"max_epochs": 1}, "seed": 1}
    with pytest.raises(DeviceError, match="cg.device"):
        train_model([data], device="cuda", **options)
    assert train_model([data], device="auto", **options)[2]["device"] == "cpu"
