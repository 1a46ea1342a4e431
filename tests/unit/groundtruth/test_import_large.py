"""A large protein from another project: foreign-format trajectories (DCD, no frame times) of a 270-residue
construct with waters, of which the prepared protein is residues 11-260; imported with a residue selection,
then TICA on the imported runs (reduced features), end to end."""

import mdtraj
import numpy as np
import pytest

from westbench.external import CAReader, ExternalSamplesError
from westbench.geometry.features import ca_positions
from westbench.groundtruth.importer import GroundTruthImportError, import_run
from westbench.io.frames import read_frames
from westbench.tica import fit_groundtruth

from ..tica.synthetic import synthetic_protein

AMINO = "ACDEFGHIKLMNPQRSTVWY"
THREE = dict(zip(AMINO, "ALA CYS ASP GLU PHE GLY HIS ILE LYS LEU MET ASN PRO GLN ARG SER THR VAL TRP TYR".split()))
BACKBONE = (("N", -0.12), ("CA", 0.0), ("C", 0.12), ("O", 0.2))  # offsets (nm) along x from the C-alpha
N_WATERS = 5


def construct(sequence):
    """A backbone topology of ``sequence`` (residues numbered from 1) with a few waters after the protein."""
    top = mdtraj.Topology()
    chain = top.add_chain()
    for number, letter in enumerate(sequence, start=1):
        residue = top.add_residue(THREE[letter], chain, resSeq=number)
        for name, _ in BACKBONE:
            top.add_atom(name, mdtraj.element.get_by_symbol(name[0]), residue)
    water_chain = top.add_chain()
    for number in range(N_WATERS):
        residue = top.add_residue("HOH", water_chain, resSeq=number + 1)
        top.add_atom("O", mdtraj.element.oxygen, residue)
    return top


def atoms_of(ca):
    """(frames, residues * 4 + waters, 3): backbone atoms around each C-alpha, waters far away."""
    offsets = np.array([[dx, 0.0, 0.0] for _, dx in BACKBONE], dtype=np.float32)
    backbone = (ca[:, :, None, :] + offsets[None, None]).reshape(len(ca), -1, 3)
    waters = np.full((len(ca), N_WATERS, 3), 9.0, dtype=np.float32)
    return np.concatenate([backbone, waters], axis=1)


@pytest.fixture(scope="module")
def foreign(tmp_path_factory):
    """Three DCD runs of a 270-residue construct, its topology PDB, and the prepared protein (residues 11-260)."""
    folder = tmp_path_factory.mktemp("foreign")
    sequence = "".join(np.random.default_rng(0).choice(list(AMINO), size=270))
    runs, states, _ = synthetic_protein(n_residues=270, n_frames=600, n_runs=3, seed=21)
    top = construct(sequence)
    mdtraj.Trajectory(atoms_of(runs[0][:1]), top).save_pdb(str(folder / "system.pdb"))
    for index, ca in enumerate(runs):
        mdtraj.Trajectory(atoms_of(ca), top).save_dcd(str(folder / f"run{index}.dcd"))
    protein = construct(sequence[10:260]).subset(construct(sequence[10:260]).select("protein"))
    mdtraj.Trajectory(atoms_of(runs[0][:1, 10:260])[:, : 250 * 4], protein).save_pdb(str(folder / "prepared.pdb"))
    return folder, runs, states


def outputs(folder):
    folder.mkdir(parents=True, exist_ok=True)
    return {name: folder / f"{name}.{ext}" for name, ext in (("trajectory", "dcd"), ("topology", "pdb"))} | {
        "frames": folder / "frames.h5"
    }


def test_a_residue_range_imports_the_prepared_residues_and_tica_fits_them(foreign, tmp_path):
    folder, runs, states = foreign
    paths = []
    for index in range(3):
        target = tmp_path / f"run{index}"
        summary = import_run(
            folder / f"run{index}.dcd",
            folder / "system.pdb",
            folder / "prepared.pdb",
            outputs(target),
            protein="big",
            start=f"run{index}",
            interval_ps=2.0,
            residues="11-260",
        )
        assert summary["residues"] == 250 and summary["residues_selected"] == "11-260"
        paths.append(target / "frames.h5")
    frames = read_frames(paths[1])
    assert frames["ca"].shape == (600, 250, 3) and np.allclose(frames["ca"], runs[1][:, 10:260], atol=1e-5)
    assert np.allclose(frames["time_ps"], np.arange(1, 601) * 2.0) and frames.attrs["source"] == "import"
    model, projected = fit_groundtruth(
        paths, "big", 5, 2, features={"max_features": 300}, reference=ca_positions(folder / "prepared.pdb"), seed=1
    )
    assert model.features.selection == "contacts" and model.metadata["runs_from"] == "import"
    assert model.lag_ps == pytest.approx(10.0)
    assert abs(np.corrcoef(projected["tics"][:, 0], np.concatenate(states)[:, 0])[0, 1]) > 0.9


def test_an_mdtraj_selection_and_forces_of_the_whole_topology(foreign, tmp_path):
    folder, runs, _ = foreign
    n_atoms = 270 * 4 + N_WATERS
    forces = np.random.default_rng(1).normal(size=(600, n_atoms, 3)).astype(np.float32)
    np.savez(tmp_path / "forces.npz", forces=forces)
    import_run(
        folder / "run0.dcd",
        folder / "system.pdb",
        folder / "prepared.pdb",
        outputs(tmp_path / "out"),
        protein="big",
        start="run0",
        interval_ps=2.0,
        residues="chainid 0 and resSeq 11 to 260 and name CA",  # whole residues are kept
        forces=tmp_path / "forces.npz",
        stride=3,
    )
    frames = read_frames(tmp_path / "out" / "frames.h5")
    ca_rows = np.arange(10, 260) * 4 + 1  # each residue's C-alpha in the whole topology
    assert np.array_equal(frames["forces"], forces[::3][:, ca_rows])
    assert mdtraj.load(str(tmp_path / "out" / "topology.pdb")).n_atoms == 250 * 4  # residues whole, no waters


def test_without_a_selection_the_error_names_the_range_to_set(foreign, tmp_path):
    folder, _, _ = foreign
    kwargs = {"protein": "big", "start": "run0", "interval_ps": 2.0}
    args = (folder / "run0.dcd", folder / "system.pdb", folder / "prepared.pdb", outputs(tmp_path / "a"))
    with pytest.raises(GroundTruthImportError, match=r'270 residues.*groundtruth\.import\.residues: "11-260"'):
        import_run(*args, **kwargs)
    with pytest.raises(GroundTruthImportError, match=r"groundtruth\.import\.residues 'resSeq 900 to 950' selects no"):
        import_run(*args, residues="resSeq 900 to 950", **kwargs)
    with pytest.raises(GroundTruthImportError, match=r"neither a residue range .* nor an mdtraj selection"):
        import_run(*args, residues="resid ((", **kwargs)


def test_external_samples_take_the_same_selection(foreign):
    folder, runs, _ = foreign
    expected = "".join(residue.code for residue in mdtraj.load_topology(str(folder / "prepared.pdb")).residues)
    with pytest.raises(ExternalSamplesError, match=r'external\.mine\.residues: "11-260"'):
        CAReader(folder / "system.pdb", expected, "mine")
    reader = CAReader(folder / "system.pdb", expected, "mine", residues="11-260")
    assert np.allclose(reader.read(folder / "run2.dcd"), runs[2][:, 10:260], atol=1e-5)
