"""TorchMD-Net's own networks behind the westbench model contract, and westbench's own graph network
against TorchMD-Net's for the same weights.

TorchMD-Net (``torchmd-net``, pinned in pyproject.toml) is imported here; its neighbour list and
TensorNet kernels are NVIDIA Warp kernels, compiled for the CPU on first use (seconds, cached under
~/.cache/warp).
"""

import math

import numpy as np
import pytest
import torch
from scipy.spatial.transform import Rotation

from westbench.cg.model import CGModel, energy_and_forces, load_energy_model, save_model
from westbench.cg.prior import fit_prior
from westbench.cg.schnet import SchNet, residue_types
from westbench.cg.torchmdnet import TorchMDNet, torchmdnet_args
from westbench.config import validate_config

from .toy import harmonic_chain

torchmdnet = pytest.importorskip("torchmdnet", reason="TorchMD-Net is a pinned dependency: run tools/setup.sh")
from torchmdnet.models.model import create_model  # noqa: E402

SEQUENCE = "GYDPETGTWG"
SMALL = {"embedding": 16, "interaction_layers": 2, "rbf": 8}
ARCHITECTURES = ["graph-network", "tensornet", "equivariant-transformer"]


@pytest.fixture(scope="module")
def chain():
    positions, forces, _ = harmonic_chain(n_beads=len(SEQUENCE), n_frames=200, attraction=2.0)
    return positions, forces


def model_for(chain, architecture, dtype="float32", seed=0, **network):
    torch.manual_seed(seed)
    model = CGModel({"toy": SEQUENCE}, network={"architecture": architecture, **SMALL, **network}, dtype=dtype)
    model.set_prior("toy", fit_prior(chain[0]))
    return model


def test_the_published_preset_builds_torchmdnets_graph_network():
    config = validate_config({"proteins": [{"id": "p", "name": "p", "sequence": "GY", "source": "sequence"}]})
    preset = config["cg"]["model"]
    model = CGModel({"p": SEQUENCE}, network=preset, dtype=preset["dtype"])
    assert isinstance(model.network, TorchMDNet)
    net = model.network.net
    assert type(net).__module__ == "torchmdnet.models.model" and type(net).__name__ == "TorchMD_Net"
    gn = net.representation_model
    assert type(gn).__name__ == "TorchMD_GN"
    assert (gn.hidden_channels, gn.num_filters, gn.num_layers, gn.num_rbf) == (128, 128, 4, 20)
    assert (gn.rbf_type, gn.trainable_rbf, gn.activation, gn.aggr) == ("expnorm", True, "silu", "add")
    assert (gn.cutoff_lower, gn.cutoff_upper) == (2.0, 12.0)
    assert model.network.args["max_num_neighbors"] == 32 and gn.distance.max_neighbors == 32  # AllPairs
    assert isinstance(gn.distance_expansion.means, torch.nn.Parameter)
    assert model.network.head[-1].out_features == 1 and isinstance(model.network.head[1], torch.nn.SiLU)
    assert next(model.parameters()).dtype == torch.float32


