"""CG models: energy = graph network + Boltzmann-inverted prior; forces by autograd; save and load.

The network is ``cg.model.architecture``: TorchMD-Net's own ``graph-network`` (the published
CGSchNet architecture, the default), ``tensornet`` or ``equivariant-transformer``, built by
TorchMD-Net's ``create_model`` (:class:`~westbench.cg.torchmdnet.TorchMDNet`), or ``schnet``,
westbench's own re-implementation of the graph network (:class:`~westbench.cg.schnet.SchNet`,
no TorchMD-Net needed). A network mapping without ``architecture`` (records written before
TorchMD-Net was a dependency, and direct calls) is ``schnet``.

A trained model is two files: ``model.pt`` (a torch state dict) and ``model.json`` beside it
(``{"class": "westbench.cg.model:CGModel", "kwargs": {...}, "data_sha256": ..., ...}``). One
:class:`CGModel` holds the shared network and, per protein it was trained on, the bead types
and a fitted prior; :meth:`CGModel.for_protein` gives the module the WE engine integrates.

The contract for user models (:func:`load_energy_model`): any module whose ``forward`` maps
C-alpha positions, a float tensor (n_frames, n_beads, 3) in nm, to energies (n_frames,) in
kJ/mol, differentiable in the positions (forces are minus its autograd gradient). Accepted:

- a TorchScript file (``torch.jit.save``), used as is;
- a state dict ``X.pt`` with ``X.json`` naming its class and constructor arguments
  (``{"class": "package.module:Class", "kwargs": {...}}``); the class must be importable.

A loaded module with a ``for_protein(protein_id)`` method (like :class:`CGModel`) is asked for
that protein's module first.

Examples
--------
>>> import numpy as np, tempfile, os, torch
>>> from westbench.cg.prior import fit_prior
>>> ca = np.random.default_rng(0).normal(size=(50, 6, 3)).astype(np.float32)
>>> model = CGModel({"p": "GYDPET"}, network={"embedding": 8, "interaction_layers": 1, "rbf": 4})
>>> model.set_prior("p", fit_prior(ca))
>>> energy, forces = energy_and_forces(model.for_protein("p"), torch.tensor(ca[:2]))
>>> energy.shape, forces.shape
(torch.Size([2]), torch.Size([2, 6, 3]))
>>> path = os.path.join(tempfile.mkdtemp(), "model.pt")
>>> save_model(model, path, extra={"data_sha256": "abc"})
>>> again = load_energy_model(path, protein="p")
>>> bool(torch.equal(again(torch.tensor(ca[:2])), energy.detach()))
True
"""

from __future__ import annotations

import importlib
import json
import warnings
from pathlib import Path
from typing import Mapping

import torch
from torch import nn

from westbench.cg.prior import Prior, prior_options
from westbench.cg.schnet import SchNet, residue_types
from westbench.cg.torchmdnet import ARCHITECTURES, TorchMDNet
from westbench.config import section_defaults, section_keys

#: What the network takes of ``cg.model``: every key but dtype (the model's precision, :class:`CGModel`'s own).
NETWORK_KEYS = tuple(key for key in section_keys("cg.model") if key != "dtype")
#: Keys only TorchMD-Net's architectures read (westbench's own SchNet has neither).
TORCHMDNET_KEYS = ("neighbor_embedding", "attention_heads")
DTYPES = {"float32": torch.float32, "float64": torch.float64}
_DTYPE = section_defaults("cg.model")["dtype"]  # the schema owns the defaults
_TEMPERATURE_K = section_defaults("cg.langevin")["temperature_k"]


def build_network(network: Mapping, dtype: str = _DTYPE) -> nn.Module:
    """The network of a ``cg.model`` section (keys of :data:`NETWORK_KEYS`; see the module docstring).

    Examples
    --------
    >>> type(build_network({"embedding": 8, "interaction_layers": 1, "rbf": 4})).__name__
    'SchNet'
    """
    options = {k: v for k, v in network.items() if k in NETWORK_KEYS}
    architecture = options.pop("architecture", "schnet")
    if architecture not in ARCHITECTURES:
        raise ValueError(f"unknown cg.model.architecture {architecture!r}; choose from {list(ARCHITECTURES)}")
    if architecture == "schnet":
        if options.get("neighbor_embedding"):
            raise ValueError(
                "cg.model.neighbor_embedding needs a TorchMD-Net architecture (graph-network); "
                "westbench's own schnet has no neighbour embedding"
            )
        return SchNet(**{k: v for k, v in options.items() if k not in TORCHMDNET_KEYS})
    return TorchMDNet(architecture=architecture, dtype=dtype, **options)


class ProteinModel(nn.Module):
    """The energy of one protein's beads: network(positions, types) + prior(positions)."""

    def __init__(self, network: nn.Module | None, types: torch.Tensor, prior: nn.Module | None):
        super().__init__()
        self.network, self.prior = network, prior
        self.register_buffer("types", types)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        energy = x.new_zeros(x.shape[0])
        if self.network is not None:
            energy = energy + self.network(x, self.types)
        if self.prior is not None:
            energy = energy + self.prior(x)
        return energy


