"""C-alpha positions of external samples: the sequence checked at the door (with a residue selection), files read
with one topology or their own, non-finite frames refused naming file, frame and atom, or left out."""

import mdtraj
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from westbench.external.ca_reader import CAReader, ExternalSamplesError, keep_frames
from westbench.io.frames import DROPPED_ATTR

PEPTIDE = ["GLY", "TYR", "ASP", "PRO", "GLU"]


def topology(names, with_n=True):
    """Residues numbered from 1, each with N and CA (an N-only reader would read none)."""
    top = mdtraj.Topology()
    chain = top.add_chain()
    for number, name in enumerate(names, start=1):
        residue = top.add_residue(name, chain, resSeq=number)
        if with_n:
            top.add_atom("N", mdtraj.element.nitrogen, residue)
        top.add_atom("CA", mdtraj.element.carbon, residue)
    return top


def save(path, top, n=4, seed=0):
    rng = np.random.default_rng(seed)
    xyz = np.cumsum(rng.normal(0.15, 0.03, size=(n, top.n_atoms, 3)), axis=1).astype(np.float32)
    trajectory = mdtraj.Trajectory(xyz, top)
    getattr(trajectory, f"save_{path.suffix[1:]}")(str(path))
    return xyz


def test_a_file_with_its_own_topology_gives_its_c_alphas(tmp_path):
    top = topology(PEPTIDE)
    xyz = save(tmp_path / "a.pdb", top)
    ca = CAReader(None, "GYDPE", "ext").read(tmp_path / "a.pdb")
    assert ca.shape == (4, 5, 3)
    assert np.allclose(ca, xyz[:, 1::2], atol=1e-3)  # pdb: 3 decimals in Å


def test_a_topology_and_its_trajectory_read_with_a_residue_selection(tmp_path):
    top = topology(["ALA", *PEPTIDE, "ALA"])
    save(tmp_path / "top.pdb", top, n=1)
    xyz = save(tmp_path / "t.dcd", top, n=6, seed=1)
    with pytest.raises(ExternalSamplesError, match=r"C-alpha sequence AGYDPEA \(7 C-alpha atoms\).*GYDPE \(5\)"):
        CAReader(tmp_path / "top.pdb", "GYDPE", "ext")
    reader = CAReader(tmp_path / "top.pdb", "GYDPE", "ext", residues="2-6")
    assert np.allclose(reader.read(tmp_path / "t.dcd"), xyz[:, 3:13:2], atol=1e-4)


def test_unreadable_files_are_named(tmp_path):
    (tmp_path / "bad.pdb").write_text("not a pdb\n")
    with pytest.raises(ExternalSamplesError, match=r"external engine 'ext': topology .*nothing.pdb cannot be read"):
        CAReader(tmp_path / "nothing.pdb", "GYDPE", "ext")
    top = topology(PEPTIDE)
    save(tmp_path / "top.pdb", top, n=1)
    reader = CAReader(tmp_path / "top.pdb", "GYDPE", "ext")
    with pytest.raises(ExternalSamplesError, match=r"missing.dcd does not exist"):
        reader.read(tmp_path / "missing.dcd")
    (tmp_path / "broken.dcd").write_bytes(b"\0" * 64)
    with pytest.raises(ExternalSamplesError, match=r"broken.dcd cannot be read with topology .*external.ext.topology"):
        reader.read(tmp_path / "broken.dcd")


def test_non_finite_frames_are_refused_naming_frame_and_atom_or_left_out():
    reader = CAReader(None, "GYDPE", "ext")
    ca = np.zeros((4, 5, 3))
    ca[2, 3, 1] = np.nan
    with pytest.raises(ExternalSamplesError, match=r"f.xtc.*frame 2.*C-alpha 3 \(residue P4\)"):
        reader.valid(ca, "f.xtc", "error")
    assert reader.valid(ca, "f.xtc", "drop").tolist() == [True, True, False, True]
    assert reader.atom_of(0) == "C-alpha 0 (residue G1)" and reader.atom_of(9) == "C-alpha 9 (residue ?10)"


@given(st.lists(st.tuples(st.integers(0, 3), st.booleans()), min_size=1, max_size=40))
def test_keep_frames_leaves_out_the_frames_and_splits_their_pieces(frames):
    traj = np.sort(np.array([t for t, _ in frames]))
    keep = np.array([k for _, k in frames])
    n = len(traj)
    data = keep_frames({"traj": traj, "weight": np.arange(n, dtype=float), "keep": keep.astype(np.uint8)})
    assert data[DROPPED_ATTR] == int((~keep).sum()) and "keep" not in data
    assert data["weight"].tolist() == np.arange(n, dtype=float)[keep].tolist()
    # the kept frames' pieces: a new piece where the trajectory changes or a frame was left out before it
    pieces = [i for i in range(n) if keep[i] and (i == 0 or traj[i] != traj[i - 1] or not keep[i - 1])]
    assert len(np.unique(data["traj"])) == len(pieces)
    assert (np.diff(data["traj"]) >= 0).all()
