"""The import step of an external engine: its samples to ``frames.h5`` and ``cost.csv`` (:func:`import_samples`).

The layouts and the checks are described in :mod:`westbench.external`.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Mapping

import mdtraj
import numpy as np

from westbench.config import default
from westbench.external.ca_reader import CAReader, ExternalSamplesError
from westbench.external.plain_trajectories import read_trajectories
from westbench.external.westpa_run import read_westpa
from westbench.geometry.features import ca_atom_indices
from westbench.io.costs import cost_table, coverage_by_iteration
from westbench.io.frames import DROPPED_ATTR, write_frames
from westbench.io.trajectories import ca_sequence

log = logging.getLogger(__name__)


def import_samples(
    spec: Mapping,
    prepared_pdb: str | Path,
    frames_path: str | Path,
    cost_path: str | Path,
    *,
    engine: str,
    protein: str,
    tica=None,
    coverage_grid=None,
    on_nonfinite: str = default("on_nonfinite"),
) -> dict:
    """Write an external engine's ``frames.h5`` and ``cost.csv`` (see the module docstring).

    Parameters
    ----------
    spec : mapping
        The engine's ``external.<engine>`` config entry.
    prepared_pdb : path
        The protein's prepared structure (its C-alpha sequence is checked).
    tica : TicaModel, optional
        Projects every frame onto its TICs.
    coverage_grid : CoverageGrid, optional
        With ``tica``: adds the cumulative coverage after each iteration (file) to ``cost.csv``
        (:mod:`westbench.io.costs`: frames of weight above zero, as the metric suite's coverage counts).
    on_nonfinite : {"error", "drop"}
        Frames with non-finite coordinates: refused (default) or left out and counted.
    """
    prepared = mdtraj.load_topology(str(prepared_pdb))
    expected = ca_sequence(prepared, ca_atom_indices(prepared))
    topology = spec.get("topology")
    reader = CAReader(topology.format(protein=protein) if topology else None, expected, engine, spec.get("residues"))
    if spec["kind"] == "westpa":
        data, costs = read_westpa(spec, reader, protein, on_nonfinite)
    else:
        data, costs = read_trajectories(spec, reader, protein, on_nonfinite)
    dropped = data.pop(DROPPED_ATTR)
    if not len(data["ca"]):
        raise ExternalSamplesError(
            f"external engine '{engine}': no frame is left ({dropped} had non-finite "
            f"coordinates): give samples with finite C-alpha positions"
        )
    if dropped:
        log.warning(
            "external engine %s: %d frames with non-finite coordinates left out (on_nonfinite: drop)", engine, dropped
        )
    extra = {}
    if tica is not None:
        extra["tics"] = tica.project(data["ca"]).astype(np.float32)
    write_frames(
        frames_path,
        ca=data["ca"],
        weight=data["weight"],
        traj=data["traj"],
        time_ps=data["time_ps"],
        iteration=data["iteration"],
        attrs={"protein": protein, "source": engine, "kind": f"external/{spec['kind']}", DROPPED_ATTR: dropped},
        **{k: v for k, v in data.items() if k == "seg_id"},
        **extra,
    )
    coverage = None
    if coverage_grid is not None and "tics" in extra:
        coverage = coverage_by_iteration(coverage_grid, {**data, **extra}, [row["iteration"] for row in costs])
    cost = cost_table(costs, coverage)
    cost.to_csv(cost_path, index=False)
    log.info("external engine %s (%s): %d frames over %d iterations", engine, spec["kind"], len(data["ca"]), len(cost))
    return {"frames": int(len(data["ca"])), "iterations": len(cost), DROPPED_ATTR: dropped}
