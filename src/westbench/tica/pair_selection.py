"""Which C-alpha pair distances TICA sees: a saved part of every TICA model.

The published method fits TICA on all pairwise C-alpha distances (``n (n - 1) / 2`` features). That is kept
while there are at most ``tica.features.all_pairs_up_to`` pairs (3,200: every protein of ``config/paper.yaml``);
above it (``pairs: auto``) the model takes a reduced set of ``tica.features.max_features`` (2,000: 100,000 frames
fitted in under a minute on 2 quiet cores, benchmarks/tica_large.json): the native contacts, topped up with a
seeded random choice of the other pairs. The chosen pairs are stored with the model (:class:`PairFeatures`), so
the ground truth, WE progress coordinates, exports and external samples all compute the same features: callers
ask the model (:meth:`westbench.tica.TicaModel.project`), never :func:`westbench.geometry.features.pairwise_distances`.

Selections (``tica.features.pairs``):

* ``all``: every pair, row-major (:func:`westbench.geometry.features.pair_indices`);
* ``stride``: every ``stride``-th pair of ``all``;
* ``contacts``: the pairs at least ``min_separation`` apart in sequence whose distance in the reference
  (the prepared, native structure) is at most ``contact_cutoff_nm``; a seeded random choice of them if more than
  ``max_features``, else topped up to ``max_features`` with a seeded random choice of the other pairs at least
  ``min_separation`` apart (distances that grow when the protein unfolds);
* ``random``: a seeded random choice of ``max_features`` pairs at least ``min_separation`` apart;
* ``auto`` (default): ``all`` while there are at most ``all_pairs_up_to`` pairs, else ``contacts``.

Examples
--------
>>> import numpy as np
>>> chain = np.cumsum(np.full((12, 3), 0.22), axis=0)            # a straight chain, 0.38 nm steps
>>> small = choose_features(12, {"pairs": "auto", "all_pairs_up_to": 100}, reference=chain, seed=1)
>>> small.selection, small.n_features                              # 66 pairs <= 100: all of them
('all', 66)
>>> reduced = {"all_pairs_up_to": 50, "max_features": 20, "contact_cutoff_nm": 1.2}
>>> big = choose_features(12, reduced, chain, seed=1)
>>> big.selection, big.n_features, int((np.diff(big.pairs, axis=1) >= 3).all())
('contacts', 20, 1)
>>> big.compute(chain[None]).shape                                 # one frame, 20 distances (nm)
(1, 20)
>>> PairFeatures.from_description(big.describe(), big.pairs).reason == big.reason
True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

import mdtraj
import numpy as np

from westbench.config import section_defaults
from westbench.errors import WestbenchError
from westbench.geometry.features import ca_trajectory, pair_indices

#: The selections of ``tica.features.pairs``.
SELECTIONS = ("auto", "all", "stride", "contacts", "random")
#: The fewest features a TICA can have: one per TIC that every use needs (TIC 0 and 1,
#: :data:`westbench.tica.wellposed.REQUIRED_TICS`). No message suggests fewer.
MIN_FEATURES = 2


@dataclass(frozen=True, eq=False)
class PairFeatures:
    """The C-alpha pairs whose distances (nm) are a TICA model's features.

    Attributes
    ----------
    n_residues : int
        C-alpha atoms of the protein the pairs index.
    pairs : ndarray (n_features, 2) of int
        Residue indices (0-based, ``i < j``), in feature order.
    selection : str
        What chose them: ``all``, ``stride``, ``contacts`` or ``random`` (never ``auto``: it is resolved).
    settings : dict
        The settings that chose them (``tica.features`` and the seed), recorded with the model.
    reason : str
        Why these pairs, in words (the log and ``model.json``).
    """

    n_residues: int
    pairs: np.ndarray
    selection: str = "all"
    settings: dict = field(default_factory=dict)
    reason: str = ""

    @classmethod
    def all_pairs(cls, n_residues: int, reason: str = "") -> "PairFeatures":
        """Every pair of ``n_residues`` C-alphas (the published features)."""
        return cls(n_residues, pair_indices(n_residues), "all", {}, reason or f"all pairs of {n_residues} residues")

    @property
    def n_features(self) -> int:
        return len(self.pairs)

    def compute(self, ca: np.ndarray) -> np.ndarray:
        """The features of C-alpha frames ``ca`` (n_frames, n_residues, 3) in nm: (n_frames, n_features) float32."""
        ca = np.asarray(ca, dtype=np.float32)
        if ca.ndim != 3 or ca.shape[1] != self.n_residues:
            raise WestbenchError(
                f"TICA features are distances between {self.n_residues} C-alpha atoms; got frames of shape "
                f"{ca.shape}: project frames of the protein the model was fitted on"
            )
        if not len(ca):
            return np.zeros((0, self.n_features), dtype=np.float32)
        return mdtraj.compute_distances(ca_trajectory(ca), self.pairs, periodic=False)

    def how_to_reduce(self, count: int) -> str:
        """The config change that gives at most ``count`` features instead of these (for error messages), or ""
        when fewer features cannot help: ``count`` is not below these features' count, or below the
        :data:`MIN_FEATURES` a TICA needs (the caller then names only its other fixes; never "lower from 2 to 2").

        Examples
        --------
        >>> few = PairFeatures(10, pair_indices(10)[:2], "random", {"max_features": 2})
        >>> few.how_to_reduce(2), few.how_to_reduce(1), few.how_to_reduce(50)
        ('', '', '')
        >>> PairFeatures(30, pair_indices(30)[:28], "random", {"max_features": 2000}).how_to_reduce(20)
        'lower tica.features.max_features from 2,000 to 20'
        """
        count = int(count)
        if count >= self.n_features or count < MIN_FEATURES:
            return ""
        if self.selection == "all":
            return (
                f"use at most {count:,} of the {self.n_features:,} pairs: tica.features.pairs: contacts (or, with "
                f"pairs: auto, tica.features.all_pairs_up_to below {self.n_features:,}) and "
                f"tica.features.max_features: {count:,}"
            )
        if self.selection == "stride":
            return (
                f"raise tica.features.stride (now {self.settings['stride']}: {self.n_features:,} pairs), or set "
                f"tica.features.pairs: contacts and tica.features.max_features: {count:,}"
            )
        current = int(self.settings.get("max_features", self.n_features))  # above n_features when fewer pairs exist
        return f"lower tica.features.max_features from {current:,} to {count:,}"

    def describe(self) -> dict:
        """The JSON record of these features (the pairs themselves are stored as an array beside it)."""
        return {
            "selection": self.selection,
            "n_residues": self.n_residues,
            "n_features": self.n_features,
            "settings": dict(self.settings),
            "reason": self.reason,
        }

    @classmethod
    def from_description(cls, description: Mapping, pairs: np.ndarray) -> "PairFeatures":
        """Rebuild from :meth:`describe`'s record and the stored pairs."""
        pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
        if len(pairs) != description["n_features"]:
            raise WestbenchError(
                f"TICA features record {description['n_features']} pairs, the stored array {len(pairs)}: "
                "the model files do not belong together; fit the TICA model again"
            )
        return cls(
            int(description["n_residues"]),
            pairs,
            description["selection"],
            dict(description.get("settings", {})),
            description.get("reason", ""),
        )


