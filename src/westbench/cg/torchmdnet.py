"""TorchMD-Net's own networks behind westbench's model contract (:class:`TorchMDNet`).

:class:`TorchMDNet` builds the network with TorchMD-Net's ``create_model`` (``cg.model.architecture``
graph-network, the published one and the default; tensornet; equivariant-transformer) from the names
of the published table (:func:`torchmdnet_args`), and runs TorchMD-Net's layers; the graph network
takes every pair of beads (:class:`AllPairs`: a static size, so CUDA graphs can capture it).
westbench's own re-implementation of the graph network is :class:`westbench.cg.schnet.SchNet`.

Examples
--------
>>> ARCHITECTURES
('schnet', 'graph-network', 'tensornet', 'equivariant-transformer')
"""

from __future__ import annotations

import torch
from torch import nn

from westbench.cg.schnet import _MODEL, AMINO_ACIDS
from westbench.cg.without_dynamo import import_without_dynamo

#: ``cg.model.architecture`` -> TorchMD-Net's ``model`` argument (its ``create_model``); "schnet" is
#: westbench's own re-implementation of the graph network above (no TorchMD-Net needed).
TORCHMDNET_ARCHITECTURES = {
    "graph-network": "graph-network",
    "tensornet": "tensornet",
    "equivariant-transformer": "equivariant-transformer",
}
ARCHITECTURES = ("schnet", *TORCHMDNET_ARCHITECTURES)
#: Own activation names -> TorchMD-Net's (``act_class_mapping``; it has no plain softplus).
TORCHMDNET_ACTIVATIONS = {"silu": "silu", "tanh": "tanh"}
INSTALL_HINT = (
    "TorchMD-Net is a pinned dependency of westbench (pyproject.toml): run tools/setup.sh, or "
    "pip install torchmd-net==3.1.0; or set cg.model.architecture: schnet (westbench's own graph network)"
)


def torchmdnet_args(
    architecture: str = _MODEL["architecture"],
    embedding: int = _MODEL["embedding"],
    interaction_layers: int = _MODEL["interaction_layers"],
    rbf: int = _MODEL["rbf"],
    rbf_type: str = _MODEL["rbf_type"],
    rbf_trainable: bool = _MODEL["rbf_trainable"],
    cutoff_lower_angstrom: float = _MODEL["cutoff_lower_angstrom"],
    cutoff_upper_angstrom: float = _MODEL["cutoff_upper_angstrom"],
    max_neighbors: int = _MODEL["max_neighbors"],
    activation: str = _MODEL["activation"],
    aggregation: str = _MODEL["aggregation"],
    neighbor_embedding: bool = _MODEL["neighbor_embedding"],
    attention_heads: int = _MODEL["attention_heads"],
    n_types: int = len(AMINO_ACIDS) + 1,
    dtype: str = _MODEL["dtype"],
) -> dict:
    """The args dict of ``torchmdnet.models.model.create_model`` for a ``cg.model`` section.

    The names of the published table map one to one: embedding -> embedding_dimension,
    interaction_layers -> num_layers, rbf -> num_rbf, rbf_type, rbf_trainable -> trainable_rbf,
    cutoff_*_angstrom -> cutoff_lower/upper, max_neighbors -> max_num_neighbors, aggregation sum -> aggr
    add; beads are "atoms" with the amino-acid type as atomic number (max_z = 21); one scalar output
    summed over beads; no TorchMD-Net prior (westbench's prior is added outside); derivative off
    (westbench takes forces by autograd of the energy, as for every model).

    Examples
    --------
    >>> args = torchmdnet_args()
    >>> (args["model"], args["embedding_dimension"], args["num_layers"], args["num_rbf"], args["max_num_neighbors"])
    ('graph-network', 128, 4, 20, 32)
    >>> (args["cutoff_lower"], args["cutoff_upper"], args["trainable_rbf"], args["aggr"], args["derivative"])
    (2.0, 12.0, True, 'add', False)
    """
    if architecture not in TORCHMDNET_ARCHITECTURES:
        raise ValueError(
            f"unknown TorchMD-Net architecture {architecture!r}; choose from {sorted(TORCHMDNET_ARCHITECTURES)}"
        )
    if activation not in TORCHMDNET_ACTIVATIONS:
        raise ValueError(
            f"activation {activation!r} is not one of TorchMD-Net's; choose from {sorted(TORCHMDNET_ACTIVATIONS)}"
        )
    if aggregation not in ("sum", "mean"):
        raise ValueError(f"unknown aggregation {aggregation!r}; choose sum or mean")
    if rbf_type != "expnorm":
        raise ValueError(f"unknown radial basis {rbf_type!r}: only 'expnorm' is offered")
    return {
        "model": TORCHMDNET_ARCHITECTURES[architecture],
        "embedding_dimension": int(embedding),
        "num_layers": int(interaction_layers),
        "num_rbf": int(rbf),
        "rbf_type": rbf_type,
        "trainable_rbf": bool(rbf_trainable),
        "activation": TORCHMDNET_ACTIVATIONS[activation],
        "cutoff_lower": float(cutoff_lower_angstrom),
        "cutoff_upper": float(cutoff_upper_angstrom),
        "max_z": int(n_types),
        "max_num_neighbors": int(max_neighbors),
        "aggr": "add" if aggregation == "sum" else "mean",
        "neighbor_embedding": bool(neighbor_embedding),
        "num_heads": int(attention_heads),
        "attn_activation": TORCHMDNET_ACTIVATIONS[activation],
        "distance_influence": "both",
        "equivariance_invariance_group": "O(3)",
        "static_shapes": False,
        "precision": {"float32": 32, "float64": 64}[dtype],
        "derivative": False,
        "atom_filter": -1,
        "prior_model": None,
        "output_model": "Scalar",
        "reduce_op": "sum",
        "box_vecs": None,
    }


