"""TICA on C-alpha distances: fit with deeptime, store portably, project anything.

The stored model is the affine map deeptime's fitted model applies,
``tics = features @ projection + offset``, kept as plain arrays (``.npz``,
no pickle) beside a JSON of its feature definition, lag and format version.
:meth:`TicaModel.load` refuses a model of another protein or feature set.

Examples
--------
>>> import numpy as np, tempfile, os
>>> rng = np.random.default_rng(0)
>>> slow = np.repeat(rng.choice([-1.0, 1.0], size=100), 20)    # a two-state slow process
>>> data = np.column_stack([slow + 0.3 * rng.normal(size=2000), rng.normal(size=(2000, 3))])
>>> model = TicaModel.from_deeptime(fit_tica([data], lag=5, dim=2), protein="toy", feature="test",
...                                 n_features=4, lag_frames=5, lag_ps=5.0)
>>> bool(abs(np.corrcoef(model.transform(data)[:, 0], slow)[0, 1]) > 0.9)
True
>>> path = os.path.join(tempfile.mkdtemp(), "tica")
>>> model.save(path)
>>> TicaModel.load(path, protein="toy").lag_frames
5
>>> TicaModel.load(path + ".json", protein="toy").dim
2
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np
from deeptime.decomposition import TICA

from westbench.errors import WestbenchError

FORMAT_VERSION = 1
FEATURE_CA_DISTANCES = "ca_pairwise_distances_nm"


def fit_tica(trajectories: Sequence[np.ndarray], lag: int, dim: int | None = None):
    """Fit deeptime's TICA on several trajectories; lagged pairs never cross a trajectory boundary.

    Trajectories shorter than ``lag + 1`` frames contribute no pairs and are skipped.
    """
    usable = [np.asarray(t, dtype=np.float64) for t in trajectories if len(t) > lag]
    if not usable:
        raise WestbenchError(f"TICA lag {lag} frames is longer than every trajectory: lower the lag or run longer")
    return TICA(lagtime=lag, dim=dim).fit(usable).fetch_model()


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
    def from_deeptime(cls, model, protein: str, feature: str, n_features: int, lag_frames: int, lag_ps: float,
                      **metadata) -> "TicaModel":
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
        np.savez(stem.with_suffix(".npz"), projection=self.projection, offset=self.offset,
                 timescales_frames=self.timescales_frames)
        description = {
            "format": "westbench-tica", "version": FORMAT_VERSION, "protein": self.protein, "feature": self.feature,
            "n_features": self.n_features, "dim": self.dim, "lag_frames": self.lag_frames, "lag_ps": self.lag_ps,
            "timescales_ps": (self.timescales_frames * self.lag_ps / self.lag_frames).tolist(), **self.metadata,
        }
        stem.with_suffix(".json").write_text(json.dumps(description, indent=2) + "\n")

    @classmethod
    def load(cls, path: str | Path, protein: str | None = None, feature: str | None = None,
             n_features: int | None = None) -> "TicaModel":
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
        known = {"format", "version", "protein", "feature", "n_features", "dim", "lag_frames", "lag_ps", "timescales_ps"}
        return cls(projection, offset, timescales, description["protein"], description["feature"],
                   description["n_features"], description["lag_frames"], description["lag_ps"],
                   {k: v for k, v in description.items() if k not in known})


def fit_groundtruth(frames_paths: Sequence[str | Path], protein: str, lag_frames: int, dim: int):
    """Fit the protein's TICA on all its ground-truth runs and project every frame.

    Returns
    -------
    model : TicaModel
    frames : dict
        All runs joined in the frames contract (``traj`` = run), with ``tics`` filled.
    """
    from westbench.features import pairwise_distances
    from westbench.frames import concatenate, read_frames

    runs = [read_frames(p) for p in frames_paths]
    for index, run in enumerate(runs):
        run["traj"] = np.full(len(run), index)
    features = [pairwise_distances(run["ca"]) for run in runs]
    intervals = {round(float(np.median(np.diff(r["time_ps"]))), 9) for r in runs if len(r) > 1}
    if len(intervals) > 1:
        raise WestbenchError(f"ground-truth runs of '{protein}' were saved at different intervals {sorted(intervals)} ps")
    interval = intervals.pop() if intervals else float("nan")
    n_residues = runs[0]["ca"].shape[1]
    fitted = fit_tica(features, lag=lag_frames, dim=dim)
    model = TicaModel.from_deeptime(
        fitted, protein=protein, feature=FEATURE_CA_DISTANCES, n_features=features[0].shape[1], lag_frames=lag_frames,
        lag_ps=lag_frames * interval, n_residues=n_residues, trajectories=len(runs), frames=int(sum(map(len, runs))),
    )
    frames = concatenate(runs)
    frames["tics"] = model.transform(np.concatenate(features)).astype(np.float32)
    frames["weight"] = np.full(len(frames["ca"]), 1.0 / len(frames["ca"]))
    return model, frames
