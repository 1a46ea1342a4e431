"""External engine samples: a WESTPA layout and plain trajectories become the frames contract."""

import h5py
import mdtraj
import numpy as np
import pandas as pd
import pytest

from westbench.external import ExternalSamplesError, import_samples
from westbench.io.frames import read_frames

SEQUENCE = ["GLY", "TYR", "ASP", "PRO", "GLU"]


@pytest.fixture
def prepared(tmp_path):
    """A C-alpha-only 'prepared' structure of a five-residue peptide."""
    top = mdtraj.Topology()
    chain = top.add_chain()
    for name in SEQUENCE:
        top.add_atom("CA", mdtraj.element.carbon, top.add_residue(name, chain))
    xyz = np.cumsum(np.full((1, 5, 3), 0.22, dtype=np.float32), axis=1)
    mdtraj.Trajectory(xyz, top).save_pdb(str(tmp_path / "prepared.pdb"))
    return tmp_path / "prepared.pdb", top


def frames_of(top, n, seed):
    rng = np.random.default_rng(seed)
    return mdtraj.Trajectory(np.cumsum(rng.normal(0.2, 0.05, size=(n, 5, 3)), axis=1).astype(np.float32), top)


def test_westpa_layout_weights_by_segment_id(prepared, tmp_path):
    pdb, top = prepared
    index_dtype = np.dtype([("weight", "f8"), ("walltime", "f8"), ("cputime", "f8")])
    with h5py.File(tmp_path / "west.h5", "w") as handle:
        handle.attrs["west_current_iteration"] = 3  # two finished iterations
        for n_iter, weights in ((1, [0.25, 0.75]), (2, [0.5, 0.2, 0.3])):
            index = np.array([(w, 1.0, 2.0) for w in weights], dtype=index_dtype)
            handle.create_dataset(f"iterations/iter_{n_iter:08d}/seg_index", data=index)
            for seg_id in range(len(weights)):
                path = tmp_path / "traj_segs" / f"{n_iter:06d}" / f"{seg_id:06d}" / "seg.dcd"
                path.parent.mkdir(parents=True)
                frames_of(top, 4, 10 * n_iter + seg_id).save_dcd(str(path))
    spec = {
        "kind": "westpa",
        "west_h5": str(tmp_path / "west.h5"),
        "topology": str(pdb),
        "save_interval_ps": 0.5,
        "segments": str(tmp_path / "traj_segs" / "{iteration:06d}" / "{segment:06d}" / "seg.dcd"),
    }
    summary = import_samples(spec, pdb, tmp_path / "frames.h5", tmp_path / "cost.csv", engine="ext", protein="p")
    frames = read_frames(tmp_path / "frames.h5")
    assert summary == {"frames": 20, "iterations": 2, "nonfinite_frames_dropped": 0}
    assert frames["weight"][:8].tolist() == [0.25] * 4 + [0.75] * 4
    assert frames["iteration"].tolist() == [1] * 8 + [2] * 12 and frames["seg_id"][8:12].tolist() == [0] * 4
    expected = frames_of(top, 4, 21).xyz
    assert np.allclose(frames["ca"][12:16], expected, atol=1e-5)  # dcd: float32 in Angstrom
    cost = pd.read_csv(tmp_path / "cost.csv")
    assert cost["segments"].tolist() == [2, 3] and cost["cumulative_cpu_seconds"].tolist() == [4.0, 10.0]


