"""Build a peptide offline from its sequence: an ideal extended backbone.

Only N, CA, C and O are placed; PDBFixer (the preparation step) then adds side
chains, terminal atoms and hydrogens from its residue templates, which is the
part a hand-written builder would get wrong.

Examples
--------
>>> import tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "gyd.pdb")
>>> write_extended_peptide("GYD", path)
>>> sum(1 for line in open(path) if line.startswith("ATOM"))
12
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from openmm import app, unit

from westbench.errors import StructureError

THREE_LETTER = {
    "A": "ALA",
    "C": "CYS",
    "D": "ASP",
    "E": "GLU",
    "F": "PHE",
    "G": "GLY",
    "H": "HIS",
    "I": "ILE",
    "K": "LYS",
    "L": "LEU",
    "M": "MET",
    "N": "ASN",
    "P": "PRO",
    "Q": "GLN",
    "R": "ARG",
    "S": "SER",
    "T": "THR",
    "V": "VAL",
    "W": "TRP",
    "Y": "TYR",
}

# Engh & Huber backbone geometry, Angstrom and degrees.
BOND = {"N-CA": 1.458, "CA-C": 1.525, "C-N": 1.329, "C-O": 1.231}
ANGLE = {"N-CA-C": 111.2, "CA-C-N": 116.2, "C-N-CA": 121.7, "CA-C-O": 120.5}


def _place(a: np.ndarray, b: np.ndarray, c: np.ndarray, bond: float, angle: float, torsion: float) -> np.ndarray:
    """Position of atom d given a, b, c and the c-d bond, b-c-d angle and a-b-c-d torsion (NeRF)."""
    angle, torsion = np.radians(angle), np.radians(torsion)
    bc = (c - b) / np.linalg.norm(c - b)
    normal = np.cross(b - a, bc)
    normal /= np.linalg.norm(normal)
    local = np.array(
        [-bond * np.cos(angle), bond * np.sin(angle) * np.cos(torsion), bond * np.sin(angle) * np.sin(torsion)]
    )
    frame = np.column_stack([bc, np.cross(normal, bc), normal])
    return c + frame @ local


def extended_backbone(sequence: str, phi: float = -180.0, psi: float = 180.0, omega: float = 180.0) -> np.ndarray:
    """Backbone coordinates (n_residues, 4, 3) in Angstrom, atoms N, CA, C, O."""
    n = len(sequence)
    coords = np.zeros((n, 4, 3))
    coords[0, 0] = [0.0, 0.0, 0.0]
    coords[0, 1] = [BOND["N-CA"], 0.0, 0.0]
    angle = np.radians(180.0 - ANGLE["N-CA-C"])
    coords[0, 2] = coords[0, 1] + BOND["CA-C"] * np.array([np.cos(angle), np.sin(angle), 0.0])
    for i in range(n):
        n_at, ca, c = coords[i, 0], coords[i, 1], coords[i, 2]
        if i > 0:
            prev_n, prev_ca, prev_c = coords[i - 1, 0], coords[i - 1, 1], coords[i - 1, 2]
            n_at = _place(prev_n, prev_ca, prev_c, BOND["C-N"], ANGLE["CA-C-N"], psi)
            ca = _place(prev_ca, prev_c, n_at, BOND["N-CA"], ANGLE["C-N-CA"], omega)
            c = _place(prev_c, n_at, ca, BOND["CA-C"], ANGLE["N-CA-C"], phi)
            coords[i, :3] = n_at, ca, c
        # O lies trans to the next residue's N: torsion N-CA-C-O = psi + 180.
        coords[i, 3] = _place(n_at, ca, c, BOND["C-O"], ANGLE["CA-C-O"], psi + 180.0)
    return coords


def write_extended_peptide(sequence: str, path: str | Path, chain_id: str = "A") -> None:
    """Write the extended backbone of ``sequence`` as a PDB file (chain ``chain_id``, residues 1..n)."""
    unknown = sorted(set(sequence) - set(THREE_LETTER))
    if not sequence or unknown:
        raise StructureError(
            f"cannot build a peptide from sequence '{sequence}': unknown one-letter codes {unknown}; "
            "use the 20 standard amino acids."
        )
    coords = extended_backbone(sequence)
    topology = app.Topology()
    chain = topology.addChain(chain_id)
    positions = []
    for index, letter in enumerate(sequence):
        residue = topology.addResidue(THREE_LETTER[letter], chain, id=str(index + 1))
        for name, element, xyz in zip(("N", "CA", "C", "O"), ("N", "C", "C", "O"), coords[index]):
            topology.addAtom(name, app.Element.getBySymbol(element), residue)
            positions.append(xyz)
    with open(path, "w") as handle:
        app.PDBFile.writeFile(topology, unit.Quantity(np.array(positions), unit.angstrom), handle, keepIds=True)
