"""A fitted TICA stored portably: its features and the affine map of deeptime's model.

``tics = features @ projection + offset``, where the features are the distances of the C-alpha pairs the model
stores (:class:`~westbench.tica.pair_selection.PairFeatures`). Kept as plain arrays (``.npz``, no pickle) beside a
JSON of
the feature definition, lag, timescales, well-posedness and format version. :meth:`TicaModel.project` computes the
features of C-alpha frames and projects them, chunk by chunk: every caller (ground truth, WE progress coordinates,
exports, external samples) projects through it. :meth:`TicaModel.load` refuses a model of another protein or
feature set, and reads models saved before the pairs were stored (format 1) as all pairs.

Examples
--------
>>> import numpy as np
>>> from westbench.tica.pair_selection import PairFeatures
>>> model = TicaModel(np.eye(3)[:, :2], np.zeros(2), np.ones(2), "toy", FEATURE_CA_DISTANCES, 3, 1, 1.0,
...                   features=PairFeatures.all_pairs(3))
>>> ca = np.array([[[0, 0, 0], [0.38, 0, 0], [0.38, 0.38, 0]]], dtype=np.float32)
>>> model.project(ca).round(3).tolist()          # the distances of pairs (0, 1) and (0, 2)
[[0.38, 0.537]]
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from westbench.errors import WestbenchError
from westbench.tica.pair_selection import PairFeatures, residues_of_pairs

FORMAT_VERSION = 2
#: Versions :meth:`TicaModel.load` reads: 1 has no stored pairs (all pairs, the only features it had).
READABLE_VERSIONS = (1, 2)
FEATURE_CA_DISTANCES = "ca_pairwise_distances_nm"
#: Frames whose features are computed at once when projecting (a bounded buffer, whatever the trajectory).
PROJECT_CHUNK_FRAMES = 5000
#: Frames-file attributes of a projected ground truth (:meth:`TicaModel.frames_attrs`): the TICA's well-posedness
#: caveat ("" when well posed) and the TICs without a positive finite timescale.
TICA_CAVEAT_ATTR = "tica_caveat"
TICS_WITHOUT_TIMESCALE_ATTR = "tica_tics_without_timescale"
#: Keys of model.json that are attributes, not metadata.
_DESCRIPTION_KEYS = (
    "format",
    "version",
    "protein",
    "feature",
    "n_features",
    "dim",
    "lag_frames",
    "lag_ps",
    "timescales_ps",
    "features",
)


@dataclass
class TicaModel:
    """A fitted TICA as arrays plus metadata.

    Attributes
    ----------
    projection : ndarray (n_features, k)
    offset : ndarray (k,)
    timescales_frames : ndarray (k,)
        Implied timescales ``-lag / ln(lambda)`` in frames of the fitting data; NaN for a TIC whose eigenvalue
        is outside (0, 1), which has none (deeptime's ``-lag / ln |lambda|`` would give a negative one above 1
        and a meaningless positive one below 0; model.json writes null).
    protein, feature : str
        What the features are: protein id and feature name.
    n_features, lag_frames : int
    lag_ps : float
    metadata : dict
        Written into model.json as they are (eigenvalues, well-posedness, data sizes).
    features : PairFeatures, optional
        The C-alpha pairs (``feature`` :data:`FEATURE_CA_DISTANCES`); None for a model of other features,
        which projects only features given to :meth:`transform`.
    """

    projection: np.ndarray
    offset: np.ndarray
    timescales_frames: np.ndarray
    protein: str
    feature: str
    n_features: int
    lag_frames: int
    lag_ps: float
    metadata: dict = field(default_factory=dict)
    features: PairFeatures | None = None

    @classmethod
    def from_deeptime(
        cls,
        model,
        protein: str,
        feature: str,
        n_features: int,
        lag_frames: int,
        lag_ps: float,
        features: PairFeatures | None = None,
        **metadata,
    ) -> "TicaModel":
        """Capture a deeptime ``CovarianceKoopmanModel`` (TICA) as the affine map its ``transform`` applies.

        deeptime 0.5 projects with ``(x - mean_0) @ instantaneous_coefficients[:, :output_dimension]`` (the mean
        only when the covariances removed it, as TICA's do); the map is read from those attributes, never by
        transforming an identity matrix (n_features^2 numbers: 4 GB for 22,791 features).
        """
        if model.instantaneous_coefficients.shape[0] != n_features:
            raise WestbenchError(
                f"the TICA model has {model.instantaneous_coefficients.shape[0]} features, not {n_features}"
            )
        dim = int(model.output_dimension)
        projection = np.array(model.instantaneous_coefficients[:, :dim], dtype=np.float64)
        mean = np.asarray(model.mean_0, dtype=np.float64) if model.cov.data_mean_removed else np.zeros(n_features)
        offset = -(mean @ projection)
        eigenvalues = np.asarray(model.singular_values[:dim])
        real = np.real(eigenvalues)
        valid = (np.imag(eigenvalues) == 0) & (real > 0) & (real < 1)
        timescales = np.full(dim, np.nan)
        timescales[valid] = -lag_frames / np.log(real[valid])
        metadata.setdefault("eigenvalues", np.real(eigenvalues).tolist())
        return cls(
            projection,
            offset,
            timescales,
            protein,
            feature,
            n_features,
            lag_frames,
            lag_ps,
            dict(metadata),
            features,
        )

    @property
    def dim(self) -> int:
        return self.projection.shape[1]

    @property
    def pair_features(self) -> PairFeatures:
        """The C-alpha pairs of the features (all pairs for a model that stored none)."""
        if self.features is not None:
            return self.features
        if self.feature != FEATURE_CA_DISTANCES:
            raise WestbenchError(
                f"TICA model of '{self.protein}' has features {self.feature!r}, not C-alpha distances: "
                "compute them and call transform"
            )
        return PairFeatures.all_pairs(residues_of_pairs(self.n_features))

    def transform(self, features: np.ndarray) -> np.ndarray:
        """Project features (n_frames, n_features) onto the TICs."""
        features = np.asarray(features, dtype=np.float64)
        if features.shape[-1] != self.n_features:
            raise WestbenchError(
                f"TICA model of '{self.protein}' expects {self.n_features} features ({self.feature}), "
                f"got {features.shape[-1]}"
            )
        return features @ self.projection + self.offset

    def project(self, ca: np.ndarray, chunk_frames: int = PROJECT_CHUNK_FRAMES) -> np.ndarray:
        """The TICs (n_frames, dim) of C-alpha frames ``ca`` (n_frames, n_residues, 3) in nm.

        Features are computed :data:`PROJECT_CHUNK_FRAMES` frames at a time, so memory stays bounded.
        """
        features = self.pair_features
        ca = np.asarray(ca)
        out = np.empty((len(ca), self.dim), dtype=np.float64)
        for start in range(0, len(ca), chunk_frames):
            out[start : start + chunk_frames] = self.transform(features.compute(ca[start : start + chunk_frames]))
        return out

    def frames_attrs(self) -> dict:
        """What the projected ground truth's frames file carries of this model (:data:`FRAMES_ATTRS`): where its
        runs came from, and its well-posedness caveat with the TICs that have no timescale, so every score of
        those TICs can say so."""
        checks = self.metadata.get("well_posedness") or {}
        return {
            "runs_from": self.metadata.get("runs_from", ""),
            TICA_CAVEAT_ATTR: self.metadata.get("why", ""),
            TICS_WITHOUT_TIMESCALE_ATTR: [int(k) for k in checks.get("tics_without_timescale", [])],
        }

    def save(self, stem: str | Path) -> None:
        """Write ``<stem>.npz`` (arrays, the pairs among them) and ``<stem>.json`` (definition)."""
        stem = Path(stem)
        stem.parent.mkdir(parents=True, exist_ok=True)
        arrays = {"projection": self.projection, "offset": self.offset, "timescales_frames": self.timescales_frames}
        if self.features is not None:
            arrays["pairs"] = self.features.pairs.astype(np.int32)
        np.savez(stem.with_suffix(".npz"), **arrays)
        description = {
            "format": "westbench-tica",
            "version": FORMAT_VERSION,
            "protein": self.protein,
            "feature": self.feature,
            "n_features": self.n_features,
            "dim": self.dim,
            "lag_frames": self.lag_frames,
            "lag_ps": self.lag_ps,
            "timescales_ps": [
                t if np.isfinite(t) else None for t in (self.timescales_frames * self.lag_ps / self.lag_frames).tolist()
            ],
            **({"features": self.features.describe()} if self.features is not None else {}),
            **self.metadata,
        }
        stem.with_suffix(".json").write_text(json.dumps(description, indent=2) + "\n")

    @classmethod
    def load(
        cls, path: str | Path, protein: str | None = None, feature: str | None = None, n_features: int | None = None
    ) -> "TicaModel":
        """Read a model, refusing one of another protein, feature or size than asked for.

        ``path`` is a file the rules name (``model.json`` or ``model.npz``) or the two files' common stem.
        """
        stem = Path(path)
        if stem.suffix in (".json", ".npz"):
            stem = stem.with_suffix("")
        description = json.loads(stem.with_suffix(".json").read_text())
        if description.get("format") != "westbench-tica" or description.get("version") not in READABLE_VERSIONS:
            raise WestbenchError(
                f"{stem}.json is not a westbench TICA model of format version "
                f"{' or '.join(map(str, READABLE_VERSIONS))}"
            )
        for key, wanted in (("protein", protein), ("feature", feature), ("n_features", n_features)):
            if wanted is not None and description[key] != wanted:
                raise WestbenchError(
                    f"TICA model {stem}.json is for {key} {description[key]!r}, not {wanted!r}: "
                    "use the model fitted on this protein's ground truth (results/<protein>/tica/)."
                )
        with np.load(stem.with_suffix(".npz"), allow_pickle=False) as arrays:
            projection, offset, timescales = arrays["projection"], arrays["offset"], arrays["timescales_frames"]
            pairs = arrays["pairs"] if "pairs" in arrays.files else None
        features = None  # format 1 stored no pairs: pair_features gives all pairs, the only features it had
        if pairs is not None and "features" in description:
            features = PairFeatures.from_description(description["features"], pairs)
        return cls(
            projection,
            offset,
            timescales,
            description["protein"],
            description["feature"],
            description["n_features"],
            description["lag_frames"],
            description["lag_ps"],
            {k: v for k, v in description.items() if k not in _DESCRIPTION_KEYS},
            features,
        )
