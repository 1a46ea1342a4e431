"""What every figure shares: colours, the TIC pairs, the seeded scatter subsample, saving, and the placeholder
that says why a figure could not be drawn.

Examples
--------
>>> subsample(5, 10).tolist(), len(subsample(1000, 10))
([0, 1, 2, 3, 4], 10)
"""

from __future__ import annotations

import logging
from typing import Callable

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from westbench.metrics.estimability import Caveats, NotEstimable  # noqa: E402
from westbench.metrics.figure_list import FIGURES  # noqa: E402
from westbench.presentation.figure_layout import fit_titles  # noqa: E402

log = logging.getLogger(__name__)

TIC_PAIRS = ((0, 1), (1, 2), (2, 3))
GROUNDTRUTH_COLOUR, MODEL_COLOUR = "0.25", "tab:orange"


def subsample(n: int, max_points: int, seed: int = 0) -> np.ndarray:
    """Sorted indices of at most ``max_points`` of ``n`` points, uniform without replacement, seeded."""
    if n <= max_points:
        return np.arange(n)
    return np.sort(np.random.default_rng(seed).choice(n, max_points, replace=False))


def save(figure, path, tight: bool = True) -> None:
    """Fit every title to its width (:func:`westbench.presentation.figure_layout.fit_titles`), lay out
    (``tight``), write and close ``figure``."""
    fit_titles(figure)
    if tight:
        figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)


def placeholder(path, title: str, reason: str) -> None:
    """A figure that says why it could not be drawn (the report shows it where the figure would be)."""
    figure, ax = plt.subplots(figsize=(6, 2.2), dpi=110)
    ax.axis("off")
    ax.text(0.5, 0.5, f"{title}: not drawn\n{reason}", ha="center", va="center", wrap=True, fontsize=9)
    save(figure, path, tight=False)


def draw_or_explain(path, name: str, draw: Callable[[], None], caveats: Caveats) -> None:
    """Draw one figure; where the data cannot give it, a :func:`placeholder` with the reason, recorded in
    ``caveats`` as ``figure/<name>``. A figure never costs the job its metrics: an unexpected error is logged
    with its traceback and explained the same way."""
    try:
        draw()
        return
    except NotEstimable as exc:
        reason = str(exc)
    except Exception as exc:  # noqa: BLE001 (the metrics are written already; say why this figure is missing)
        log.exception("figure %s could not be drawn", name)
        reason = f"could not be drawn ({type(exc).__name__}: {exc})"
    plt.close("all")
    caveats.add(f"figure/{name}", reason)
    placeholder(path, FIGURES.get(name, name), reason)