def test_plain_trajectories_with_and_without_weights(prepared, tmp_path):
    pdb, top = prepared
    for name, n in (("a", 5), ("b", 3)):
        frames_of(top, n, len(name) + n).save_xtc(str(tmp_path / f"{name}.xtc"))
    np.save(tmp_path / "a.npy", np.arange(1.0, 6.0))
    np.save(tmp_path / "b.npy", np.ones(3))
    spec = {
        "kind": "trajectories",
        "trajectories": str(tmp_path / "*.xtc"),
        "topology": str(pdb),
        "weights": str(tmp_path / "{name}.npy"),
        "stride": 1,
        "save_interval_ps": 1.0,
    }
    import_samples(spec, pdb, tmp_path / "w.h5", tmp_path / "c.csv", engine="ext", protein="p")
    weights = read_frames(tmp_path / "w.h5")["weight"]
    assert np.allclose(weights, np.r_[np.arange(1.0, 6.0), np.ones(3)] / 18)
    import_samples({**spec, "weights": None}, pdb, tmp_path / "u.h5", tmp_path / "c.csv", engine="ext", protein="p")
    frames = read_frames(tmp_path / "u.h5")
    assert np.allclose(frames["weight"], 1 / 8) and frames["traj"].tolist() == [0] * 5 + [1] * 3


def test_wrong_sequence_and_bad_weights_name_the_file(prepared, tmp_path):
    pdb, top = prepared
    frames_of(top, 3, 1).save_xtc(str(tmp_path / "a.xtc"))
    other = tmp_path / "other.pdb"
    other.write_text(pdb.read_text().replace("TYR", "PHE"))
    spec = {
        "kind": "trajectories",
        "trajectories": str(tmp_path / "a.xtc"),
        "topology": str(other),
        "weights": None,
        "stride": 1,
        "save_interval_ps": 1.0,
    }
    with pytest.raises(ExternalSamplesError, match=r"other\.pdb has C-alpha sequence GFDPE"):
        import_samples(spec, pdb, tmp_path / "f.h5", tmp_path / "c.csv", engine="ext", protein="p")
    np.save(tmp_path / "a.npy", np.ones(2))
    spec.update(topology=str(pdb), weights=str(tmp_path / "{name}.npy"))
    with pytest.raises(
        ExternalSamplesError, match=r"a\.npy hold 2 values; .*a\.xtc has 3 frames\. Write one weight per frame"
    ):
        import_samples(spec, pdb, tmp_path / "f.h5", tmp_path / "c.csv", engine="ext", protein="p")


def test_nan_and_absurd_coordinates_are_refused_naming_file_frame_and_atom(prepared, tmp_path):
    """The issue's case: NaN at one C-alpha, 1e6 nm at another; refused, or left out with on_nonfinite drop."""
    pdb, top = prepared
    traj = frames_of(top, 6, 3)
    traj.xyz[2, 1, 0] = np.nan
    traj.xyz[4, 3, 2] = 1e6
    traj.save_dcd(str(tmp_path / "bad.dcd"))
    spec = {
        "kind": "trajectories",
        "trajectories": str(tmp_path / "bad.dcd"),
        "topology": str(pdb),
        "weights": None,
        "stride": 1,
        "save_interval_ps": 1.0,
    }
    with pytest.raises(
        ExternalSamplesError,
        match=r"bad\.dcd: frame 2 has coordinate nan nm at C-alpha 1 "
        r"\(residue Y2\) \(2 of 6 frames .*on_nonfinite: drop",
    ):
        import_samples(spec, pdb, tmp_path / "f.h5", tmp_path / "c.csv", engine="ext", protein="p")
    assert not (tmp_path / "f.h5").exists()
    summary = import_samples(
        spec, pdb, tmp_path / "f.h5", tmp_path / "c.csv", engine="ext", protein="p", on_nonfinite="drop"
    )
    frames = read_frames(tmp_path / "f.h5")
    assert summary["nonfinite_frames_dropped"] == frames.attrs["nonfinite_frames_dropped"] == 2
    assert len(frames) == 4 and np.isfinite(frames["ca"]).all() and np.isclose(frames["weight"].sum(), 1.0)
    assert frames["traj"].tolist() == [0, 0, 1, 2]  # the piece is split where frames were left out


