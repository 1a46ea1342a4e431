"""Write west.cfg for a westbench WE run: MAB bins declared in YAML so WESTPA uses its MAB manager and driver.

Examples
--------
>>> import tempfile, os, yaml
>>> path = os.path.join(tempfile.mkdtemp(), "west.cfg")
>>> _ = write_west_cfg(path, engine={"class": "m:C"}, pcoord={"type": "position", "ndim": 2}, seed=1,
...                max_iterations=5)
>>> cfg = yaml.load(open(path), Loader=yaml.Loader)
>>> cfg["west"]["system"]["system_options"]["bins"]["mappers"][0]["nbins"]
[7, 7]
"""

from __future__ import annotations

from pathlib import Path
from typing import Mapping

import numpy as np
import yaml

from westbench.config import section_defaults

PROPAGATOR = "westbench.we.propagator.WestbenchPropagator"
PLUGIN = "westbench.we.plugin.WestbenchPlugin"
_WE = section_defaults("we")  # the schema owns the defaults


def west_config(
    *,
    engine: Mapping,
    pcoord: Mapping,
    seed: int,
    max_iterations: int,
    bins_per_dim: int = _WE["bins_per_tic"],
    walkers_per_bin: int = _WE["walkers_per_bin"],
    steps_per_segment: int = _WE["steps_per_segment"],
    save_every: int = _WE["save_every"],
    max_wallclock_s: float | None = None,
    coverage: Mapping | None = None,
    keep_restarts: int = _WE["keep_restarts"],
    block_size: int = 1,
) -> dict:
    """The west.cfg mapping (published defaults: 7 bins per TIC, 3 walkers per bin, 1000 steps, frames every 100).

    ``block_size``: segments per propagator call (WESTPA's ``west.propagation.block_size``); a batched
    engine (the CG engine) takes a whole iteration in one call with a large value.
    """
    ndim = int(pcoord.get("ndim", 2))
    propagation = {
        "max_total_iterations": int(max_iterations),
        "propagator": PROPAGATOR,
        "gen_istates": True,
        "block_size": int(block_size),
    }
    if max_wallclock_s:
        propagation["max_run_wallclock"] = int(max_wallclock_s)
    return {
        "west": {
            "system": {
                "system_options": {
                    "pcoord_ndim": ndim,
                    "pcoord_len": steps_per_segment // save_every + 1,
                    "pcoord_dtype": np.float32,
                    "bins": {
                        "type": "RecursiveBinMapper",
                        "base": {"type": "RectilinearBinMapper", "boundaries": [[-float("inf"), float("inf")]] * ndim},
                        "mappers": [{"type": "MABBinMapper", "nbins": [bins_per_dim] * ndim, "at": [0.0] * ndim}],
                    },
                    "bin_target_counts": int(walkers_per_bin),
                }
            },
            "propagation": propagation,
            "data": {"west_data_file": "west.h5", "aux_compression_threshold": 16384},
            "analysis": analysis_section(ndim),
            "plugins": [{"plugin": PLUGIN}],
            "westbench": {
                "engine": dict(engine),
                "pcoord": dict(pcoord),
                "seed": int(seed),
                "steps_per_segment": int(steps_per_segment),
                "save_every": int(save_every),
                "segments": "$WEST_SIM_ROOT/segments",
                "keep_restarts": int(keep_restarts),
                **({"coverage": dict(coverage)} if coverage else {}),
            },
        }
    }


def analysis_section(ndim: int) -> dict:
    """``west.analysis`` so that WESTPA's ``w_ipa`` (w_assign/w_direct) runs on every run.

    One scheme, ``tic0_halves``: TIC 0 split at 0 into two bins (TICs are centred), with the
    states "tic0_low" and "tic0_high" at TIC 0 = -1 and +1 (other pcoord dimensions 0).
    """
    origin = [0.0] * (ndim - 1)
    boundaries = [[-float("inf"), 0.0, float("inf")]] + [[-float("inf"), float("inf")]] * (ndim - 1)
    return {
        "directory": "ANALYSIS",
        "postanalysis": False,
        "kinetics": {"step_iter": 1, "evolution": "cumulative", "extra": ["disable-correl"]},
        "analysis_schemes": {
            "tic0_halves": {
                "enabled": True,
                "bins": [{"type": "RectilinearBinMapper", "boundaries": boundaries}],
                "states": [
                    {"label": "tic0_low", "coords": [[-1.0, *origin]]},
                    {"label": "tic0_high", "coords": [[1.0, *origin]]},
                ],
            }
        },
    }


def write_west_cfg(path: str | Path, **options) -> dict:
    """Write west.cfg (YAML; WESTPA's loader reads the numpy dtype tag)."""
    config = west_config(**options)
    Path(path).write_text(yaml.dump(config, default_flow_style=None, sort_keys=False))
    return config