class CGModel(nn.Module):
    """A CGSchNet-family model over one or more proteins: one network, a prior per protein.

    Parameters
    ----------
    sequences : mapping
        Protein id -> sequence (one-letter string or list of residue names), one bead per residue.
    network : mapping
        Network hyperparameters (the ``cg.model`` config section, :func:`build_network`; unknown
        keys such as ``dtype`` are ignored); ``None`` for a prior-only model.
    prior : mapping
        The ``cg.prior`` config section (terms, Fourier order, repulsion separation).
    temperature_k : float
    dtype : {"float32", "float64"}
    """

    def __init__(
        self,
        sequences: Mapping[str, object],
        network: Mapping | None = None,
        prior: Mapping | None = None,
        temperature_k: float = _TEMPERATURE_K,
        dtype: str = _DTYPE,
    ):
        super().__init__()
        self.sequences = {k: (v if isinstance(v, str) else list(v)) for k, v in sequences.items()}
        network = {k: v for k, v in network.items() if k in NETWORK_KEYS} if network is not None else None
        options = prior_options(prior or {}, temperature_k)
        #: The constructor arguments, written to the JSON record so the state dict can be reloaded.
        self.kwargs = {
            "sequences": self.sequences,
            "network": network,
            "temperature_k": float(temperature_k),
            "prior": {k: v for k, v in options.items() if k != "temperature_k"},
            "dtype": dtype,
        }
        for key in ("terms",):
            self.kwargs["prior"][key] = list(self.kwargs["prior"][key])
        self.network = build_network(network, dtype) if network is not None else None
        self.priors = nn.ModuleDict({pid: Prior(len(seq), **options) for pid, seq in self.sequences.items()})
        for pid, seq in self.sequences.items():
            self.register_buffer(f"types_{pid}", residue_types(seq))
        self.to(DTYPES[dtype])

    def set_prior(self, protein: str, prior: Prior) -> None:
        """Copy a fitted prior's values into this model's prior of ``protein``."""
        self.priors[protein].load_state_dict(prior.state_dict())

    def for_protein(self, protein: str) -> ProteinModel:
        if protein not in self.sequences:
            raise KeyError(f"model was trained on {sorted(self.sequences)}, not on {protein!r}")
        return ProteinModel(self.network, getattr(self, f"types_{protein}"), self.priors[protein])

    def forward(self, x: torch.Tensor, protein: str | None = None) -> torch.Tensor:
        return self.for_protein(protein or next(iter(self.sequences)))(x)


def energy_and_forces(model: nn.Module, x: torch.Tensor, create_graph: bool = False):
    """Energies (n_frames,) kJ/mol and forces (n_frames, n_beads, 3) kJ/mol/nm = -dE/dx by autograd."""
    x = x.detach().requires_grad_(True)
    with torch.enable_grad():
        energy = model(x)
        (gradient,) = torch.autograd.grad(energy.sum(), x, create_graph=create_graph)
    return energy, -gradient


def model_record(path: str | Path) -> Path:
    """The JSON record beside a state-dict file: ``model.pt`` -> ``model.json``."""
    return Path(path).with_suffix(".json")


def save_model(model: CGModel, path: str | Path, extra: Mapping | None = None) -> None:
    """Write the state dict to ``path`` and its class, constructor arguments and ``extra`` to the JSON record."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.save(model.state_dict(), path)
    record = {"class": "westbench.cg.model:CGModel", "kwargs": model.kwargs, **dict(extra or {})}
    model_record(path).write_text(json.dumps(record, indent=2, sort_keys=True) + "\n")


def _load_class(spec: str):
    module_name, _, class_name = spec.partition(":")
    return getattr(importlib.import_module(module_name), class_name)


def load_energy_model(path: str | Path, protein: str | None = None, device: str | torch.device = "cpu") -> nn.Module:
    """Load a CG energy model (TorchScript, or state dict plus JSON record); see the module docstring."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"CG model {path} not found")
    record = model_record(path)
    if record.is_file():
        description = json.loads(record.read_text())
        model = _load_class(description["class"])(**description.get("kwargs", {}))
        model.load_state_dict(torch.load(path, map_location="cpu", weights_only=True))
    else:
        try:
            with warnings.catch_warnings():  # deprecated in torch 2.13, still the format users ship
                warnings.simplefilter("ignore", DeprecationWarning)
                model = torch.jit.load(str(path), map_location="cpu")
        except RuntimeError as exc:
            raise ValueError(
                f"{path} is neither TorchScript nor a state dict with a JSON record ({record.name} beside it): {exc}"
            ) from None
    if protein is not None and hasattr(model, "for_protein"):
        model = model.for_protein(protein)
    return model.to(device).eval()
