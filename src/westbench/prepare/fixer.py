"""Repair a structure with PDBFixer and keep only the selected protein.

Examples
--------
>>> import tempfile, os
>>> from westbench.config import ProteinSpec
>>> from westbench.structures.peptide import write_extended_peptide
>>> path = os.path.join(tempfile.mkdtemp(), "in.pdb")
>>> write_extended_peptide("GYDPETGTWG", path)
>>> spec = ProteinSpec("chignolin", "Chignolin", None, "GYDPETGTWG", None, None, "sequence", None)
>>> topology, positions, report = fix_structure(path, spec)
>>> topology.getNumAtoms()
138
"""

from __future__ import annotations

import logging
import random
from pathlib import Path
from typing import Mapping

import numpy as np
from openmm import app
from pdbfixer import pdbfixer as pdbfixer_module

from westbench.config import ProteinSpec, section_defaults
from westbench.errors import SequenceMismatchError, StructureError
from westbench.structures.inspect import read_structure, selected_sequences

log = logging.getLogger(__name__)


def _file_traits(path: Path) -> dict:
    """Counts that explain what the reader chose: models present, atoms with alternate locations."""
    models, altloc_atoms = 0, 0
    with open(path, errors="replace") as handle:
        for line in handle:
            if line.startswith("MODEL"):
                models += 1
            elif line.startswith(("ATOM", "HETATM")) and len(line) > 16 and line[16] not in " A":
                altloc_atoms += 1
    return {"models_in_file": max(models, 1), "alternate_location_records_dropped": altloc_atoms}


# Standard amino acids and the nonstandard ones PDBFixer knows how to replace (MSE, HYP, ...).
_PROTEIN = set(pdbfixer_module.proteinResidues) | set(pdbfixer_module.substitutions)


def _deterministic_platform():
    """The CPU platform on one thread: PDBFixer's minimizations of added atoms then repeat bit for bit."""
    import openmm

    platform = openmm.Platform.getPlatformByName("CPU")
    platform.setPropertyDefaultValue("Threads", "1")
    return platform


def fix_structure(
    path: str | Path, spec: ProteinSpec, settings: Mapping | None = None, seed: int = 0
) -> tuple[app.Topology, list, dict]:
    """Select the protein in ``path`` and complete it with PDBFixer.

    Steps: first model and first alternate location (OpenMM's reader); keep the
    configured chains (or every chain holding protein) and residue range; drop
    waters, ions and other heterogens; rebuild missing interior residues (and
    terminal ones if ``add_terminal_residues``); replace nonstandard residues;
    add missing heavy atoms; add hydrogens at ``ph``.

    Parameters
    ----------
    path : path
        Input PDB (or PDBx/mmCIF).
    spec : ProteinSpec
    settings : mapping, optional
        The ``preparation`` config section (``ph``, ``add_terminal_residues``, ``strip_hydrogens``).
    seed : int
        Seeds PDBFixer's placement of missing atoms.

    Returns
    -------
    topology, positions, report
        The prepared protein and a dict of what was changed.

    Raises
    ------
    StructureError, SequenceMismatchError
    """
    settings = {**section_defaults("preparation"), **(settings or {})}
    path = Path(path)
    random.seed(seed)
    np.random.seed(seed % 2**32)
    fixer = read_structure(path)
    fixer.platform = _deterministic_platform()
    report = {"protein": spec.id, "input": str(path), **_file_traits(path)}

    keep = _select_chains(fixer, spec, path, report)
    if spec.residues is not None:
        _remove_residues_outside(fixer, spec.residues, report)
    _remove_heterogens(fixer, spec, path, keep, report)
    _complete_residues(fixer, settings["add_terminal_residues"], report)
    if settings["strip_hydrogens"]:
        _strip_hydrogens(fixer, report)

    fixer.findMissingAtoms()
    report["added_heavy_atoms"] = sum(len(v) for v in fixer.missingAtoms.values()) + sum(
        len(v) for v in fixer.missingTerminals.values()
    )
    fixer.addMissingAtoms(seed=seed)
    before = fixer.topology.getNumAtoms()
    fixer.addMissingHydrogens(pH=float(settings["ph"]))
    report["added_hydrogens"] = fixer.topology.getNumAtoms() - before

    observed = _checked_sequences(fixer, spec, path)
    report["sequence"] = "/".join(observed.values())
    report["atoms"] = fixer.topology.getNumAtoms()
    report["residues"] = fixer.topology.getNumResidues()
    log.info("protein %s: prepared %d atoms in %d residues (%s)", spec.id, report["atoms"], report["residues"], report)
    return fixer.topology, fixer.positions, report


