"""westbench's own re-implementation of TorchMD-Net's "graph-network", the network of CGSchNet
(:class:`SchNet`), and the bead types every network reads (:func:`residue_types`). TorchMD-Net's own
models are :mod:`westbench.cg.torchmdnet`.

:class:`SchNet` (architecture ``schnet``) needs no TorchMD-Net: beads are embedded by amino-acid
type; each of ``interaction_layers`` continuous-filter convolutions sums messages from the at most
``max_neighbors`` nearest beads between ``cutoff_lower`` and ``cutoff_upper`` (Angstrom), with filters
computed from ``rbf`` exponential-normal radial basis functions (trainable means and widths) and
TorchMD-Net's cosine cutoff between the two cutoffs; an MLP maps each bead to an energy and the bead
energies are summed. Its energies and forces equal TorchMD-Net's graph-network (no neighbour
embedding) for the same weights wherever no bead has more than ``max_neighbors`` others within the
cutoffs (tests/unit/cg/test_torchmdnet.py); beyond that it keeps the nearest, where TorchMD-Net keeps
all and refuses more than ``max_neighbors`` per bead on average. Published preset (the published WE
benchmark, arXiv:2510.17187): embedding 128, 4 layers, 20 expnorm functions, cutoff 2-12 Angstrom,
32 neighbours, SiLU, sum aggregation, FP32.

Its graph is dense and batched (frames, beads, neighbours): every frame of a batch is one
protein, so no neighbour-list library is needed for proteins of a few hundred beads.

Examples
--------
>>> import torch
>>> net = SchNet(embedding=16, interaction_layers=2, rbf=8)
>>> x = torch.randn(3, 10, 3)
>>> types = residue_types("GYDPETGTWG")
>>> net(x, types).shape
torch.Size([3])
"""

from __future__ import annotations

import math
from typing import Sequence

import torch
from torch import nn

from westbench.config import section_defaults

_MODEL = section_defaults("cg.model")  # the schema owns the network's defaults

#: Bead types: the 20 amino acids by one-letter code, then "X" for anything else.
AMINO_ACIDS = "ACDEFGHIKLMNPQRSTVWY"
THREE_TO_ONE = {
    "ALA": "A",
    "CYS": "C",
    "ASP": "D",
    "GLU": "E",
    "PHE": "F",
    "GLY": "G",
    "HIS": "H",
    "ILE": "I",
    "LYS": "K",
    "LEU": "L",
    "MET": "M",
    "ASN": "N",
    "PRO": "P",
    "GLN": "Q",
    "ARG": "R",
    "SER": "S",
    "THR": "T",
    "VAL": "V",
    "TRP": "W",
    "TYR": "Y",
    "HID": "H",
    "HIE": "H",
    "HIP": "H",
    "CYX": "C",
    "ASH": "D",
    "GLH": "E",
    "LYN": "K",
    "NLE": "L",
    "MSE": "M",
}
ACTIVATIONS = {"silu": nn.SiLU, "tanh": nn.Tanh, "softplus": nn.Softplus}


def residue_types(sequence: str | Sequence[str]) -> torch.Tensor:
    """Type indices of a sequence (one-letter string, or three-letter residue names).

    Examples
    --------
    >>> residue_types("GYX").tolist(), residue_types(["GLY", "HIE"]).tolist()
    ([5, 19, 20], [5, 6])
    """
    letters = [THREE_TO_ONE.get(item, "X") if len(item) == 3 else item for item in sequence]
    return torch.tensor([AMINO_ACIDS.index(c) if c in AMINO_ACIDS else len(AMINO_ACIDS) for c in letters])


class CosineCutoff(nn.Module):
    """TorchMD-Net's cosine cutoff: with ``lower`` 0, 1 at 0 and smoothly 0 at ``upper`` and beyond; with
    ``lower`` > 0, 0 at and below ``lower``, 1 halfway, 0 at and beyond ``upper``.

    Examples
    --------
    >>> CosineCutoff(12.0, lower=2.0)(torch.tensor([2.0, 7.0, 12.0])).tolist()
    [0.0, 1.0, 0.0]
    """

    def __init__(self, upper: float, lower: float = 0.0):
        super().__init__()
        self.upper, self.lower = float(upper), float(lower)

    def forward(self, d: torch.Tensor) -> torch.Tensor:
        if self.lower > 0:
            phase = 2.0 * (d - self.lower) / (self.upper - self.lower) + 1.0
            return 0.5 * (torch.cos(math.pi * phase) + 1.0) * (d < self.upper) * (d > self.lower)
        return 0.5 * (torch.cos(d * math.pi / self.upper) + 1.0) * (d < self.upper)


class ExpNormalSmearing(nn.Module):
    """TorchMD-Net's exponential-normal radial basis (Unke and Meuwly, PhysNet)."""

    def __init__(self, lower: float, upper: float, n: int, trainable: bool = True):
        super().__init__()
        self.lower, self.upper = float(lower), float(upper)
        self.alpha = 5.0 / (self.upper - self.lower)
        self.cutoff = CosineCutoff(self.upper)
        start = math.exp(-self.upper + self.lower)
        means = torch.linspace(start, 1.0, n)
        betas = torch.full((n,), (2.0 / n * (1.0 - start)) ** -2)
        if trainable:
            self.means, self.betas = nn.Parameter(means), nn.Parameter(betas)
        else:
            self.register_buffer("means", means)
            self.register_buffer("betas", betas)

    def forward(self, d: torch.Tensor) -> torch.Tensor:
        d = d[..., None]
        return self.cutoff(d) * torch.exp(-self.betas * (torch.exp(self.alpha * (self.lower - d)) - self.means) ** 2)


