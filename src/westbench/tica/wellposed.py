"""Is a TICA fit well posed? Lagged pairs per feature, and a positive finite timescale for every kept TIC.

A TICA estimates ``n_features^2`` covariances from the lagged frame pairs; with few pairs per feature it
overfits (timescales too long, TICs that follow noise), and an eigenvalue outside (0, 1) has no positive finite
implied timescale (``-lag / ln |lambda|`` is negative above 1; a negative one oscillates). What the fit cannot
be used for is an error (:class:`IllPosedError`); what only weakens it is a caveat, recorded in ``model.json``:
``well_posed`` (bool), ``why`` (the caveats in words, empty when well posed) and ``well_posedness`` (the numbers).

* errors: fewer lagged pairs than features (:func:`check_data`, before fitting); fewer than 2 TICs estimable
  (the WE progress coordinate and the TIC 0/1 metrics need 2); TIC 0 without a positive finite timescale (the
  slowest process found is noise: nothing in the fit is worth using);
* caveats: fewer than ``tica.min_pairs_per_feature`` lagged pairs per feature; a later TIC without a positive
  finite timescale (with one slow process in the data, TIC 1 is noise and may come out negative); fewer TICs
  estimable than ``tica.dim``.

Examples
--------
>>> result = assess(eigenvalues=[0.9, 0.5, -0.2], dim_asked=3, lagged_pairs=1000, n_features=45,
...                 min_pairs_per_feature=5, protein="toy")
>>> result.well_posed, result.why
(False, 'TIC 2 has eigenvalue -0.2, outside (0, 1): no positive finite timescale')
>>> assess([0.9, 0.5], 2, 1000, 45, 5, "toy").record()["well_posed"]
True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from westbench.errors import WestbenchError

#: TICs every use needs: TIC 0/1 are the WE progress coordinate and the plane of the 2-D metrics.
REQUIRED_TICS = 2
#: TICs that must have a positive finite timescale: the slowest.
REQUIRED_TIMESCALES = 1

#: What to change, named in every message (the config keys); callers that know the features name the exact change
#: (:meth:`westbench.tica.pair_selection.PairFeatures.how_to_reduce`) before ``MORE_DATA``.
MORE_DATA = "or give more frames (longer or more runs), or lower tica.lag_frames"
FIX = f"use fewer features (tica.features: pairs, all_pairs_up_to, max_features), {MORE_DATA}"


def data_fix(fewer_features: str) -> str:
    """The fix a message names: ``fewer_features`` (the exact feature change,
    :meth:`westbench.tica.pair_selection.PairFeatures.how_to_reduce`) and more data; more data alone when fewer features
    cannot help ("").

    >>> data_fix("")
    'give more frames (longer or more runs), or lower tica.lag_frames'
    """
    return f"{fewer_features}, {MORE_DATA}" if fewer_features else MORE_DATA.removeprefix("or ")


class IllPosedError(WestbenchError):
    """The TICA fit cannot give TICs worth using: too little data for its features."""


@dataclass
class WellPosedness:
    """The outcome: ``why`` lists the caveats (empty when well posed); ``checks`` the numbers behind them."""

    caveats: list[str] = field(default_factory=list)
    checks: dict = field(default_factory=dict)

    @property
    def well_posed(self) -> bool:
        return not self.caveats

    @property
    def why(self) -> str:
        return "; ".join(self.caveats)

    def record(self) -> dict:
        """The keys model.json carries: ``well_posed``, ``why``, ``well_posedness``."""
        return {"well_posed": self.well_posed, "why": self.why, "well_posedness": dict(self.checks)}


def check_data(lagged_pairs: int, n_features: int, protein: str, fix: str = FIX) -> None:
    """Refuse, before fitting, a fit with fewer lagged frame pairs than features (a singular covariance)."""
    if lagged_pairs < n_features:
        raise IllPosedError(
            f"TICA of '{protein}': {lagged_pairs:,} lagged frame pairs for {n_features:,} features: the "
            f"covariances are singular and the TICs would follow noise. Fix: {fix}"
        )


def assess(
    eigenvalues: Sequence,
    dim_asked: int,
    lagged_pairs: int,
    n_features: int,
    min_pairs_per_feature: float,
    protein: str,
    fix: str = FIX,
) -> WellPosedness:
    """Errors and caveats of a fit whose kept TICs have ``eigenvalues`` (see the module docstring).

    Raises
    ------
    IllPosedError
        Fewer than 2 TICs, or TIC 0 or 1 without a positive finite timescale.
    """
    eigenvalues = np.asarray(eigenvalues)
    per_feature = lagged_pairs / max(n_features, 1)
    bad = [
        k
        for k, value in enumerate(eigenvalues)
        if abs(np.imag(value)) > 0 or not 0.0 < float(np.real(value)) < 1.0 or not np.isfinite(value)
    ]
    checks = {
        "lagged_pairs": int(lagged_pairs),
        "features": int(n_features),
        "pairs_per_feature": round(float(per_feature), 3),
        "min_pairs_per_feature": float(min_pairs_per_feature),
        "tics": int(len(eigenvalues)),
        "tics_asked": int(dim_asked),
        "tics_without_timescale": bad,
    }
    if len(eigenvalues) < REQUIRED_TICS:
        raise IllPosedError(
            f"TICA of '{protein}' has {len(eigenvalues)} estimable TIC(s) ({n_features:,} features, "
            f"{lagged_pairs:,} lagged pairs); every use needs {REQUIRED_TICS}. Fix: {fix}"
        )
    first = [k for k in bad if k < REQUIRED_TIMESCALES]
    if first:
        raise IllPosedError(
            f"TICA of '{protein}': "
            + ", ".join(f"TIC {k} has eigenvalue {_text(eigenvalues[k])}" for k in first)
            + f", outside (0, 1): no positive finite timescale ({n_features:,} features, {lagged_pairs:,} lagged "
            f"pairs, {per_feature:.1f} per feature). Fix: {fix}"
        )
    caveats = []
    if per_feature < min_pairs_per_feature:
        caveats.append(
            f"TICA fitted on {lagged_pairs:,} lagged frame pairs for {n_features:,} features ({per_feature:.1f} "
            f"per feature, below tica.min_pairs_per_feature {min_pairs_per_feature:g}): its TICs and timescales "
            "may follow noise"
        )
    for k in bad:
        caveats.append(f"TIC {k} has eigenvalue {_text(eigenvalues[k])}, outside (0, 1): no positive finite timescale")
    if len(eigenvalues) < dim_asked:
        caveats.append(f"only {len(eigenvalues)} of the {dim_asked} TICs asked for (tica.dim) are estimable")
    return WellPosedness(caveats, checks)


def _text(value) -> str:
    value = complex(value)
    return f"{value.real:.3g}" if value.imag == 0 else f"{value:.3g}"