def _select_chains(fixer, spec: ProteinSpec, path: Path, report: dict) -> list[str]:
    """Keep the configured chains (or every chain holding protein); the ids kept."""
    chains = list(fixer.topology.chains())
    if spec.chains is None:
        keep = [c.id for c in chains if any(r.name in _PROTEIN for r in c.residues())]
    else:
        keep = list(spec.chains)
        absent = [c for c in keep if c not in {ch.id for ch in chains}]
        if absent:
            raise StructureError(
                f"protein '{spec.id}': {path} has no chain {', '.join(absent)} (present: "
                f"{', '.join(repr(c.id) for c in chains)}); fix `chains` in its config entry."
            )
    removed_chains = [c.id for c in chains if c.id not in keep]
    fixer.removeChains(chainIds=removed_chains)
    report["removed_chains"] = removed_chains
    return keep


def _delete(fixer, items: list) -> None:
    """Delete residues or atoms from the fixer's structure (through an OpenMM Modeller)."""
    modeller = app.Modeller(fixer.topology, fixer.positions)
    modeller.delete(items)
    fixer.topology, fixer.positions = modeller.topology, modeller.positions


def _remove_residues_outside(fixer, residues: tuple[int, int], report: dict) -> None:
    """Delete the protein residues numbered outside the configured range ``residues``."""
    low, high = residues
    outside = [r for r in fixer.topology.residues() if r.name in _PROTEIN and not low <= int(r.id) <= high]
    if outside:
        _delete(fixer, outside)
    report["removed_residues_outside_range"] = len(outside)


def _remove_heterogens(fixer, spec: ProteinSpec, path: Path, keep: list[str], report: dict) -> None:
    """Drop waters, ions and other heterogens (counted by name); refuse a selection with no protein left."""
    removed = fixer.removeHeterogens(keepWater=False)
    report["removed_heterogens"] = {}
    for residue in removed:
        report["removed_heterogens"][residue.name] = report["removed_heterogens"].get(residue.name, 0) + 1
    if not any(r.name in _PROTEIN for r in fixer.topology.residues()):
        raise StructureError(
            f"protein '{spec.id}': {path} has no protein residues in chains {keep or 'any'}. "
            "Point the entry at a structure that contains the protein, or fix `chains`/`residues`."
        )


def _complete_residues(fixer, add_terminal_residues: bool, report: dict) -> None:
    """Find missing residues (terminal ones only if asked) and replace nonstandard residues."""
    fixer.findMissingResidues()
    if not add_terminal_residues:
        chain_lengths = [len(list(c.residues())) for c in fixer.topology.chains()]
        for key in list(fixer.missingResidues):
            if key[1] == 0 or key[1] == chain_lengths[key[0]]:
                del fixer.missingResidues[key]
    report["added_residues"] = sum(len(v) for v in fixer.missingResidues.values())
    fixer.findNonstandardResidues()
    report["replaced_nonstandard"] = [f"{r.name}{r.id}->{name}" for r, name in fixer.nonstandardResidues]
    fixer.replaceNonstandardResidues()


def _strip_hydrogens(fixer, report: dict) -> None:
    """Delete the input's hydrogens (they are added back at the configured pH)."""
    hydrogens = [a for a in fixer.topology.atoms() if a.element is not None and a.element.symbol == "H"]
    if hydrogens:
        _delete(fixer, hydrogens)
    report["stripped_hydrogens"] = len(hydrogens)


def _checked_sequences(fixer, spec: ProteinSpec, path: Path) -> dict:
    """The prepared chains' sequences; a SequenceMismatchError when they are not the configured ones."""
    observed = selected_sequences(fixer.topology, path=path)
    if list(observed.values()) != list(spec.chain_sequences):
        raise SequenceMismatchError(
            f"protein '{spec.id}': after preparation {path} reads {'/'.join(observed.values())}, the config "
            f"expects {spec.sequence}. Fix `sequence`, `chains` or `residues` in the config entry of "
            f"'{spec.id}' (missing residues are rebuilt only where the file's SEQRES lists them)."
        )
    return observed
