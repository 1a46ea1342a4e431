"""Ground-truth production: kill and resume, seeds, saved C-alpha forces."""

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import openmm
import pytest
from openmm import app, unit

from westbench.groundtruth.production import md_settings, run_groundtruth
from westbench.io.frames import read_frames

from ...conftest import REPO, rcsb_spec, source_env

# A compact chignolin in a small box: a few thousand atoms, 4 chunks of 5 frames.
PREPARATION = {"box_shape": "dodecahedron", "padding_nm": 0.6, "nonbonded_cutoff_nm": 0.8, "ionic_strength_molar": 0.15}
GROUNDTRUTH = {
    "equilibration_ps": 0.04,
    "length_ps": 0.8,
    "save_interval_ps": 0.04,
    "checkpoint_interval_ps": 0.2,
    "minimize_max_iterations": 20,
    "force_mapping": "ca",
    "trajectory_format": "xtc",
}
PLATFORM = {"name": "CPU", "fallback": ["CPU"], "deterministic": True}


@pytest.fixture(scope="module")
def start_pdb(tmp_path_factory, shared_structures):
    from westbench.prepare.fixer import fix_structure

    topology, positions, _ = fix_structure(shared_structures / "1UAO.pdb", rcsb_spec("1UAO", "GYDPETGTWG"), seed=1)
    path = tmp_path_factory.mktemp("start") / "s0000.pdb"
    with open(path, "w") as handle:
        app.PDBFile.writeFile(topology, positions, handle, keepIds=True)
    return path


def outputs(folder):
    folder.mkdir(parents=True, exist_ok=True)
    return {
        "trajectory": folder / "trajectory.xtc",
        "topology": folder / "topology.pdb",
        "frames": folder / "frames.h5",
        "summary": folder / "summary.json",
    }


def run(start_pdb, folder, seed=11, groundtruth=GROUNDTRUTH):
    return run_groundtruth(
        start_pdb,
        folder / "checkpoints",
        outputs(folder),
        protein="chignolin",
        start="s0000",
        groundtruth=groundtruth,
        preparation=PREPARATION,
        platform=PLATFORM,
        seed=seed,
    )


