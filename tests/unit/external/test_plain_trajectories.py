"""Plain trajectories as samples: one cost row per file, strided frames with their times, weights as given and
normalized over the set, and every bad input refused naming the file and the key to fix."""

import mdtraj
import numpy as np
import pytest

from westbench.external.ca_reader import CAReader, ExternalSamplesError
from westbench.external.plain_trajectories import read_trajectories
from westbench.io.frames import DROPPED_ATTR

from .test_ca_reader import PEPTIDE, save, topology


@pytest.fixture
def reader(tmp_path):
    top = topology(PEPTIDE, with_n=False)
    save(tmp_path / "top.pdb", top, n=1)
    return CAReader(tmp_path / "top.pdb", "GYDPE", "ext"), top


def spec(tmp_path, **changes):
    return {"trajectories": str(tmp_path / "*.dcd"), "stride": 1, "weights": None, "save_interval_ps": 2.0, **changes}


def test_strided_frames_times_pieces_and_one_cost_row_per_file(tmp_path, reader):
    reader, top = reader
    first, second = save(tmp_path / "a.dcd", top, n=7, seed=1), save(tmp_path / "b.dcd", top, n=4, seed=2)
    data, costs = read_trajectories(spec(tmp_path, stride=3), reader, "p")
    assert np.allclose(data["ca"], np.concatenate([first[::3], second[::3]]), atol=1e-4)
    assert data["traj"].tolist() == [0, 0, 0, 1, 1] and data["iteration"].tolist() == [1, 1, 1, 2, 2]
    assert data["time_ps"].tolist() == [6.0, 12.0, 18.0, 6.0, 12.0]  # the n-th kept frame at n x 3 x 2 ps
    assert np.allclose(data["weight"], 0.2) and data[DROPPED_ATTR] == 0
    assert [row["iteration"] for row in costs] == [1, 2] and all(row["segments"] == 1 for row in costs)


@pytest.mark.parametrize("suffix", [".npy", ".txt", ".npz"])
def test_weights_per_file_are_used_as_given_and_normalized_over_the_set(tmp_path, reader, suffix):
    reader, top = reader
    save(tmp_path / "a.dcd", top, n=3)
    save(tmp_path / "b.dcd", top, n=2)
    given = {"a": np.array([1.0, 2.0, 3.0]), "b": np.array([4.0, 0.0])}
    for name, weights in given.items():
        path = tmp_path / f"{name}{suffix}"
        {
            ".npy": lambda: np.save(path, weights),
            ".txt": lambda: np.savetxt(path, weights),
            ".npz": lambda: np.savez(path, weight=weights),
        }[suffix]()
    data, _ = read_trajectories(spec(tmp_path, weights=str(tmp_path / f"{{name}}{suffix}")), reader, "p")
    expected = np.concatenate(list(given.values()))
    assert np.allclose(data["weight"], expected / expected.sum())


def test_no_matching_file_names_the_key(tmp_path, reader):
    with pytest.raises(ExternalSamplesError, match=r"match no file: set external.ext.trajectories"):
        read_trajectories(spec(tmp_path), reader[0], "p")


def test_unreadable_or_short_weights_name_the_file(tmp_path, reader):
    reader, top = reader
    save(tmp_path / "a.dcd", top, n=3)
    with pytest.raises(ExternalSamplesError, match=r"weights .*missing-a.npy cannot be read.*external.ext.weights"):
        read_trajectories(spec(tmp_path, weights=str(tmp_path / "missing-{name}.npy")), reader, "p")
    np.save(tmp_path / "a.npy", np.ones(2))
    with pytest.raises(ExternalSamplesError, match=r"external engine 'ext': .*a.npy"):
        read_trajectories(spec(tmp_path, weights=str(tmp_path / "{name}.npy")), reader, "p")


def test_frames_of_zero_total_weight_are_refused(tmp_path, reader):
    reader, top = reader
    save(tmp_path / "a.dcd", top, n=3)
    weights = spec(tmp_path, weights=str(tmp_path / "{name}.npy"))
    np.save(tmp_path / "a.npy", np.zeros(3))
    with pytest.raises(ExternalSamplesError, match=r"a.npy: all 3 weights are zero"):
        read_trajectories(weights, reader, "p")
    np.save(tmp_path / "a.npy", np.array([0.0, 1.0, 0.0]))  # the stride keeps frames 0 and 2 only
    with pytest.raises(ExternalSamplesError, match=r"total weight 0: give weights above zero"):
        read_trajectories({**weights, "stride": 2}, reader, "p")


def test_non_finite_frames_dropped_split_their_piece(tmp_path, reader):
    reader, top = reader
    xyz = save(tmp_path / "a.dcd", top, n=5)
    xyz[2, 1, 0] = np.nan
    mdtraj.Trajectory(xyz, top).save_dcd(str(tmp_path / "a.dcd"))
    with pytest.raises(ExternalSamplesError, match=r"a.dcd.*frame 2"):
        read_trajectories(spec(tmp_path), reader, "p")
    data, _ = read_trajectories(spec(tmp_path), reader, "p", on_nonfinite="drop")
    assert data[DROPPED_ATTR] == 1 and data["traj"].tolist() == [0, 0, 1, 1]
    assert data["time_ps"].tolist() == [2.0, 4.0, 8.0, 10.0] and np.allclose(data["weight"], 0.25)