class Interaction(nn.Module):
    """A continuous-filter convolution block; returns the update added to the bead features."""

    def __init__(self, features: int, rbf: int, upper: float, activation: str, aggregation: str, lower: float = 0.0):
        super().__init__()
        act = ACTIVATIONS[activation]
        self.filter = nn.Sequential(nn.Linear(rbf, features), act(), nn.Linear(features, features))
        self.cutoff = CosineCutoff(upper, lower)  # TorchMD-Net's CFConv cutoff: 0 at both cutoffs
        self.lin1 = nn.Linear(features, features, bias=False)
        self.lin2 = nn.Linear(features, features)
        self.out = nn.Sequential(act(), nn.Linear(features, features))
        self.aggregation = aggregation

    def forward(self, h, index, d, rbf, valid):
        # h (B, N, F); index/d/valid (B, N, K); rbf (B, N, K, R)
        weight = self.filter(rbf) * (self.cutoff(d) * valid)[..., None]
        batch, n, k = index.shape
        neighbours = torch.gather(self.lin1(h), 1, index.reshape(batch, n * k, 1).expand(-1, -1, h.shape[-1]))
        message = (neighbours.reshape(batch, n, k, -1) * weight).sum(2)
        if self.aggregation == "mean":  # as TorchMD-Net's: torch's scatter_reduce mean counts the zero it starts from
            message = message / (valid.sum(-1, keepdim=True) + 1.0)
        return self.out(self.lin2(message))


class SchNet(nn.Module):
    """Energy (kJ/mol) of bead positions (batch, n, 3) in nm with bead types (n,).

    Parameters
    ----------
    embedding, interaction_layers, rbf : int
    cutoff_lower_angstrom, cutoff_upper_angstrom : float
    max_neighbors : int
    rbf_trainable : bool
    activation : {"silu", "tanh", "softplus"}
    aggregation : {"sum", "mean"}
    n_types : int
    """

    def __init__(
        self,
        embedding: int = _MODEL["embedding"],
        interaction_layers: int = _MODEL["interaction_layers"],
        rbf: int = _MODEL["rbf"],
        cutoff_lower_angstrom: float = _MODEL["cutoff_lower_angstrom"],
        cutoff_upper_angstrom: float = _MODEL["cutoff_upper_angstrom"],
        max_neighbors: int = _MODEL["max_neighbors"],
        rbf_trainable: bool = _MODEL["rbf_trainable"],
        activation: str = _MODEL["activation"],
        aggregation: str = _MODEL["aggregation"],
        n_types: int = len(AMINO_ACIDS) + 1,
        rbf_type: str = _MODEL["rbf_type"],
    ):
        super().__init__()
        if rbf_type != "expnorm":
            raise ValueError(f"unknown radial basis {rbf_type!r}: only 'expnorm' is implemented")
        if activation not in ACTIVATIONS:
            raise ValueError(f"unknown activation {activation!r}; choose from {sorted(ACTIVATIONS)}")
        self.lower, self.upper = float(cutoff_lower_angstrom), float(cutoff_upper_angstrom)
        self.max_neighbors = int(max_neighbors)
        self.embedding = nn.Embedding(n_types, embedding)
        self.rbf = ExpNormalSmearing(self.lower, self.upper, rbf, rbf_trainable)
        self.interactions = nn.ModuleList(
            Interaction(embedding, rbf, self.upper, activation, aggregation, self.lower)
            for _ in range(interaction_layers)
        )
        act = ACTIVATIONS[activation]
        self.head = nn.Sequential(
            nn.Linear(embedding, max(embedding // 2, 1)), act(), nn.Linear(max(embedding // 2, 1), 1)
        )

    def neighbours(self, x: torch.Tensor):
        """Neighbour indices, distances (Angstrom) and validity (B, N, K): the K nearest within the cutoffs."""
        batch, n, _ = x.shape
        k = min(self.max_neighbors, n - 1)
        with torch.no_grad():
            d = torch.cdist(x, x) * 10.0
            d = d.masked_fill(torch.eye(n, dtype=torch.bool, device=x.device), float("inf"))
            d = d.masked_fill((d < self.lower) | (d >= self.upper), float("inf"))
            nearest, index = torch.topk(d, k, dim=-1, largest=False)
            valid = torch.isfinite(nearest).to(x.dtype)
        positions = torch.gather(x, 1, index.reshape(batch, n * k, 1).expand(-1, -1, 3)).reshape(batch, n, k, 3)
        # Padding edges (fewer than K beads in range) point anywhere, even at the bead itself: give them a
        # unit vector so the norm's gradient stays finite; their filters are zeroed by `valid`.
        vectors = torch.where(valid[..., None] > 0, positions - x[:, :, None, :], torch.ones_like(positions))
        distance = torch.linalg.vector_norm(vectors, dim=-1) * 10.0
        return index, distance, valid

    def forward(self, x: torch.Tensor, types: torch.Tensor) -> torch.Tensor:
        if x.shape[1] < 2:
            return x.new_zeros(x.shape[0])
        index, d, valid = self.neighbours(x)
        rbf = self.rbf(d)
        h = self.embedding(types.to(x.device)).to(x.dtype).expand(x.shape[0], -1, -1)
        for interaction in self.interactions:
            h = h + interaction(h, index, d, rbf, valid)
        return self.head(h).squeeze(-1).sum(-1)