def residues_of_pairs(n_pairs: int) -> int:
    """The residue count whose all-pairs feature count is ``n_pairs`` (models saved before pairs were stored)."""
    n = int(round((1 + np.sqrt(1 + 8 * n_pairs)) / 2))
    if n * (n - 1) // 2 != n_pairs:
        raise WestbenchError(
            f"a TICA model without stored pairs has {n_pairs} features, not the all-pairs count of any residue "
            "number: fit the TICA model again"
        )
    return n


def choose_features(
    n_residues: int, settings: Mapping | None = None, reference: np.ndarray | None = None, seed: int = 0
) -> PairFeatures:
    """The pairs ``tica.features`` ``settings`` select for a protein of ``n_residues`` (see the module docstring).

    Parameters
    ----------
    n_residues : int
    settings : mapping, optional
        The ``tica.features`` section; missing keys take the schema's defaults.
    reference : ndarray (n_residues, 3), optional
        C-alpha positions (nm) of the native structure; needed by ``contacts`` (and ``auto`` above
        ``all_pairs_up_to``).
    seed : int
        Seeds the random choices (recorded in the result's settings).
    """
    settings = {**section_defaults("tica.features"), **(settings or {})}
    selection, limit = settings["pairs"], int(settings["max_features"])
    if selection not in SELECTIONS:
        raise WestbenchError(f"tica.features.pairs is {selection!r}; one of {', '.join(SELECTIONS)}")
    every, all_up_to = pair_indices(n_residues), int(settings["all_pairs_up_to"])
    if selection == "auto":
        if len(every) <= all_up_to:
            return PairFeatures.all_pairs(
                n_residues,
                f"all {len(every):,} pairs of {n_residues} residues (at most tica.features.all_pairs_up_to "
                f"{all_up_to:,}: the published features)",
            )
        selection = "contacts"
        why = (
            f"pairs: auto and the {len(every):,} pairs of {n_residues} residues are more than "
            f"tica.features.all_pairs_up_to {all_up_to:,}: "
        )
    else:
        why = f"pairs: {selection}: "
    if selection == "all":
        return PairFeatures.all_pairs(n_residues, f"pairs: all: all {len(every):,} pairs of {n_residues} residues")
    if selection == "stride":
        stride = int(settings["stride"])
        pairs = every[::stride]
        return PairFeatures(
            n_residues,
            pairs,
            "stride",
            {"stride": stride},
            why + f"every {stride}-th of the {len(every):,} pairs ({len(pairs):,})",
        )
    separation = int(settings["min_separation"])
    apart = every[every[:, 1] - every[:, 0] >= separation]
    rng = np.random.default_rng(seed)
    if selection == "random":
        chosen = _choose(rng, apart, limit)
        record = {"max_features": limit, "min_separation": separation, "seed": int(seed)}
        return PairFeatures(
            n_residues,
            chosen,
            "random",
            record,
            why + f"{len(chosen):,} seeded random pairs at least {separation} apart in sequence",
        )
    reference = _native_ca(reference, n_residues)
    return _contact_features(reference, apart, limit, separation, settings, rng, seed, why)


