"""The checks of the study's trained engines (``cg_<preset>``), which have no exact prediction.

Both presets must have learned (best epoch after 0, validation loss below its start), the fully-trained must reach
the lower loss and come near the force-matching noise floor (known: 0; :data:`NEAR_FLOOR_SHARE`), and it must score
closer to the ground truth than the under-trained on most distributions. :func:`training_checks` reads them from
each preset's training summary and the study's table (:mod:`westbench.calibration.table_rows`) into
``calibration.json`` (beside the other checks, :func:`westbench.calibration.checks.checks`).

Examples
--------
>>> table = pd.DataFrame({"engine": ["cg_fulltrained", "cg_undertrained"] * 2, "metric": "w1",
...                       "distribution": ["tic0", "tic0", "rg", "rg"], "value": [0.1, 0.3, 0.5, 0.4]})
>>> training = {"cg_undertrained": {"learned": True, "initial_validation_loss": 900.0, "best_validation_loss": 800.0},
...             "cg_fulltrained": {"learned": True, "initial_validation_loss": 900.0, "best_validation_loss": 300.0,
...                                "force_noise_floor": 0.0}}
>>> result = training_checks(table, training)
>>> result["fulltrained_lower_loss"], result["fulltrained_closer"], result["fulltrained_near_floor"]["near"]
(True, {'closer_on': 1, 'of': 2, 'most': False}, True)
"""

from __future__ import annotations

from typing import Mapping

import numpy as np
import pandas as pd

__all__ = ["NEAR_FLOOR_SHARE", "floor_distance", "training_checks", "training_comparison"]

#: "Near the force-matching noise floor": the fully-trained model's validation loss has closed at least this
#: share of the way from its start (the prior with the untrained network) to the floor. The study's floor is
#: known, 0 (:data:`westbench.calibration.study.REFERENCE_FORCE_NOISE_FLOOR`); what is left is the network's
#: error, which a network this small keeps (the default's plateaus near a sixth of its start after 40 epochs).
NEAR_FLOOR_SHARE = 0.5


def training_checks(table: pd.DataFrame, training: Mapping[str, Mapping]) -> dict:
    """The trained engines' checks: ``training`` (each preset's summary and :func:`floor_distance`),
    ``fulltrained_lower_loss`` and ``fulltrained_closer`` (:func:`training_comparison`) where both presets ran,
    ``fulltrained_near_floor`` where the fully-trained did; none without a training summary."""
    result: dict = {}
    if training:
        result["training"] = {
            engine: {
                "learned": bool(r.get("learned")),
                "best_epoch": r.get("best_epoch"),
                "relative_drop": r.get("relative_drop"),
                "initial_validation_loss": r.get("initial_validation_loss"),
                "best_validation_loss": r.get("best_validation_loss"),
                "force_noise_floor": r.get("force_noise_floor"),
                "force_noise_floor_source": r.get("force_noise_floor_source"),
                **floor_distance(r),
            }
            for engine, r in training.items()
        }
        presets = {e.removeprefix("cg_"): e for e in training}
        if {"undertrained", "fulltrained"} <= set(presets):
            under, full = training[presets["undertrained"]], training[presets["fulltrained"]]
            result["fulltrained_lower_loss"] = bool(
                full.get("best_validation_loss", np.inf) < under.get("best_validation_loss", -np.inf)
            )
            result["fulltrained_closer"] = training_comparison(table, presets["fulltrained"], presets["undertrained"])
        if "fulltrained" in presets:
            gap = result["training"][presets["fulltrained"]].get("gap_left")
            result["fulltrained_near_floor"] = {
                "gap_left": gap,
                "bound": NEAR_FLOOR_SHARE,
                "near": bool(gap is not None and gap <= NEAR_FLOOR_SHARE),
            }
    return result


def floor_distance(summary: Mapping) -> dict:
    """How far a training run's best validation loss is from the force-matching noise floor.

    ``gap_left``: the share of the way from the start's loss to the floor still to go (0 = at the floor, 1 = no
    better than the start); ``relative_force_error``: the RMS error of the forces above the floor, as a share of
    the RMS force (``force_mean_square``, the loss of a model that predicts no force). None where a record
    lacks the numbers.

    Examples
    --------
    >>> floor_distance({"initial_validation_loss": 1000.0, "best_validation_loss": 300.0, "force_noise_floor": 0.0,
    ...                 "force_mean_square": 100000.0})
    {'gap_left': 0.3, 'relative_force_error': 0.05477}
    """
    try:
        start, best, floor = (
            float(summary[k]) for k in ("initial_validation_loss", "best_validation_loss", "force_noise_floor")
        )
    except (KeyError, TypeError, ValueError):
        return {"gap_left": None, "relative_force_error": None}
    gap = (best - floor) / (start - floor) if start > floor else None
    scale = summary.get("force_mean_square")
    error = np.sqrt(max(best - floor, 0.0) / float(scale)) if scale else None
    return {
        "gap_left": None if gap is None else round(float(gap), 5),
        "relative_force_error": None if error is None else round(float(error), 5),
    }


def training_comparison(table: pd.DataFrame, better: str, worse: str) -> dict:
    """On how many distributions ``better`` has the smaller W1 than ``worse`` (and whether that is most)."""
    w1 = table[table["metric"] == "w1"]
    a = w1[w1["engine"] == better].set_index("distribution")["value"].astype(float)
    b = w1[w1["engine"] == worse].set_index("distribution")["value"].astype(float)
    closer = int((a < b).sum())
    return {"closer_on": closer, "of": int(len(a)), "most": bool(closer > len(a) / 2)}