@pytest.mark.parametrize(
    "weights, problem",
    [
        ([1, 1, -0.5], r"frame 2 has weight -0.5, below zero"),
        ([1, np.nan, 1], r"frame 1 has weight nan, not finite"),
        ([0, 0, 0], r"all 3 weights are zero"),
    ],
)
def test_bad_weights_are_refused_with_what_is_wrong(prepared, tmp_path, weights, problem):
    pdb, top = prepared
    frames_of(top, 3, 1).save_xtc(str(tmp_path / "a.xtc"))
    np.save(tmp_path / "a.npy", np.array(weights, dtype=float))
    spec = {
        "kind": "trajectories",
        "trajectories": str(tmp_path / "a.xtc"),
        "topology": str(pdb),
        "weights": str(tmp_path / "{name}.npy"),
        "stride": 1,
        "save_interval_ps": 1.0,
    }
    with pytest.raises(ExternalSamplesError, match=rf"a\.npy: {problem}.*finite, non-negative and not all zero"):
        import_samples(spec, pdb, tmp_path / "f.h5", tmp_path / "c.csv", engine="ext", protein="p")


def test_a_trajectory_with_fewer_c_alphas_than_the_protein_names_the_counts(prepared, tmp_path):
    pdb, top = prepared
    short = top.subset(range(4))
    mdtraj.Trajectory(frames_of(top, 3, 1).xyz[:, :4], short).save_hdf5(str(tmp_path / "short.h5"))
    spec = {
        "kind": "trajectories",
        "trajectories": str(tmp_path / "short.h5"),
        "topology": None,
        "weights": None,
        "stride": 1,
        "save_interval_ps": 1.0,
    }
    with pytest.raises(
        ExternalSamplesError,
        match=r"short\.h5 has C-alpha sequence GYDP \(4 C-alpha atoms\); the "
        r"protein was prepared as GYDPE \(5\)",
    ):
        import_samples(spec, pdb, tmp_path / "f.h5", tmp_path / "c.csv", engine="ext", protein="p")


def test_the_same_trajectory_given_twice_is_refused_naming_both_files(prepared, tmp_path):
    """The issue's case: importing the same sample files twice doubled the units and narrowed the intervals
    silently. One file under two spellings (a glob and a path), a link, or a copy under another name: refused,
    naming both files and the fix; distinct files still import."""
    pdb, top = prepared
    frames_of(top, 5, 1).save_xtc(str(tmp_path / "a.xtc"))
    frames_of(top, 5, 2).save_xtc(str(tmp_path / "b.xtc"))
    (tmp_path / "copies").mkdir()
    (tmp_path / "copies" / "a_again.xtc").write_bytes((tmp_path / "a.xtc").read_bytes())
    (tmp_path / "copies" / "b_link.xtc").symlink_to(tmp_path / "b.xtc")
    spec = {"kind": "trajectories", "topology": str(pdb), "weights": None, "stride": 1, "save_interval_ps": 1.0}

    def load(trajectories):
        return import_samples(
            {**spec, "trajectories": trajectories},
            pdb,
            tmp_path / "f.h5",
            tmp_path / "c.csv",
            engine="ext",
            protein="p",
        )

    assert load(str(tmp_path / "*.xtc"))["frames"] == 10
    cases = {
        "the same file": [str(tmp_path / "*.xtc"), str(tmp_path / "copies" / ".." / "a.xtc")],
        "identical content": [str(tmp_path / "a.xtc"), str(tmp_path / "copies" / "a_again.xtc")],
        "link": [str(tmp_path / "b.xtc"), str(tmp_path / "copies" / "b_link.xtc")],
    }
    for case, trajectories in cases.items():
        with pytest.raises(ExternalSamplesError) as refused:
            load(trajectories)
        message = str(refused.value)
        assert "external.ext.trajectories gives the same trajectory twice" in message, case
        assert "Fix: list each trajectory once in external.ext.trajectories" in message, case
        named = {"the same file": "a.xtc", "identical content": "a_again.xtc", "link": "b_link.xtc"}[case]
        assert named in message and ("identical content" if case == "identical content" else "the same file") in message
