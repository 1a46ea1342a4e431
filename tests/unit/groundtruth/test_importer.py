"""Imported ground truth: a generated run exported and imported again, and the errors bad input gets."""

import numpy as np
import pytest

from westbench.groundtruth.importer import GroundTruthImportError, import_run
from westbench.io.frames import read_frames
from westbench.io.trajectories import TrajectoryError, import_names, trajectory_files
from westbench.tica import fit_groundtruth

from .test_production import outputs, run, start_pdb  # noqa: F401  (fixture reused)


@pytest.fixture(scope="module")
def generated(start_pdb, tmp_path_factory):  # noqa: F811
    """A short generated ground-truth run; its xtc + topology PDB are the export."""
    folder = tmp_path_factory.mktemp("generated")
    run(start_pdb, folder)
    return folder


def imported(generated, start_pdb, folder, **kwargs):  # noqa: F811
    kwargs.setdefault("topology", generated / "topology.pdb")
    topology = kwargs.pop("topology")
    return import_run(
        kwargs.pop("trajectory", generated / "trajectory.xtc"),
        topology,
        kwargs.pop("prepared", start_pdb),
        outputs(folder),
        protein="chignolin",
        start="s0000",
        **kwargs,
    )


def test_round_trip_gives_the_same_frames_and_tica(generated, start_pdb, tmp_path):  # noqa: F811
    np.savez(tmp_path / "forces.npz", forces=read_frames(generated / "frames.h5")["forces"])
    summary = imported(generated, start_pdb, tmp_path / "imported", forces=tmp_path / "forces.npz")
    original, copy = read_frames(generated / "frames.h5"), read_frames(tmp_path / "imported" / "frames.h5")
    assert summary["frames"] == len(original) == len(copy) and copy.attrs["source"] == "import"
    assert np.allclose(copy["ca"], original["ca"], atol=6e-4)  # xtc stores 1e-3 nm
    assert np.allclose(copy["time_ps"], original["time_ps"], atol=1e-3)
    assert np.array_equal(copy["forces"], original["forces"])
    # The same TICA: the model fitted on the generated run projects the imported frames where it put the
    # generated ones. 19 lagged pairs are fewer than all 45 pairs (an error: the fit would follow noise), so
    # six seeded random pairs; still overfit (xtc rounding moves points by up to ~0.2 of TIC 0's +-1 values),
    # so agreement is judged by correlation, not a tight tolerance.
    six = {"pairs": "random", "max_features": 6}
    model, joined = fit_groundtruth([generated / "frames.h5"], "chignolin", lag_frames=1, dim=2, features=six)
    tics = model.project(copy["ca"])
    for k in range(2):
        assert np.corrcoef(tics[:, k], joined["tics"][:, k])[0, 1] > 0.95
    again = fit_groundtruth([tmp_path / "imported" / "frames.h5"], "chignolin", 1, 2, features=six)[0]
    assert again.n_features == 6 and np.array_equal(again.features.pairs, model.features.pairs)
    assert again.metadata["well_posed"] is False and "3.2 per feature" in again.metadata["why"]


def test_stride_and_missing_forces(generated, start_pdb, tmp_path):  # noqa: F811
    imported(generated, start_pdb, tmp_path, stride=2)
    frames = read_frames(tmp_path / "frames.h5")
    original = read_frames(generated / "frames.h5")
    assert len(frames) == 10 and "forces" not in frames
    assert np.allclose(frames["ca"], original["ca"][::2], atol=6e-4)
    from westbench.cg.data import load_protein_data

    with pytest.raises(Exception, match=r"frames.h5 has no forces"):
        load_protein_data("chignolin", [tmp_path / "frames.h5"], start_pdb)


