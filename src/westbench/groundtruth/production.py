"""One ground-truth run from one starting structure, in explicit solvent (the published ground truth) or, with
``groundtruth.solvent: implicit``, in the implicit solvent of the prepared implicit system (the calibration
study's all-atom null test: implicit-solvent WE against an implicit-solvent ground truth).

Solvate with the preparation settings, minimize (bounded), equilibrate NPT,
produce with checkpoints (:mod:`westbench.simulation.md`), then write the solute
trajectory, the frames file (C-alpha positions, forces, energies, times) and a
JSON summary with seeds, platform, versions, parameters and throughput.

Force mapping (``force_mapping``): ``ca`` saves the force on each C-alpha atom
itself; ``residue`` saves the sum of the forces on all atoms of the residue
(the net force on the residue). Both are the unconstrained forces OpenMM
reports; with HBonds constraints the constraint forces are not included.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Mapping

import mdtraj
import numpy as np
import openmm
from openmm import app

from westbench.config import default, section_defaults
from westbench.geometry.features import ca_atom_indices, residue_atom_groups
from westbench.io.frames import write_frames
from westbench.runtime.resume import reset_if_settings_changed
from westbench.simulation.md import MDRun, MDSettings, collect_frames, throughput_ns_per_day
from westbench.simulation.systems import build_system

log = logging.getLogger(__name__)


def md_settings(groundtruth: Mapping, preparation: Mapping) -> MDSettings:
    """MD step counts of a ground-truth run from the ``groundtruth`` and ``preparation`` config sections."""
    return MDSettings.from_config(
        preparation,
        equilibration_ps=groundtruth["equilibration_ps"],
        length_ps=groundtruth["length_ps"],
        save_interval_ps=groundtruth["save_interval_ps"],
        checkpoint_interval_ps=groundtruth["checkpoint_interval_ps"],
        minimize_max_iterations=groundtruth["minimize_max_iterations"],
    )


def _solvated(
    start_pdb: Path, workdir: Path, preparation: Mapping, seed: int, solvent: str = default("groundtruth.solvent")
):
    """The system of a start in ``solvent``, built once and reloaded on resume (so a checkpoint always fits it)."""
    system_xml, solvated_pdb, solvation = workdir / "system.xml", workdir / "solvated.pdb", workdir / "solvation.json"
    if not (system_xml.exists() and solvated_pdb.exists() and solvation.exists()):
        start = app.PDBFile(str(start_pdb))
        system, modeller, parameters = build_system(solvent, start.topology, start.positions, preparation, seed=seed)
        workdir.mkdir(parents=True, exist_ok=True)
        with open(solvated_pdb, "w") as handle:
            app.PDBFile.writeFile(modeller.topology, modeller.positions, handle, keepIds=True)
        system_xml.write_text(openmm.XmlSerializer.serialize(system))
        solvation.write_text(json.dumps(parameters))
    parameters = json.loads(solvation.read_text())
    # Always simulate the deserialized system, so a first run and a resumed one use identical parameters.
    pdb = app.PDBFile(str(solvated_pdb))
    return openmm.XmlSerializer.deserialize(system_xml.read_text()), pdb.topology, pdb.positions, parameters


def run_groundtruth(
    start_pdb: str | Path,
    workdir: str | Path,
    outputs: Mapping[str, str | Path],
    *,
    protein: str,
    start: str,
    groundtruth: Mapping,
    preparation: Mapping,
    platform: Mapping,
    seed: int,
    threads: int | None = None,
) -> dict:
    """Run (or resume) one ground-truth simulation and write its outputs.

    Parameters
    ----------
    start_pdb : path
        The starting structure (prepared protein, no solvent).
    workdir : path
        Checkpoints and frame chunks; kept across reruns.
    outputs : mapping
        Paths ``trajectory`` (.xtc or .dcd), ``topology`` (.pdb), ``frames`` (.h5), ``summary`` (.json).
    protein, start : str
    groundtruth, preparation, platform : mapping
        Config sections.
    seed : int
        The seed of this run (velocities, integrator, barostat, ion placement).

    Returns
    -------
    dict
        The summary written to ``outputs['summary']``.
    """
    workdir = Path(workdir)
    # The start structure and the solvation settings make the run too (not only the MD settings that
    # MDRun records): a new start (groundtruth_starts rerun) must not continue the old start's checkpoints.
    reset_if_settings_changed(
        workdir,
        {"start": str(start_pdb), "preparation": dict(preparation), "seed": seed},
        what="ground-truth run",
        record="westbench-start.json",
    )
    protein_topology = app.PDBFile(str(start_pdb)).topology
    n_residues = protein_topology.getNumResidues()
    solvent = {**section_defaults("groundtruth"), **groundtruth}["solvent"]
    system, topology, positions, parameters = _solvated(Path(start_pdb), workdir, preparation, seed, solvent)
    ca = ca_atom_indices(protein_topology)
    mapping = groundtruth["force_mapping"]
    groups = [[i] for i in ca] if mapping == "ca" else residue_atom_groups(topology, n_residues)
    settings = md_settings(groundtruth, preparation)
    run = MDRun(
        system, positions, workdir, settings, ca, groups, range(protein_topology.getNumAtoms()), platform, threads, seed
    )
    minimization, info, frames = _produce(run, workdir, settings)
    _write_solute(frames, protein_topology, system.usesPeriodicBoundaryConditions(), outputs)
    _write_frames(outputs["frames"], frames, (protein, start, seed), protein_topology, mapping, solvent)
    ns_per_day = throughput_ns_per_day(frames["steps"], settings.timestep_fs, frames["wall_seconds"])
    summary = {
        "protein": protein,
        "start": start,
        "seed": seed,
        "platform": info["platform"],
        "solvent": solvent,
        "openmm_version": openmm.__version__,
        "force_mapping": mapping,
        "atoms": system.getNumParticles(),
        "solute_atoms": protein_topology.getNumAtoms(),
        "residues": n_residues,
        "frames": len(frames["ca"]),
        "production_ns": frames["steps"] * settings.timestep_fs * 1e-6,
        "ns_per_day": ns_per_day,
        "production_wall_seconds": frames["wall_seconds"],
        "resumed_from_step": info["resumed_from_step"],
        "md": settings.__dict__,
        "groundtruth": dict(groundtruth),
        "preparation": dict(preparation),
        "solvation": parameters,
        **minimization,
    }
    log.info(
        "%s/%s: %d frames, %.3f ns at %.1f ns/day on %s",
        protein,
        start,
        summary["frames"],
        summary["production_ns"],
        ns_per_day,
        info["platform"],
    )
    return summary


def _produce(run: MDRun, workdir: Path, settings: MDSettings):
    """Minimize, equilibrate and produce (resuming), keep the final state: the minimization, run info and frames."""
    minimization = run.prepare()
    info = run.produce()
    final = run.final_state()
    (workdir / "final_state.xml").write_text(openmm.XmlSerializer.serialize(final))
    return minimization, info, collect_frames(workdir, settings)


def _write_solute(frames: Mapping, protein_topology, periodic: bool, outputs: Mapping) -> None:
    """The solute trajectory (its box unless ``periodic`` is false: implicit solvent) and its first frame as a PDB."""
    solute = mdtraj.Topology.from_openmm(protein_topology)
    box = frames["box"]
    a, b, c, alpha, beta, gamma = mdtraj.utils.box_vectors_to_lengths_and_angles(box[:, 0], box[:, 1], box[:, 2])
    trajectory = mdtraj.Trajectory(
        frames["solute"],
        solute,
        time=frames["time_ps"],
        unitcell_lengths=np.column_stack([a, b, c]) if periodic else None,
        unitcell_angles=np.column_stack([alpha, beta, gamma]) if periodic else None,
    )
    trajectory.save(str(outputs["trajectory"]))
    trajectory[0].save_pdb(str(outputs["topology"]))


def _write_frames(path, frames: Mapping, run: tuple, protein_topology, mapping: str, solvent: str) -> None:
    """The frames file: C-alpha positions, times, forces, energies and the ``run``'s (protein, start, seed) record."""
    protein, start, seed = run
    attrs = {
        "protein": protein,
        "source": "groundtruth",
        "start": start,
        "seed": seed,
        "residue_names": [r.name for r in protein_topology.residues()],
        "force_mapping": mapping,
        "force_units": "kJ/mol/nm",
        "openmm_version": openmm.__version__,
        "solvent": solvent,
    }
    write_frames(
        path,
        ca=frames["ca"],
        time_ps=frames["time_ps"],
        forces=frames["forces"],
        energy=frames["energy"],
        attrs=attrs,
    )
