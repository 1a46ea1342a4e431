"""Native C-alpha structures for structure-based reference models: built in, or read from a PDB file.

The built-in entry is chignolin's first NMR model (PDB 1UAO, Honda et al., Structure 12, 1507, 2004;
the PDB's data are CC0), its ten C-alpha positions only: the embedded default builds chignolin from its
sequence (an extended chain, no network), and a Go model needs the folded one. Any other protein
gives its native structure as a PDB file (``calibration.native``: the C-alpha atoms of its first model).

Examples
--------
>>> x = native_ca("1UAO")
>>> x.shape, round(float(np.linalg.norm(x[1] - x[0])), 3)
((10, 3), 0.382)
>>> native_residues("1UAO")[:3]
['GLY', 'TYR', 'ASP']
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from westbench.errors import WestbenchError

#: PDB 1UAO model 1, C-alpha atoms (Angstrom), residues 1-10 (GYDPETGTWG).
BUILTIN = {
    "1UAO": {
        "residues": ["GLY", "TYR", "ASP", "PRO", "GLU", "THR", "GLY", "THR", "TRP", "GLY"],
        "ca_angstrom": [
            [-6.878, -0.708, 2.896],
            [-4.189, -0.302, 0.213],
            [-1.287, 1.320, 2.084],
            [0.579, 3.407, -0.513],
            [3.531, 3.694, 1.893],
            [4.684, 0.239, 0.748],
            [2.498, -0.018, -2.375],
            [0.411, -3.025, -1.274],
            [-2.598, -4.011, 0.868],
            [-1.229, -3.774, 4.431],
        ],
    },
}


def _entry(source: str) -> dict:
    key = str(source).removeprefix("builtin:").upper()
    if key in BUILTIN:
        return BUILTIN[key]
    path = Path(source)
    if not path.is_file():
        raise WestbenchError(
            f"native structure {source!r}: neither a built-in entry ({', '.join(BUILTIN)}) nor a "
            "PDB file. Fix: set calibration.native to a PDB file of the folded protein."
        )
    import mdtraj

    traj = mdtraj.load_pdb(str(path), frame=0)
    ca = traj.topology.select("name CA")
    if len(ca) < 4:
        raise WestbenchError(f"{path}: {len(ca)} C-alpha atoms; a Go model needs at least 4")
    return {"residues": [traj.topology.atom(i).residue.name for i in ca], "ca_angstrom": 10.0 * traj.xyz[0, ca]}


def native_ca(source: str) -> np.ndarray:
    """Native C-alpha positions (n, 3) in nm of a built-in entry (``"1UAO"``) or a PDB file."""
    return np.asarray(_entry(source)["ca_angstrom"], dtype=np.float64) / 10.0


def native_residues(source: str) -> list[str]:
    """Residue names of the native C-alpha atoms, in order."""
    return list(_entry(source)["residues"])


def write_ca_pdb(positions_nm: np.ndarray, residues, path: str | Path) -> None:
    """A C-alpha-only PDB file (one chain): the beads' topology for training and the WE basis state."""
    import mdtraj

    topology = mdtraj.Topology()
    chain = topology.add_chain()
    for name in residues:
        residue = topology.add_residue(name, chain)
        topology.add_atom("CA", mdtraj.element.carbon, residue)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    mdtraj.Trajectory(np.asarray(positions_nm, dtype=np.float32)[None], topology).save_pdb(str(path))


def write_native_pdb(source: str, path: str | Path) -> None:
    """The native structure's C-alpha atoms (built-in entry or PDB file) as a C-alpha-only PDB file."""
    write_ca_pdb(native_ca(source), native_residues(source), path)