@pytest.mark.parametrize("architecture", ARCHITECTURES)
def test_energies_and_forces_have_the_contract_shapes_and_are_finite(chain, architecture):
    module = model_for(chain, architecture).for_protein("toy")
    x = torch.tensor(chain[0][:3])
    energy, forces = energy_and_forces(module, x)
    assert energy.shape == (3,) and forces.shape == (3, len(SEQUENCE), 3)
    assert torch.isfinite(energy).all() and torch.isfinite(forces).all()
    # the frames of a batch are independent: each frame alone gives its row of the batch
    alone = torch.cat([module(x[i : i + 1]) for i in range(3)])
    assert torch.allclose(alone, energy.detach(), rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("architecture", ARCHITECTURES)
def test_forces_are_minus_the_finite_difference_gradient(chain, architecture):
    """Along random directions v: (E(x + h v) - E(x - h v)) / 2h = -F . v (the full gradient costs 60 calls)."""
    module = model_for(chain, architecture, dtype="float64").for_protein("toy")
    x = torch.tensor(chain[0][:2], dtype=torch.float64)
    _, forces = energy_and_forces(module, x)
    assert forces.abs().max() > 1.0
    h = 1e-6
    generator = torch.Generator().manual_seed(0)
    with torch.no_grad():
        for _ in range(3):
            v = torch.randn(x.shape, dtype=torch.float64, generator=generator)
            numeric = (module(x + h * v) - module(x - h * v)) / (2 * h)
            assert torch.allclose(numeric, -(forces * v).sum((1, 2)), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("architecture", ARCHITECTURES)
def test_energy_is_invariant_and_forces_rotate_with_the_frame(chain, architecture):
    module = model_for(chain, architecture, dtype="float64").for_protein("toy")
    x = torch.tensor(chain[0][:2], dtype=torch.float64)
    rotation = torch.tensor(Rotation.random(random_state=3).as_matrix())
    moved = x @ rotation.T + torch.tensor([1.5, -2.0, 0.7], dtype=torch.float64)
    energy, forces = energy_and_forces(module, x)
    energy_moved, forces_moved = energy_and_forces(module, moved)
    assert torch.allclose(energy_moved, energy, rtol=1e-8, atol=1e-8)
    assert torch.allclose(forces_moved, forces @ rotation.T, rtol=1e-7, atol=1e-7)


@pytest.mark.parametrize("architecture", ARCHITECTURES)
def test_saved_model_reloads_to_identical_outputs(chain, architecture, tmp_path):
    model = model_for(chain, architecture)
    x = torch.tensor(chain[0][:4])
    energy, forces = energy_and_forces(model.for_protein("toy"), x)
    save_model(model, tmp_path / "model.pt")
    again = load_energy_model(tmp_path / "model.pt", protein="toy")
    assert isinstance(again.network, TorchMDNet) and again.network.args["model"] == architecture
    energy_again, forces_again = energy_and_forces(again, x)
    assert torch.equal(energy, energy_again) and torch.equal(forces, forces_again)


def test_a_short_training_run_learns():
    from westbench.cg.data import ProteinData
    from westbench.cg.train import train_model

    positions, forces, _ = harmonic_chain(n_beads=8, n_frames=100, attraction=3.0, seed=5)
    data = ProteinData("toy", "GYDPETGT", positions, forces)
    network = {"architecture": "graph-network", **SMALL}
    model, history, summary = train_model(
        [data],
        network=network,
        prior={"terms": ["bonds", "angles"]},
        training={"max_epochs": 6, "batch_size": 16, "learning_rate": 1e-2},
        seed=3,
    )
    assert isinstance(model.network, TorchMDNet)
    assert history["train_loss"].iloc[-1] < 0.85 * history["train_loss"].iloc[0]
    assert summary["best_validation_loss"] < 0.9 * summary["initial_validation_loss"]


def test_the_cg_engine_runs_a_torchmdnet_model(chain, tmp_path):
    from westbench.cg.engine import CGEngine

    model = model_for(chain, "graph-network")
    save_model(model, tmp_path / "model.pt")
    engine = CGEngine(tmp_path / "model.pt", "toy", basis_positions=chain[0][0], bead_mass_amu=100.0, device="cpu")
    results = engine.propagate([engine.basis_state()] * 2, n_steps=40, save_every=10, seeds=[4, 5])
    assert [r.status for r in results] == ["ok", "ok"]
    assert results[0].frames.shape == (4, len(SEQUENCE), 3) and np.isfinite(results[0].frames).all()
    assert not np.allclose(results[0].frames, results[1].frames)  # own noise per walker


def test_options_westbench_does_not_map_are_refused():
    with pytest.raises(ValueError, match="not one of TorchMD-Net's"):
        torchmdnet_args(activation="softplus")
    with pytest.raises(ValueError, match="unknown cg.model.architecture"):
        CGModel({"p": SEQUENCE}, network={"architecture": "transformer"})
    with pytest.raises(ValueError, match="neighbor_embedding needs a TorchMD-Net"):
        CGModel({"p": SEQUENCE}, network={"architecture": "schnet", "neighbor_embedding": True})


# --- westbench's own SchNet against TorchMD-Net's graph network, weight for weight ---------------


def torchmdnet_graph_network(lower, upper, aggregation="sum", dtype=torch.float64, **small):
    args = torchmdnet_args(
        "graph-network",
        cutoff_lower_angstrom=lower,
        cutoff_upper_angstrom=upper,
        aggregation=aggregation,
        dtype={torch.float64: "float64", torch.float32: "float32"}[dtype],
        **small,
    )
    return create_model(dict(args)).to(dtype)


def copy_weights(net, own: SchNet) -> None:
    """TorchMD-Net graph-network parameters -> the same parameters of westbench's SchNet."""
    gn, head = net.representation_model, net.output_model.output_network.layers
    with torch.no_grad():
        own.embedding.weight.copy_(gn.embedding.weight[: own.embedding.num_embeddings])
        own.rbf.means.copy_(gn.distance_expansion.means)
        own.rbf.betas.copy_(gn.distance_expansion.betas)
        for mine, theirs in zip(own.interactions, gn.interactions):
            mine.filter[0].load_state_dict(theirs.mlp[0].state_dict())
            mine.filter[2].load_state_dict(theirs.mlp[2].state_dict())
            mine.lin1.load_state_dict(theirs.conv.lin1.state_dict())
            mine.lin2.load_state_dict(theirs.conv.lin2.state_dict())
            mine.out[1].load_state_dict(theirs.lin.state_dict())
        own.head[0].load_state_dict(head[0].state_dict())
        own.head[2].load_state_dict(head[2].state_dict())


def torchmdnet_energy_and_forces(net, x_nm, types):
    """TorchMD-Net's model on its own terms: flat atoms in Angstrom with a batch index; forces by its
    own derivative (kJ/mol/Angstrom -> kJ/mol/nm)."""
    batch, n, _ = x_nm.shape
    net.derivative = True
    pos = (x_nm * 10.0).reshape(batch * n, 3).detach().clone()
    energy, dy = net(types.repeat(batch), pos, torch.arange(batch).repeat_interleave(n))
    net.derivative = False
    return energy.reshape(batch).detach(), dy.reshape(batch, n, 3).detach() * 10.0


@pytest.mark.parametrize("lower,upper,aggregation", [(2.0, 12.0, "sum"), (0.0, 8.0, "sum"), (3.0, 9.0, "mean")])
def test_own_schnet_equals_torchmdnets_graph_network_for_the_same_weights(lower, upper, aggregation):
    torch.manual_seed(7)
    net = torchmdnet_graph_network(lower, upper, aggregation, embedding=24, interaction_layers=3, rbf=10)
    with torch.no_grad():  # move the radial basis off its initial values: the copy must carry them
        net.representation_model.distance_expansion.means.mul_(1.1)
        net.representation_model.distance_expansion.betas.mul_(0.9)
    own = SchNet(
        embedding=24,
        interaction_layers=3,
        rbf=10,
        cutoff_lower_angstrom=lower,
        cutoff_upper_angstrom=upper,
        aggregation=aggregation,
    ).double()
    copy_weights(net, own)
    types = residue_types("GYDPETGTWGKL")
    x = random_walk(4, 12)  # pairs below the lower cutoff, inside, and beyond the upper one
    distances = torch.cdist(x, x) * 10
    assert ((distances > 0) & (distances < lower)).any() or lower == 0
    assert (distances > upper).any() and ((distances > lower) & (distances < upper)).any()
    energy, forces = torchmdnet_energy_and_forces(net, x, types)
    own_energy, own_forces = energy_and_forces(lambda y: own(y, types), x)
    assert torch.allclose(own_energy, energy, rtol=1e-10, atol=1e-10)
    assert torch.allclose(own_forces, forces, rtol=1e-9, atol=1e-9)


def random_walk(frames, beads, seed=1):
    """C-alpha-like frames (nm): 3.8 A steps in random directions, with pairs below 2 A, within and beyond 12 A."""
    steps = np.random.default_rng(seed).normal(size=(frames, beads, 3))
    return torch.tensor(np.cumsum(0.38 * steps / np.linalg.norm(steps, axis=-1, keepdims=True), axis=1))


@pytest.mark.parametrize("lower,upper,neighbor_embedding", [(2.0, 12.0, False), (0.0, 8.0, False), (3.0, 9.0, True)])
def test_all_pairs_give_torchmdnets_own_energies_and_forces(lower, upper, neighbor_embedding):
    """westbench's TorchMDNet (graph network on AllPairs) against TorchMD-Net's model with its own
    neighbour list, the same weights, called on TorchMD-Net's terms (Angstrom, its own derivative)."""
    torch.manual_seed(3)
    options = dict(
        embedding=24,
        interaction_layers=3,
        rbf=10,
        cutoff_lower_angstrom=lower,
        cutoff_upper_angstrom=upper,
        neighbor_embedding=neighbor_embedding,
    )
    ours = TorchMDNet(architecture="graph-network", dtype="float64", **options).double()
    assert ours.all_pairs
    theirs = create_model(dict(torchmdnet_args("graph-network", dtype="float64", **options))).double()
    assert type(theirs.representation_model.distance).__name__ == "OptimizedDistance"
    theirs.load_state_dict(ours.net.state_dict())
    types = residue_types("GYDPETGTWGKLAW")
    x = random_walk(5, 14, seed=2)
    energy, forces = torchmdnet_energy_and_forces(theirs, x, types)
    our_energy, our_forces = energy_and_forces(lambda y: ours(y, types), x)
    assert torch.allclose(our_energy, energy, rtol=1e-12, atol=1e-10)
    assert torch.allclose(our_forces, forces, rtol=1e-10, atol=1e-9)


def test_mean_aggregation_and_other_architectures_keep_torchmdnets_neighbour_list():
    for architecture, aggregation in (
        ("graph-network", "mean"),
        ("tensornet", "sum"),
        ("equivariant-transformer", "sum"),
    ):
        net = TorchMDNet(architecture=architecture, aggregation=aggregation, **SMALL)
        assert not net.all_pairs
        assert type(net.net.representation_model.distance).__name__ == "OptimizedDistance"


def test_own_cosine_cutoff_is_torchmdnets():
    from torchmdnet.models.utils import CosineCutoff as TheirCutoff

    from westbench.cg.schnet import CosineCutoff

    d = torch.linspace(0.0, 13.0, 261, dtype=torch.float64)
    for lower, upper in ((0.0, 12.0), (2.0, 12.0), (3.5, 9.0)):
        assert torch.equal(CosineCutoff(upper, lower)(d), TheirCutoff(lower, upper)(d))
    assert math.isclose(float(CosineCutoff(12.0, 2.0)(torch.tensor(7.0))), 1.0)


def test_more_pairs_than_max_neighbors_per_bead_is_torchmdnets_error():
    """TorchMD-Net keeps every pair within the cutoffs and refuses more than max_neighbors per bead on
    average (westbench's own schnet keeps the nearest: test_model.py)."""
    model = CGModel({"p": "A" * 60}, network={"architecture": "graph-network", **SMALL, "max_neighbors": 4})
    x = torch.randn(2, 60, 3, generator=torch.Generator().manual_seed(0)) * 0.6  # a compact blob
    with pytest.raises(RuntimeError, match="max_num_pairs"):
        model.for_protein("p")(x)


def test_a_we_run_propagates_a_torchmdnet_model(tmp_path):
    """The WE path of cg_<preset> (WESTPA, one batch per iteration) with TorchMD-Net's graph network."""
    import h5py

    from westbench.we.run import run_we

    from .test_engine import we_config

    positions, _, start = harmonic_chain(n_beads=8, n_frames=100, seed=3)
    torch.manual_seed(0)
    model = CGModel({"toy": "GYDPETGT"}, network={"architecture": "graph-network", **SMALL})
    model.set_prior("toy", fit_prior(positions))
    save_model(model, tmp_path / "m.pt")
    (tmp_path / "calls").mkdir()
    calls = tmp_path / "calls" / "calls.txt"
    summary = run_we(tmp_path / "run", cfg=we_config(tmp_path / "m.pt", start, calls), max_iterations=2)
    assert summary["iterations"] == 2
    with h5py.File(tmp_path / "run" / "west.h5", "r") as handle:
        segments = [len(handle[f"iterations/iter_{n:08d}/seg_index"]) for n in (1, 2)]
    assert [int(line) for line in calls.read_text().split()] == segments