def test_wrong_topology_names_the_files(generated, start_pdb, tmp_path):  # noqa: F811
    lines = (generated / "topology.pdb").read_text().splitlines()
    atoms = [line for line in lines if line.startswith("ATOM")]
    (tmp_path / "short.pdb").write_text("\n".join(atoms[:-5] + ["END"]) + "\n")
    with pytest.raises(GroundTruthImportError, match=r"trajectory\.xtc.*short\.pdb"):
        imported(generated, start_pdb, tmp_path / "out", topology=tmp_path / "short.pdb")


def test_wrong_sequence_names_the_file(generated, start_pdb, tmp_path):  # noqa: F811
    mutated = tmp_path / "mutated.pdb"
    mutated.write_text(start_pdb.read_text().replace("TRP", "PHE"))
    with pytest.raises(GroundTruthImportError, match=r"trajectory\.xtc.*GYDPETGTWG.*GYDPETGTFG"):
        imported(generated, start_pdb, tmp_path / "out", prepared=mutated)


def test_unreadable_trajectory_names_the_file(generated, start_pdb, tmp_path):  # noqa: F811
    broken = tmp_path / "broken.xtc"
    broken.write_bytes(b"not a trajectory" * 10)
    with pytest.raises(GroundTruthImportError, match=r"broken\.xtc cannot be read"):
        imported(generated, start_pdb, tmp_path / "out", trajectory=broken)


def test_missing_or_malformed_forces_name_the_file(generated, start_pdb, tmp_path):  # noqa: F811
    with pytest.raises(GroundTruthImportError, match=r"absent\.npz does not exist"):
        imported(generated, start_pdb, tmp_path / "a", forces=tmp_path / "absent.npz")
    np.savez(tmp_path / "short.npz", forces=np.zeros((3, 10, 3)))
    with pytest.raises(GroundTruthImportError, match=r"short\.npz holds shape \(3, 10, 3\)"):
        imported(generated, start_pdb, tmp_path / "b", forces=tmp_path / "short.npz")


def test_trajectory_globs_and_names(tmp_path):
    for name in ("b.xtc", "a.xtc", "c.dcd"):
        (tmp_path / name).write_text("")
    files = trajectory_files([str(tmp_path / "{protein}*.xtc").replace("{protein}", ""), str(tmp_path / "c.dcd")], "p")
    assert [f.rsplit("/", 1)[1] for f in files] == ["a.xtc", "b.xtc", "c.dcd"]
    assert import_names(files) == ["a", "b", "c"]
    with pytest.raises(TrajectoryError, match="unique"):
        import_names(["x/a.xtc", "y/a.xtc"])


def test_timeless_formats_need_the_interval(generated, start_pdb, tmp_path):  # noqa: F811
    import mdtraj

    traj = mdtraj.load(str(generated / "trajectory.xtc"), top=str(generated / "topology.pdb"))
    traj.save_dcd(str(tmp_path / "run.dcd"))
    with pytest.raises(GroundTruthImportError, match=r"run\.dcd stores no usable frame times.*interval_ps"):
        imported(generated, start_pdb, tmp_path / "a", trajectory=tmp_path / "run.dcd")
    imported(generated, start_pdb, tmp_path / "b", trajectory=tmp_path / "run.dcd", interval_ps=0.04)
    frames, original = read_frames(tmp_path / "b" / "frames.h5"), read_frames(generated / "frames.h5")
    assert np.allclose(frames["time_ps"], original["time_ps"]) and np.allclose(frames["ca"], original["ca"], atol=6e-4)