def start_run_process(start_pdb, folder):
    """The same run in a separate process (its own session, so a test can kill it with its children)."""
    script = (
        "from westbench.workflow import setup_logging; setup_logging()\n"
        "from tests.unit.groundtruth.test_production import run\n"
        "from pathlib import Path\n"
        "run(Path(%r), Path(%r))\n" % (str(start_pdb), str(folder))
    )
    return subprocess.Popen(
        [sys.executable, "-c", script],
        cwd=REPO,
        env=source_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


@pytest.fixture(scope="module")
def uninterrupted(start_pdb, tmp_path_factory):
    folder = tmp_path_factory.mktemp("uninterrupted")
    summary = run(start_pdb, folder)
    return folder, summary


def test_outputs_and_provenance(uninterrupted):
    import mdtraj

    folder, summary = uninterrupted
    settings = md_settings(GROUNDTRUTH, PREPARATION)
    frames = read_frames(folder / "frames.h5")
    assert len(frames) == settings.n_frames == 20 and summary["frames"] == 20
    assert np.allclose(frames["time_ps"], np.arange(1, 21) * 0.04)
    assert frames["ca"].shape == (20, 10, 3) and frames["forces"].shape == (20, 10, 3)
    assert np.isfinite(frames["energy"]).all() and frames.attrs["force_mapping"] == "ca"
    trajectory = mdtraj.load(str(folder / "trajectory.xtc"), top=str(folder / "topology.pdb"))
    assert trajectory.n_frames == 20 and trajectory.n_atoms == summary["solute_atoms"]
    assert np.allclose(
        trajectory.xyz[:, trajectory.topology.select("name CA")], frames["ca"], atol=2e-3
    )  # xtc precision
    assert summary["seed"] == 11 and summary["platform"] == "CPU" and summary["ns_per_day"] > 0
    assert summary["openmm_version"] == openmm.__version__ and summary["resumed_from_step"] == 0
    assert summary["md"]["timestep_fs"] == 4.0 and summary["preparation"]["padding_nm"] == 0.6


def recomputed_forces(workdir, platform):
    """Forces of the last frame recomputed from the serialized system and state in a fresh context."""
    system = openmm.XmlSerializer.deserialize((workdir / "system.xml").read_text())
    state = openmm.XmlSerializer.deserialize((workdir / "final_state.xml").read_text())
    properties = {"Threads": "1"} if platform == "CPU" else {}
    context = openmm.Context(
        system, openmm.VerletIntegrator(0.001), openmm.Platform.getPlatformByName(platform), properties
    )
    context.setState(state)
    forces = context.getState(getForces=True).getForces(asNumpy=True)
    return forces.value_in_unit(unit.kilojoule_per_mole / unit.nanometer), app.PDBFile(
        str(workdir / "solvated.pdb")
    ).topology


def test_saved_ca_forces_equal_openmm_forces_recomputed(uninterrupted):
    folder, _ = uninterrupted
    saved = read_frames(folder / "frames.h5")["forces"][-1]
    forces, topology = recomputed_forces(folder / "checkpoints", "CPU")
    ca = [a.index for a in topology.atoms() if a.name == "CA" and a.residue.name != "HOH"]
    assert np.allclose(saved, forces[ca], rtol=1e-5, atol=1e-3)  # same platform: the same forces
    assert np.abs(saved).max() > 10  # real forces, not zeros
    # Against double precision and a direct-space PME of its own, within the Ewald tolerance.
    reference, _ = recomputed_forces(folder / "checkpoints", "Reference")
    error = np.linalg.norm(saved - reference[ca], axis=1) / np.linalg.norm(reference[ca], axis=1)
    assert np.median(error) < 5e-3


def test_residue_force_mapping_sums_the_residue(start_pdb, tmp_path):
    groundtruth = {**GROUNDTRUTH, "force_mapping": "residue", "length_ps": 0.04, "checkpoint_interval_ps": 0.04}
    run(start_pdb, tmp_path, groundtruth=groundtruth)
    forces, topology = recomputed_forces(tmp_path / "checkpoints", "CPU")
    expected = [forces[[a.index for a in residue.atoms()]].sum(axis=0) for residue in list(topology.residues())[:10]]
    assert np.allclose(read_frames(tmp_path / "frames.h5")["forces"][-1], expected, rtol=1e-4, atol=1e-2)


def test_same_seed_same_numbers_other_seed_different(start_pdb, uninterrupted, tmp_path):
    reference = read_frames(uninterrupted[0] / "frames.h5")
    run(start_pdb, tmp_path / "same", seed=11)
    same = read_frames(tmp_path / "same" / "frames.h5")
    for name in ("ca", "forces", "energy", "time_ps"):
        assert np.array_equal(same[name], reference[name]), name
    run(start_pdb, tmp_path / "other", seed=12)
    other = read_frames(tmp_path / "other" / "frames.h5")
    assert not np.allclose(other["ca"], reference["ca"])


def test_killed_run_moved_elsewhere_resumes_from_its_checkpoint(start_pdb, uninterrupted, tmp_path):
    """SIGKILL the run once two chunks are on disk and move its folder; the rerun there continues and
    matches the uninterrupted run (the restart rule compares settings and file contents, not paths)."""
    import shutil

    folder = tmp_path / "killed"
    process = start_run_process(start_pdb, folder)
    deadline = time.monotonic() + 240
    chunk, checkpoint = folder / "checkpoints" / "chunk_000001.npz", folder / "checkpoints" / "production.chk"
    # The checkpoint is saved just after its chunk: wait for both, or a kill in between resumes from step 50.
    while not (chunk.exists() and checkpoint.exists() and checkpoint.stat().st_mtime_ns >= chunk.stat().st_mtime_ns):
        assert process.poll() is None, process.stderr.read()[-2000:]
        assert time.monotonic() < deadline, "the run produced no chunk in time"
        time.sleep(0.01)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    assert not (folder / "frames.h5").exists() and not (folder / "checkpoints" / "chunk_000003.npz").exists()

    folder = Path(shutil.move(folder, tmp_path / "moved" / "elsewhere"))
    summary = run(start_pdb, folder)
    assert summary["resumed_from_step"] >= 100  # continued after at least two chunks of 50 steps
    resumed, reference = read_frames(folder / "frames.h5"), read_frames(uninterrupted[0] / "frames.h5")
    assert len(resumed) == len(reference) == 20
    assert np.array_equal(resumed["time_ps"], reference["time_ps"])  # no duplicated or missing frame
    for name in ("ca", "forces", "energy"):  # chunks reseed their random streams: bit-identical continuation
        assert np.array_equal(resumed[name], reference[name]), name


def test_corrupt_checkpoint_is_named(start_pdb, uninterrupted, tmp_path):
    import shutil

    from westbench.errors import WestbenchError

    shutil.copytree(uninterrupted[0] / "checkpoints", tmp_path / "checkpoints")
    (tmp_path / "checkpoints" / "production.chk").write_bytes(b"garbage")
    with pytest.raises(WestbenchError, match=r"production.chk cannot be loaded.*delete"):
        run(start_pdb, tmp_path)


def as_root(*command):
    return subprocess.run(
        list(command) if os.geteuid() == 0 else ["sudo", "-n", *command], check=True, capture_output=True
    )


@pytest.mark.slow
def test_disk_full_keeps_the_previous_checkpoint_and_the_rerun_continues(start_pdb, uninterrupted, tmp_path):
    """A real full disk (a small tmpfs filled up mid-run): the write fails with an error naming the file,
    the last checkpoint stays loadable, and after space is freed the rerun matches the uninterrupted run."""

    mount = tmp_path / "disk"
    mount.mkdir()
    as_root("mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", str(mount))
    try:
        folder = mount / "run"
        process = start_run_process(start_pdb, folder)
        deadline = time.monotonic() + 240
        chunk, checkpoint = folder / "checkpoints" / "chunk_000000.npz", folder / "checkpoints" / "production.chk"
        while not (
            chunk.exists() and checkpoint.exists() and checkpoint.stat().st_mtime_ns >= chunk.stat().st_mtime_ns
        ):
            assert process.poll() is None, process.stderr.read()[-2000:]
            assert time.monotonic() < deadline, "the run produced no chunk in time"
            time.sleep(0.01)
        # Stop the run while the disk fills: on a fast CPU the remaining chunks could otherwise be written
        # before dd has taken the space, and the run would end well (a race the CI run of 74e9cc2 lost).
        os.killpg(process.pid, signal.SIGSTOP)
        try:
            subprocess.run(["dd", "if=/dev/zero", f"of={mount / 'filler'}", "bs=1M"], capture_output=True)
            assert os.statvfs(mount).f_bavail == 0, "the tmpfs still has space after dd"
        finally:
            os.killpg(process.pid, signal.SIGCONT)
        _, stderr = process.communicate(timeout=240)
        assert process.returncode != 0
        assert "No space left on device" in stderr and "free space and rerun" in stderr, stderr[-2000:]
        assert re.search(r"could not write \S+(chunk_\d+\.npz|production\.chk)", stderr), stderr[-2000:]
        assert checkpoint.exists() and not (folder / "frames.h5").exists()

        (mount / "filler").unlink()
        summary = run(start_pdb, folder)
        assert summary["resumed_from_step"] >= 50
        resumed, reference = read_frames(folder / "frames.h5"), read_frames(uninterrupted[0] / "frames.h5")
        assert np.array_equal(resumed["time_ps"], reference["time_ps"])
        assert np.array_equal(resumed["ca"], reference["ca"])
    finally:
        as_root("umount", "-l", str(mount))


def test_checkpoints_of_other_settings_are_not_resumed(start_pdb, uninterrupted, tmp_path, caplog):
    """A config change must not continue old checkpoints (a cache keyed only by name, a published pitfall)."""
    import shutil

    shutil.copytree(uninterrupted[0] / "checkpoints", tmp_path / "checkpoints")
    summary = run(start_pdb, tmp_path, seed=12)
    assert summary["resumed_from_step"] == 0 and "seed changed" in caplog.text
    other = read_frames(tmp_path / "frames.h5")
    assert not np.array_equal(other["ca"], read_frames(uninterrupted[0] / "frames.h5")["ca"])


def test_a_new_start_structure_starts_the_run_over(start_pdb, uninterrupted, tmp_path, caplog):
    """groundtruth_starts rerun with other starts: the run folder's checkpoints belong to the old start."""
    import shutil

    shutil.copytree(uninterrupted[0] / "checkpoints", tmp_path / "checkpoints")
    moved = tmp_path / "start" / "s0000.pdb"
    moved.parent.mkdir()
    shutil.copy(start_pdb, moved)
    with caplog.at_level("WARNING"):
        summary = run(moved, tmp_path)  # the same content elsewhere: the finished run is adopted
    assert "starting over" not in caplog.text and summary["resumed_from_step"] > 0
    pdb = app.PDBFile(str(start_pdb))
    positions = pdb.getPositions(asNumpy=True).value_in_unit(unit.nanometer) + 0.01
    with open(moved, "w") as handle:
        app.PDBFile.writeFile(pdb.topology, positions * unit.nanometer, handle, keepIds=True)
    with caplog.at_level("WARNING"):
        summary = run(moved, tmp_path)
    assert "start changed" in caplog.text and summary["resumed_from_step"] == 0


def test_an_implicit_solvent_ground_truth_has_no_water_and_no_box(start_pdb, tmp_path):
    groundtruth = {**GROUNDTRUTH, "solvent": "implicit", "length_ps": 0.2, "checkpoint_interval_ps": 0.2}
    preparation = {}  # the schema's implicit solvent (GBn2)
    summary = run_groundtruth(
        start_pdb,
        tmp_path / "checkpoints",
        outputs(tmp_path),
        protein="chignolin",
        start="s0000",
        groundtruth=groundtruth,
        preparation=preparation,
        platform=PLATFORM,
        seed=3,
    )
    solute = app.PDBFile(str(start_pdb)).topology.getNumAtoms()
    assert summary["solvent"] == "implicit" and summary["atoms"] == solute  # nothing added around the protein
    frames = read_frames(tmp_path / "frames.h5")
    assert frames.attrs["solvent"] == "implicit" and len(frames) == 5 and np.isfinite(frames["forces"]).all()
    import mdtraj

    assert mdtraj.load(str(tmp_path / "trajectory.xtc"), top=str(tmp_path / "topology.pdb")).unitcell_lengths is None
