"""The protein's ground-truth macrostate model, the job of rule ``macrostates``: fitted once from the ground truth's
frames file and saved, so that every engine's ``metric_suite`` job assigns its frames to the same macrostates.

The estimator is :class:`westbench.metrics.metastable.MacrostateEstimator`; this module reads the frames, fits it at
the metric settings and saves the model with its seed and settings.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Mapping

from westbench.io.canonical import canonical_frames
from westbench.io.frames import read_frames
from westbench.metrics.metastable import MacrostateEstimator, MacrostateModel
from westbench.metrics.settings import MetricSettings

__all__ = ["fit_macrostate_model"]

log = logging.getLogger("westbench.metrics")


def fit_macrostate_model(
    groundtruth_frames: str | Path, settings: Mapping, seed: int, path: str | Path
) -> MacrostateModel:
    """The protein's ground-truth macrostate model (rule ``macrostates``): KMeans (``macrostate_clusters`` on the
    first ``macrostate_dim`` TICs), a reversible MSM at ``msm_lag``, PCCA+ into ``macrostates`` sets; saved to
    ``path`` (:meth:`MacrostateModel.save`) with the seed and settings.

    Examples
    --------
    >>> import numpy as np, tempfile
    >>> from westbench.io.frames import write_frames
    >>> folder = Path(tempfile.mkdtemp())
    >>> centre = np.repeat(np.tile([0.0, 3.0], 5), 100)
    >>> write_frames(folder / "gt.h5", ca=np.zeros((1000, 3, 3)), time_ps=np.arange(1000.0), traj=np.zeros(1000, int),
    ...              tics=centre[:, None] + np.random.default_rng(0).normal(0, 0.1, (1000, 2)))
    >>> model = fit_macrostate_model(folder / "gt.h5", {"macrostate_clusters": 10, "macrostates": 2}, 1,
    ...                              folder / "macrostates.npz")
    >>> model.n_macrostates, MacrostateModel.load(folder / "macrostates.npz").n_macrostates
    (2, 2)
    """
    s = MetricSettings.of(settings)
    frames = canonical_frames(read_frames(groundtruth_frames))  # the frames the suite scores (io.canonical)
    model = MacrostateEstimator(s.macrostate_clusters, s.macrostates, s.msm_lag, s.macrostate_dim, int(seed)).fit(
        frames["tics"], frames["traj"]
    )
    model.save(
        path,
        seed=int(seed),
        settings={k: getattr(s, k) for k in ("macrostate_clusters", "macrostates", "macrostate_dim", "msm_lag")},
    )
    log.info(
        "macrostates: %d of %d requested from %d ground-truth frames%s",
        model.n_macrostates,
        s.macrostates,
        len(frames["tics"]),
        f" ({model.why})" if model.why else "",
    )
    return model