def _choose(rng: np.random.Generator, pairs: np.ndarray, count: int) -> np.ndarray:
    if count >= len(pairs):
        return pairs
    return _sorted(pairs[rng.choice(len(pairs), size=count, replace=False)])


def _sorted(pairs: np.ndarray) -> np.ndarray:
    """Row-major order (the order of all pairs), so features of neighbouring residues sit together."""
    return pairs[np.lexsort((pairs[:, 1], pairs[:, 0]))]


def _native_ca(reference: np.ndarray | None, n_residues: int) -> np.ndarray:
    """The native structure's C-alpha positions (n_residues, 3) float32; an error when missing or of another protein."""
    if reference is None:
        raise WestbenchError(
            f"TICA features 'contacts' need the native structure's C-alpha positions ({n_residues} residues) "
            "and none was given"
        )
    reference = np.asarray(reference, dtype=np.float32).reshape(-1, 3)
    if len(reference) != n_residues:
        raise WestbenchError(
            f"the reference structure for the TICA contacts has {len(reference)} C-alpha atoms, the "
            f"trajectories {n_residues}: use the prepared structure of the same protein"
        )
    return reference


def _contact_features(reference, apart, limit, separation, settings, rng, seed, why) -> PairFeatures:
    """The native contacts among ``apart`` (a seeded random ``limit`` of them, or all plus random other pairs)."""
    n_residues = len(reference)
    cutoff = float(settings["contact_cutoff_nm"])
    distance = np.linalg.norm(reference[apart[:, 0]] - reference[apart[:, 1]], axis=1)
    contacts, others = apart[distance <= cutoff], apart[distance > cutoff]
    if len(contacts) >= limit:
        chosen = _choose(rng, contacts, limit)
        detail = f"a seeded random {limit:,} of the {len(contacts):,} native contacts"
    else:
        extra = _choose(rng, others, limit - len(contacts))
        chosen = _sorted(np.concatenate([contacts, extra]))
        detail = f"the {len(contacts):,} native contacts plus {len(extra):,} seeded random other pairs"
    record = {
        "max_features": limit,
        "min_separation": separation,
        "contact_cutoff_nm": cutoff,
        "seed": int(seed),
        "native_contacts": int(len(contacts)),
    }
    return PairFeatures(
        n_residues,
        chosen,
        "contacts",
        record,
        why + f"{detail} (pairs at least {separation} apart in sequence; contact: within {cutoff:g} nm in the "
        f"native structure), {len(chosen):,} features",
    )