def test_non_finite_coordinates_are_refused_or_dropped_and_counted(generated, start_pdb, tmp_path):  # noqa: F811
    import mdtraj

    traj = mdtraj.load(str(generated / "trajectory.xtc"), top=str(generated / "topology.pdb"))
    ca = traj.topology.select("name CA")
    traj.xyz[3, ca[4], 1] = np.nan
    traj.save_hdf5(str(tmp_path / "bad.h5"))
    with pytest.raises(
        GroundTruthImportError,
        match=r"bad\.h5: frame 3 has coordinate nan nm at C-alpha 4 "
        r"\(GLU5\).*on_nonfinite: drop",
    ):
        imported(generated, start_pdb, tmp_path / "refused", trajectory=tmp_path / "bad.h5", topology=None)
    assert not (tmp_path / "refused" / "frames.h5").exists()
    summary = imported(
        generated, start_pdb, tmp_path / "dropped", trajectory=tmp_path / "bad.h5", topology=None, on_nonfinite="drop"
    )
    frames = read_frames(tmp_path / "dropped" / "frames.h5")
    assert summary["frames"] == len(frames) == traj.n_frames - 1 and frames.attrs["nonfinite_frames_dropped"] == 1
    assert np.isfinite(frames["ca"]).all() and sorted(set(frames["traj"].tolist())) == [0, 1]
    assert np.isclose(frames["weight"].sum(), 1.0)


def test_non_finite_forces_name_the_file_and_frame(generated, start_pdb, tmp_path):  # noqa: F811
    forces = read_frames(generated / "frames.h5")["forces"].copy()
    forces[5, 2, 0] = np.inf
    np.savez(tmp_path / "forces.npz", forces=forces)
    with pytest.raises(GroundTruthImportError, match=r"forces\.npz: frame 5 has a non-finite force on C-alpha 2"):
        imported(generated, start_pdb, tmp_path / "out", forces=tmp_path / "forces.npz")


@pytest.mark.parametrize("stride", [1, 3])
def test_a_trajectory_is_copied_chunk_by_chunk_with_the_same_result(
    generated,
    start_pdb,  # noqa: F811
    tmp_path,
    monkeypatch,
    stride,
):
    """Memory by bytes: the solute trajectory is streamed in chunks of io.streaming.CHUNK_BYTES, never loaded whole.
    Chunks of one frame (with a stride across chunk edges and a frame dropped for a NaN) give the same frames file
    and the same written trajectory as one chunk; a refused file writes nothing."""
    import mdtraj

    from westbench.io import streaming

    traj = mdtraj.load(str(generated / "trajectory.xtc"), top=str(generated / "topology.pdb"))
    traj.xyz[4, traj.topology.select("name CA")[2], 0] = np.nan
    traj.save_hdf5(str(tmp_path / "bad.h5"))
    results = {}
    for chunk_bytes in (streaming.CHUNK_BYTES, 1):
        monkeypatch.setattr(streaming, "CHUNK_BYTES", chunk_bytes)
        folder = tmp_path / f"chunk{chunk_bytes}"
        summary = imported(
            generated,
            start_pdb,
            folder,
            trajectory=tmp_path / "bad.h5",
            topology=None,
            stride=stride,
            on_nonfinite="drop",
        )
        written = mdtraj.load(str(folder / "trajectory.xtc"), top=str(folder / "topology.pdb"))
        results[chunk_bytes] = (summary, read_frames(folder / "frames.h5"), written)
    (whole, whole_frames, whole_traj), (one, one_frames, one_traj) = results.values()
    kept = [row for row in range(0, traj.n_frames, stride) if row != 4]
    assert whole == one and whole["frames"] == len(kept) == one_traj.n_frames
    for name in ("ca", "time_ps", "traj", "weight"):
        assert np.array_equal(whole_frames[name], one_frames[name]), name
    assert np.array_equal(whole_traj.xyz, one_traj.xyz) and np.array_equal(whole_traj.time, one_traj.time)
    assert np.allclose(one_traj.xyz, traj.xyz[kept], atol=6e-4)  # the kept frames, every atom of the solute
    with pytest.raises(GroundTruthImportError, match=r"frame 4 has coordinate nan"):
        imported(generated, start_pdb, tmp_path / "refused", trajectory=tmp_path / "bad.h5", topology=None)
    assert not any((tmp_path / "refused").iterdir())  # no trajectory, topology or frames file of a refused run
