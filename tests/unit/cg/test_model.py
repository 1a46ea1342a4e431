"""The CG model: autograd forces, symmetry, the published preset, saving and user models."""

import warnings

import pytest
import torch
from scipy.spatial.transform import Rotation

from westbench.cg.model import CGModel, energy_and_forces, load_energy_model, save_model
from westbench.cg.prior import fit_prior
from westbench.config import validate_config

from .toy import harmonic_chain

SMALL = {"embedding": 16, "interaction_layers": 2, "rbf": 8}


@pytest.fixture(scope="module")
def chain():
    positions, forces, _ = harmonic_chain(n_beads=10, n_frames=200, attraction=2.0)
    return positions, forces


def model_for(chain, network=SMALL, dtype="float32", seed=0):
    torch.manual_seed(seed)
    model = CGModel({"toy": "GYDPETGTWG"}, network=network, dtype=dtype)
    model.set_prior("toy", fit_prior(chain[0]))
    return model


def test_forces_are_minus_the_finite_difference_gradient(chain):
    module = model_for(chain, dtype="float64").for_protein("toy")
    x = torch.tensor(chain[0][:2], dtype=torch.float64)
    _, forces = energy_and_forces(module, x)
    h = 1e-6
    numeric = torch.zeros_like(x)
    with torch.no_grad():
        for frame in range(2):
            for bead in range(x.shape[1]):
                for axis in range(3):
                    plus, minus = x.clone(), x.clone()
                    plus[frame, bead, axis] += h
                    minus[frame, bead, axis] -= h
                    numeric[frame, bead, axis] = -(module(plus)[frame] - module(minus)[frame]) / (2 * h)
    assert forces.abs().max() > 1.0  # not trivially zero
    assert torch.allclose(forces, numeric, rtol=1e-5, atol=1e-5)


def test_energy_is_invariant_and_forces_rotate_with_the_frame(chain):
    module = model_for(chain).for_protein("toy")
    x = torch.tensor(chain[0][:4])
    rotation = torch.tensor(Rotation.random(random_state=3).as_matrix(), dtype=torch.float32)
    moved = x @ rotation.T + torch.tensor([1.5, -2.0, 0.7])
    energy, forces = energy_and_forces(module, x)
    energy_moved, forces_moved = energy_and_forces(module, moved)
    assert torch.allclose(energy_moved, energy, rtol=1e-5, atol=1e-3)
    assert torch.allclose(forces_moved, forces @ rotation.T, rtol=1e-4, atol=1e-2)


def test_published_preset_comes_from_the_schema():
    config = validate_config({"proteins": [{"id": "p", "name": "p", "sequence": "GY", "source": "sequence"}]})
    preset = config["cg"]["model"]
    assert (preset["embedding"], preset["interaction_layers"], preset["rbf"], preset["max_neighbors"]) == (
        128,
        4,
        20,
        32,
    )
    assert (preset["cutoff_lower_angstrom"], preset["cutoff_upper_angstrom"]) == (2.0, 12.0)
    assert preset["architecture"] == "graph-network"  # TorchMD-Net's own: test_torchmdnet.py builds it
    # westbench's own re-implementation (architecture schnet) of the same preset
    model = CGModel({"p": "GYDPETGTWG"}, network={**preset, "architecture": "schnet"}, dtype=preset["dtype"])
    net = model.network
    assert net.embedding.embedding_dim == 128 and len(net.interactions) == 4 and net.rbf.means.numel() == 20
    assert isinstance(net.rbf.means, torch.nn.Parameter) and isinstance(net.head[1], torch.nn.SiLU)
    assert next(model.parameters()).dtype == torch.float32


def test_at_most_max_neighbors_within_the_cutoffs():
    model = CGModel({"p": "A" * 60}, network={**SMALL, "max_neighbors": 32})
    x = torch.randn(2, 60, 3) * 0.6  # a compact blob: most beads have more than 32 others within 12 A
    _, distance, valid = model.network.neighbours(x)
    assert distance.shape[-1] == 32 and valid.sum(-1).max() == 32
    chosen = distance[valid > 0]
    assert chosen.min() >= 2.0 - 1e-4 and chosen.max() < 12.0


def test_saved_model_reloads_to_identical_outputs(chain, tmp_path):
    model = model_for(chain)
    x = torch.tensor(chain[0][:5])
    energy, forces = energy_and_forces(model.for_protein("toy"), x)
    save_model(model, tmp_path / "model.pt", extra={"data_sha256": "x"})
    again = load_energy_model(tmp_path / "model.pt", protein="toy")
    energy_again, forces_again = energy_and_forces(again, x)
    assert torch.equal(energy, energy_again) and torch.equal(forces, forces_again)


class Harmonic(torch.nn.Module):
    """A user's model: harmonic bonds only, in TorchScript."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        r = torch.linalg.vector_norm(x[:, 1:] - x[:, :-1], dim=-1)
        return (1000.0 * (r - 0.38) ** 2).sum(-1)


def test_torchscript_user_model_runs_in_the_engine(chain, tmp_path):
    from westbench.cg.engine import CGEngine

    with warnings.catch_warnings():  # torch 2.13 deprecates TorchScript, which users still ship
        warnings.simplefilter("ignore", DeprecationWarning)
        torch.jit.script(Harmonic()).save(str(tmp_path / "user.pt"))
    loaded = load_energy_model(tmp_path / "user.pt", protein="ignored")
    x = torch.tensor(chain[0][:3])
    assert torch.allclose(loaded(x), Harmonic()(x))
    engine = CGEngine(tmp_path / "user.pt", "toy", basis_positions=chain[0][0], bead_mass_amu=100.0)
    result = engine.propagate([engine.basis_state()], n_steps=50, save_every=10, seeds=[4])[0]
    assert result.status == "ok" and result.frames.shape == (5, 10, 3)


def test_a_file_that_is_no_model_is_refused(tmp_path):
    (tmp_path / "junk.pt").write_bytes(b"not a model")
    with pytest.raises(ValueError, match="neither TorchScript nor a state dict"):
        load_energy_model(tmp_path / "junk.pt")
