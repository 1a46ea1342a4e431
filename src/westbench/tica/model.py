"""A fitted TICA stored portably: the affine map of deeptime's model, ``tics = features @ projection + offset``.

Kept as plain arrays (``.npz``, no pickle) beside a JSON of its feature definition, lag and format version.
:meth:`TicaModel.load` refuses a model of another protein or feature set.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from westbench.errors import WestbenchError

FORMAT_VERSION = 1
FEATURE_CA_DISTANCES = "ca_pairwise_distances_nm"


@dataclass
class TicaModel:
    """A fitted TICA as arrays plus metadata.

    Attributes
    ----------
    projection : ndarray (n_features, k)
    offset : ndarray (k,)
    timescales_frames : ndarray (k,)
        Implied timescales in frames of the fitting data.
    protein, feature : str
        What the features are: protein id and feature name.
    n_features, lag_frames : int
    lag_ps : float
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

    @classmethod
    def from_deeptime(
        cls, model, protein: str, feature: str, n_features: int, lag_frames: int, lag_ps: float, **metadata
    ) -> "TicaModel":
        """Capture a deeptime model as the affine map it applies."""
        offset = model.transform(np.zeros((1, n_features)))[0]
        projection = model.transform(np.eye(n_features)) - offset
        timescales = np.asarray(model.timescales(lagtime=lag_frames))[: projection.shape[1]]
        return cls(projection, offset, timescales, protein, feature, n_features, lag_frames, lag_ps, dict(metadata))

    @property
    def dim(self) -> int:
        return self.projection.shape[1]

    def transform(self, features: np.ndarray) -> np.ndarray:
        """Project features (n_frames, n_features) onto the TICs."""
        features = np.asarray(features, dtype=np.float64)
        if features.shape[-1] != self.n_features:
            raise WestbenchError(
                f"TICA model of '{self.protein}' expects {self.n_features} features ({self.feature}), "
                f"got {features.shape[-1]}"
            )
        return features @ self.projection + self.offset

    def save(self, stem: str | Path) -> None:
        """Write ``<stem>.npz`` (arrays) and ``<stem>.json`` (definition)."""
        stem = Path(stem)
        stem.parent.mkdir(parents=True, exist_ok=True)
        np.savez(
            stem.with_suffix(".npz"),
            projection=self.projection,
            offset=self.offset,
            timescales_frames=self.timescales_frames,
        )
        description = {
            "format": "westbench-tica",
            "version": FORMAT_VERSION,
            "protein": self.protein,
            "feature": self.feature,
            "n_features": self.n_features,
            "dim": self.dim,
            "lag_frames": self.lag_frames,
            "lag_ps": self.lag_ps,
            "timescales_ps": (self.timescales_frames * self.lag_ps / self.lag_frames).tolist(),
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
        if description.get("format") != "westbench-tica" or description.get("version") != FORMAT_VERSION:
            raise WestbenchError(f"{stem}.json is not a westbench TICA model of format version {FORMAT_VERSION}")
        for key, wanted in (("protein", protein), ("feature", feature), ("n_features", n_features)):
            if wanted is not None and description[key] != wanted:
                raise WestbenchError(
                    f"TICA model {stem}.json is for {key} {description[key]!r}, not {wanted!r}: "
                    "use the model fitted on this protein's ground truth (results/<protein>/tica/)."
                )
        with np.load(stem.with_suffix(".npz"), allow_pickle=False) as arrays:
            projection, offset, timescales = arrays["projection"], arrays["offset"], arrays["timescales_frames"]
        known = {
            "format",
            "version",
            "protein",
            "feature",
            "n_features",
            "dim",
            "lag_frames",
            "lag_ps",
            "timescales_ps",
        }
        return cls(
            projection,
            offset,
            timescales,
            description["protein"],
            description["feature"],
            description["n_features"],
            description["lag_frames"],
            description["lag_ps"],
            {k: v for k, v in description.items() if k not in known},
        )
