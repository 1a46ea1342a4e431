"""Read a structure file and report the sequence of a chain/residue selection.

Examples
--------
>>> from westbench.structures.peptide import write_extended_peptide
>>> import tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "ala3.pdb")
>>> write_extended_peptide("AAA", path)
>>> selected_sequences(read_structure(path).topology, path=path)
{'A': 'AAA'}
"""

from __future__ import annotations

from pathlib import Path

import mdtraj
from pdbfixer import PDBFixer

from westbench.errors import StructureError


def read_structure(path: str | Path) -> PDBFixer:
    """Parse a PDB or PDBx/mmCIF file with PDBFixer.

    PDBFixer (through OpenMM's readers) keeps the first model and, for atoms
    with alternate locations, the first location listed.

    Raises
    ------
    StructureError
        If the file is missing, does not parse, or holds no atoms.
    """
    path = Path(path)
    if not path.is_file():
        raise StructureError(f"structure file {path} does not exist.")
    if path.suffix.lower() in (".pdb", ".ent") and not any(
        line.startswith(("ATOM  ", "HETATM")) for line in path.read_text(errors="replace").splitlines()
    ):
        raise StructureError(
            f"{path} holds no atoms (no ATOM/HETATM records were read). "
            "Check that it is a coordinate file in PDB or PDBx/mmCIF format."
        )
    try:
        fixer = PDBFixer(filename=str(path))
    except Exception as exc:  # the readers raise bare ValueError/IndexError/KeyError
        raise StructureError(
            f"{path} does not parse as a PDB or PDBx/mmCIF file ({type(exc).__name__}: {exc}). "
            "Replace it with a valid file, e.g. the entry downloaded again from the RCSB."
        ) from exc
    if fixer.topology.getNumAtoms() == 0:
        raise StructureError(
            f"{path} holds no atoms (no ATOM/HETATM records were read). "
            "Check that it is a coordinate file in PDB or PDBx/mmCIF format."
        )
    return fixer


def selected_sequences(
    topology,
    chains: tuple[str, ...] | None = None,
    residues: tuple[int, int] | None = None,
    path: str | Path = "structure",
) -> dict[str, str]:
    """One-letter sequences of the protein residues in a selection, per chain.

    Parameters
    ----------
    topology : openmm.app.Topology
    chains : tuple of str, optional
        Chain ids to report; None reports every chain holding protein.
    residues : (int, int), optional
        Inclusive residue-number range.
    path : path
        The file the topology came from, named in errors.

    Returns
    -------
    dict
        Chain id -> sequence, in the order of ``chains`` (or of the file).

    Raises
    ------
    StructureError
        If a requested chain is absent or the selection holds no protein residue.
    """
    top = mdtraj.Topology.from_openmm(topology)
    present = [c.chain_id for c in top.chains]
    if chains is not None:
        missing = [c for c in chains if c not in present]
        if missing:
            raise StructureError(
                f"{path} has no chain {', '.join(missing)} (chains present: "
                f"{', '.join(repr(c) for c in present)}); fix `chains` in the protein's config entry."
            )
    result: dict[str, str] = {}
    for chain in top.chains:
        if chains is not None and chain.chain_id not in chains:
            continue
        letters = [
            res.code or "X"
            for res in chain.residues
            if res.is_protein and (residues is None or residues[0] <= res.resSeq <= residues[1])
        ]
        if letters:
            result[chain.chain_id] = "".join(letters)
    if not result:
        raise StructureError(
            f"{path} has no protein residues in the selection (chains={list(chains) if chains else 'all'}, "
            f"residues={'-'.join(map(str, residues)) if residues else 'all'}). Point the protein at a "
            "structure that contains it, or fix `chains`/`residues` in its config entry."
        )
    if chains is not None:
        result = {c: result[c] for c in chains if c in result}
    return result
