"""Starting points: farthest-point selection and generation from hot implicit runs."""

import numpy as np
import pandas as pd
import pytest
from openmm import app

from westbench.errors import StructureError
from westbench.groundtruth.starts import collect_starts, farthest_point_selection, generate_starts
from westbench.prepare.fixer import fix_structure
from westbench.simulation.integration import minimize
from westbench.simulation.systems import build_system

from ...conftest import CHIGNOLIN, rcsb_spec

HOT = {"temperature_k": 350.0, "runs": 2, "length_ps": 2.0, "save_interval_ps": 0.1, "tica_lag_frames": 1}
PREPARATION = {"timestep_fs": 4.0, "temperature_k": 300.0, "friction_per_ps": 1.0, "constraint_tolerance": 1e-6}
PLATFORM = {"name": "CPU", "deterministic": True}


def test_farthest_points_are_spread_and_seeded():
    rng = np.random.default_rng(1)
    cluster_centres = np.array([[0, 0], [10, 0], [0, 10], [10, 10]], dtype=float)
    points = np.concatenate([c + 0.1 * rng.normal(size=(50, 2)) for c in cluster_centres])
    picked = farthest_point_selection(points, 4, seed=3)
    assert sorted(set(picked // 50)) == [0, 1, 2, 3]  # one start in each cluster
    assert np.array_equal(picked, farthest_point_selection(points, 4, seed=3))
    assert not np.array_equal(picked, farthest_point_selection(points, 4, seed=4))
    with pytest.raises(ValueError, match="cannot pick 300"):
        farthest_point_selection(points, 300, seed=0)


@pytest.fixture(scope="module")
def implicit(shared_structures):
    topology, positions, _ = fix_structure(shared_structures / "1UAO.pdb", rcsb_spec("1UAO", CHIGNOLIN), seed=1)
    system, modeller, _ = build_system("implicit", topology, positions, {})
    state, _ = minimize(system, modeller.positions, {"minimize_max_iterations": 50}, PLATFORM)
    return topology, system, state


def test_generated_starts_are_written_with_their_tics(implicit, tmp_path):
    topology, system, state = implicit
    table = generate_starts(topology, system, state, HOT, PREPARATION, PLATFORM, 3, seed=5, outdir=tmp_path / "a")
    assert list(table["start"]) == ["s0000", "s0001", "s0002"]
    assert table[["tic0", "tic1"]].notna().all().all() and set(table["run"]) <= {0, 1}
    for name in table["start"]:
        pdb = app.PDBFile(str(tmp_path / "a" / f"{name}.pdb"))
        assert pdb.topology.getNumAtoms() == topology.getNumAtoms()
    # Far apart: the picked points are the spread-out ones, not neighbours.
    tics = table[["tic0", "tic1"]].to_numpy()
    assert min(np.linalg.norm(tics[i] - tics[j]) for i in range(3) for j in range(i + 1, 3)) > 0.1
    again = generate_starts(topology, system, state, HOT, PREPARATION, PLATFORM, 3, seed=5, outdir=tmp_path / "b")
    pd.testing.assert_frame_equal(table, again)
    assert (tmp_path / "a" / "s0001.pdb").read_text() == (tmp_path / "b" / "s0001.pdb").read_text()


def test_user_starts_must_hold_the_prepared_protein(implicit, tmp_path, shared_structures):
    topology, _, state = implicit
    folder = tmp_path / "mine"
    folder.mkdir()
    with open(folder / "open.pdb", "w") as handle:
        app.PDBFile.writeFile(topology, state.getPositions(), handle)
    table = collect_starts([folder / "open.pdb"], topology, tmp_path / "starts")
    assert list(table["start"]) == ["open"] and (tmp_path / "starts" / "open.pdb").is_file()
    with pytest.raises(StructureError, match=r"1L2Y.pdb does not hold the prepared protein"):
        collect_starts([shared_structures / "1L2Y.pdb"], topology, tmp_path / "starts")