class AllPairs(nn.Module):
    """Every ordered pair of beads within each frame, in a fixed order and of a static size: a drop-in
    for TorchMD-Net's ``OptimizedDistance`` in its graph network (``forward(pos, batch, box)`` ->
    ``(edge_index, edge_weight, None)``), for frames of ``beads`` beads each, back to back.

    TorchMD-Net's own list keeps only the pairs within [cutoff_lower, cutoff_upper) and so has a
    data-dependent size (a host synchronisation, no CUDA-graph capture) and, from its GPU kernel, an
    order that varies between calls. The graph network's filters carry TorchMD-Net's cosine cutoff,
    which is 0 with zero gradient outside (cutoff_lower, cutoff_upper), and a sum over neighbours, so
    the pairs outside add exactly nothing: the energies and forces are TorchMD-Net's (the unit tests
    compare them). As TorchMD-Net's list, it refuses more than ``max_neighbors`` pairs within the
    cutoffs per bead on average (an asynchronous assertion, as TorchMD-Net's, so no host
    synchronisation).

    Examples
    --------
    >>> pairs = AllPairs(2.0, 12.0, 32)
    >>> pairs.beads = 3
    >>> index, weight, _ = pairs(torch.tensor([[0.0, 0, 0], [3, 0, 0], [0, 4, 0]]), None)
    >>> index.tolist(), weight.tolist()
    ([[0, 0, 1, 1, 2, 2], [1, 2, 2, 0, 0, 1]], [3.0, 4.0, 5.0, 3.0, 4.0, 5.0])
    """

    def __init__(self, lower: float, upper: float, max_neighbors: int):
        super().__init__()
        self.lower, self.upper, self.max_neighbors, self.beads = float(lower), float(upper), int(max_neighbors), 0
        self.register_buffer("box", torch.zeros(3, 3), persistent=True)  # TorchMD-Net's state-dict key

    def forward(self, pos: torch.Tensor, batch, box=None):
        n = self.beads
        first = torch.arange(n, device=pos.device).repeat_interleave(n - 1)
        second = (first + 1 + torch.arange(n - 1, device=pos.device).repeat(n)) % n
        offsets = torch.arange(pos.shape[0] // n, device=pos.device)[:, None] * n
        index = torch.stack([(first + offsets).reshape(-1), (second + offsets).reshape(-1)])
        weight = torch.linalg.vector_norm(pos[index[0]] - pos[index[1]], dim=-1)
        within = ((weight >= self.lower) & (weight < self.upper)).sum()
        torch._assert_async(
            within <= self.max_neighbors * pos.shape[0],
            "Found num_pairs > max_num_pairs, please increase max_num_pairs "
            "(cg.model.max_neighbors: pairs within the cutoffs per bead on average)",
        )
        return index, weight, None


class TorchMDNet(nn.Module):
    """TorchMD-Net's own model (``create_model``) behind the westbench network contract.

    ``forward(x, types)``: bead positions (batch, n, 3) in nm and bead types (n,) -> energies (batch,)
    in the units it was trained in (kJ/mol). The frames of a batch become one TorchMD-Net batch
    (positions in Angstrom, a ``batch`` index per bead); the layers are the library's own. Pairs: the
    graph network with sum aggregation gets :class:`AllPairs` (the same energies and forces as
    TorchMD-Net's list, in a static shape and a fixed order, so the CG engine's force call can be
    captured in a CUDA graph and repeats bitwise); the other architectures, and the graph network
    with mean aggregation (whose mean counts the pairs), keep TorchMD-Net's own neighbour list
    (``OptimizedDistance``: pairs within [cutoff_lower, cutoff_upper), at most ``max_neighbors`` per
    bead on average, else TorchMD-Net raises). Keyword arguments: those of :func:`torchmdnet_args`.
    """

    def __init__(self, **options):
        super().__init__()
        try:
            import warp  # TorchMD-Net's kernels: keep its start banner and per-kernel compile lines out of the logs

            warp.config.log_level = max(warp.config.log_level, warp.LOG_WARNING)
            create_model = import_without_dynamo("torchmdnet.models.model").create_model
        except ImportError as error:
            raise ImportError(
                f"cg.model.architecture {options.get('architecture')!r} needs TorchMD-Net ({error}). {INSTALL_HINT}"
            ) from None
        self.args = torchmdnet_args(**options)
        self.net = create_model(dict(self.args))
        representation = self.net.representation_model
        self.all_pairs = self.args["model"] == "graph-network" and self.args["aggr"] == "add"
        if self.all_pairs:
            representation.distance = AllPairs(
                self.args["cutoff_lower"], self.args["cutoff_upper"], self.args["max_num_neighbors"]
            ).to(representation.distance.box.device)

    @property
    def head(self) -> nn.Sequential:
        """The per-bead energy MLP (TorchMD-Net's Scalar output network), as :attr:`SchNet.head`."""
        return self.net.output_model.output_network.layers

    def forward(self, x: torch.Tensor, types: torch.Tensor) -> torch.Tensor:
        batch, n, _ = x.shape
        if n < 2:
            return x.new_zeros(batch)
        z = types.to(x.device).long().repeat(batch)
        index = torch.arange(batch, device=x.device).repeat_interleave(n)
        if self.all_pairs:
            self.net.representation_model.distance.beads = n
        energy, _ = self.net(z, x.reshape(batch * n, 3) * 10.0, index, num_systems=batch)
        return energy.reshape(batch)
