"""Bad inputs as a table: each case gets a clear error naming the file or key and the fix, and leaves
every file made before it as it was (checksums).

Library-level cases call the function a rule's script calls (seconds); config cases ask ``snakemake -n``
(marked ``workflow``). The same list is the table "Bad inputs and their errors" in docs/configuration.md.
"""

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import mdtraj
import numpy as np
import pytest
import yaml

from westbench.errors import ConfigError, WestbenchError

from ..conftest import REPO, snakemake

SEQUENCE = ["GLY", "TYR", "ASP", "PRO", "GLU"]


def checksums(folder: Path) -> dict:
    return {
        p.relative_to(folder): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and ".snakemake" not in p.parts
    }


def peptide(folder: Path, n_frames: int = 4, residues=SEQUENCE, name: str = "a", seed: int = 1) -> dict:
    """A C-alpha-only 'prepared' five-residue peptide and a trajectory of it (mdtraj HDF5, times included)."""
    top = mdtraj.Topology()
    chain = top.add_chain()
    for residue in residues:
        top.add_atom("CA", mdtraj.element.carbon, top.add_residue(residue, chain))
    rng = np.random.default_rng(seed)
    xyz = np.cumsum(rng.normal(0.2, 0.05, size=(n_frames, len(residues), 3)), axis=1).astype(np.float32)
    traj = mdtraj.Trajectory(xyz, top, time=np.arange(1, n_frames + 1, dtype=float))
    folder.mkdir(parents=True, exist_ok=True)
    traj[0].save_pdb(str(folder / "prepared.pdb"))
    traj.save_hdf5(str(folder / f"{name}.h5"))
    return {"pdb": folder / "prepared.pdb", "traj": folder / f"{name}.h5", "top": top, "xyz": xyz}


def outputs(folder: Path) -> dict:
    folder.mkdir(parents=True, exist_ok=True)
    return {
        "trajectory": folder / "trajectory.xtc",
        "topology": folder / "topology.pdb",
        "frames": folder / "frames.h5",
    }


# -- library cases: (tmp) -> a call that must raise ---------------------------------------------------------


def external(tmp, **spec):
    from westbench.external import import_samples

    files = peptide(tmp / "in")
    spec = {
        "kind": "trajectories",
        "trajectories": str(files["traj"]),
        "topology": None,
        "weights": None,
        "stride": 1,
        "save_interval_ps": 1.0,
        **{k: (v(files) if callable(v) else v) for k, v in spec.items()},
    }
    return lambda: import_samples(
        spec, files["pdb"], tmp / "out" / "frames.h5", tmp / "out" / "cost.csv", engine="byo", protein="p"
    )


def external_with(tmp, change, **spec):
    """An external engine reading the peptide trajectory after ``change(files)`` rewrote its inputs."""
    call = external(tmp, **spec)
    change(peptide(tmp / "in"))
    return call


def nan_and_far(files):
    traj = mdtraj.load(str(files["traj"]))
    traj.xyz[1, 2, 0], traj.xyz[3, 0, 1] = np.nan, 1e6
    traj.save_hdf5(str(files["traj"]))


def weights(values):
    def write(files):
        np.save(files["traj"].with_suffix(".npy"), np.asarray(values, dtype=float))

    return write


def other_sequence(files):
    mdtraj.Trajectory(
        files["xyz"], peptide(files["pdb"].parent / "other", residues=["GLY", "PHE", "ASP", "PRO", "GLU"])["top"]
    ).save_hdf5(str(files["traj"]))


def copied(files):
    """A copy of the trajectory under another name (the same samples given twice)."""
    (files["traj"].parent / "b.h5").write_bytes(files["traj"].read_bytes())


def fewer_atoms(files):
    mdtraj.Trajectory(files["xyz"][:, :4], files["top"].subset(range(4))).save_hdf5(str(files["traj"]))


def imported(tmp, change=None, **kwargs):
    from westbench.groundtruth.importer import import_run

    files = peptide(tmp / "in")
    if change:
        change(files)
    kwargs.setdefault("trajectory", files["traj"])
    trajectory = kwargs.pop("trajectory")
    return lambda: import_run(
        trajectory(files) if callable(trajectory) else trajectory,
        kwargs.pop("topology", None),
        files["pdb"],
        outputs(tmp / "out"),
        protein="p",
        start="run_a",
        **kwargs,
    )


def forces_file(array_of):
    def write(files):
        np.savez(files["pdb"].parent / "forces.npz", forces=array_of(files))

    return write


def structure(tmp, content, **entry):
    from westbench.config import ProteinSpec
    from westbench.structures.acquire import acquire_structure

    path = tmp / "in" / "structure.pdb"
    path.parent.mkdir(parents=True)
    if content is not None:
        path.write_text(content(tmp) if callable(content) else content)
    fields = {
        "protein_id": "p",
        "name": "p",
        "pdb_id": None,
        "sequence": "GYDPETGTWG",
        "chains": None,
        "residues": None,
        "source": "file",
        "path": str(path),
        **entry,
    }
    spec = ProteinSpec(
        fields["protein_id"],
        fields["name"],
        fields["pdb_id"],
        fields["sequence"],
        fields["chains"],
        fields["residues"],
        fields["source"],
        fields["path"],
    )
    return lambda: acquire_structure(spec, tmp / "out" / "structure.pdb")


def chignolin_pdb(tmp):
    return (REPO.parent / "shared" / "structures" / "1UAO.pdb").read_text()


def task_folder(tmp, toml):
    from westbench.agents.tasks import load_task

    folder = tmp / "in" / "tasks" / "mytask"
    folder.mkdir(parents=True)
    if toml is not None:
        (folder / "task.toml").write_text(toml)
    return lambda: load_task(folder)


def select_tasks(tmp):
    from westbench.agents.tasks import select_tasks

    return lambda: select_tasks(["md-setup", "free-energy"], ["md-setpu"])


def agents(section):
    from westbench.plan.agents import check_gate_agents, selected_entries

    base = {
        "agents": [{"name": "oracle"}, {"name": "nop"}],
        "gate": {"reference": "oracle", "null": "nop"},
        "select": {},
    }
    base.update(section)
    return lambda tmp: lambda: (check_gate_agents(base), selected_entries(base))


def crashing_engine(tmp):
    from westbench.we.run import run_we

    cfg = {
        "engine": {"class": "tests.unit.we.toy:RaisingDoubleWell", "options": {"fail_after": 2}},
        "pcoord": {"type": "position", "ndim": 2},
        "seed": 1,
        "bins_per_dim": 5,
        "walkers_per_bin": 2,
        "steps_per_segment": 20,
        "save_every": 10,
    }
    (tmp / "in").mkdir()
    (tmp / "in" / "made_before.txt").write_text("a file of an earlier job")
    return lambda: run_we(tmp / "out" / "we", cfg=cfg, segs_per_state=2, max_iterations=3)


@dataclass
class Case:
    id: str
    # kind: what is bad: config, PDB, structure source, trajectories, topology, forces, weights, tasks, agents, engine
    kind: str
    make: Callable  # tmp -> a call that raises
    error: type
    names: str  # a regex: the file or key the message must name
    fix: str  # a regex: the fix the message must give


CASES = [
    Case(
        "structure-file-missing",
        "structure source",
        lambda t: structure(t, None),
        WestbenchError,
        r"structure file \S*structure\.pdb does not exist",
        r"fix `path` in its config entry",
    ),
    Case(
        "pdb-does-not-parse",
        "PDB",
        lambda t: structure(t, "ATOM  garbage\nnot a pdb\n"),
        WestbenchError,
        r"\S*structure\.pdb does not parse",
        r"Replace it with a valid file",
    ),
    Case(
        "pdb-without-atoms",
        "PDB",
        lambda t: structure(t, "REMARK nothing here\nEND\n"),
        WestbenchError,
        r"\S*structure\.pdb holds no atoms",
        r"coordinate file in PDB or PDBx/mmCIF format",
    ),
    Case(
        "pdb-other-sequence",
        "PDB",
        lambda t: structure(t, chignolin_pdb, sequence="GYDPETGTWA"),
        WestbenchError,
        r"sequence mismatch in \S*structure\.pdb",
        r"fix `sequence`",
    ),
    Case(
        "pdb-chain-missing",
        "structure source",
        lambda t: structure(t, chignolin_pdb, chains=("B",)),
        WestbenchError,
        r"\S*structure\.pdb has no chain B",
        r"fix `chains`",
    ),
    Case(
        "import-trajectory-missing",
        "trajectories",
        lambda t: imported(t, trajectory=t / "in" / "gone.xtc"),
        WestbenchError,
        r"\S*gone\.xtc does not exist",
        r"check groundtruth\.import\.trajectories",
    ),
    Case(
        "import-trajectory-nan",
        "trajectories",
        lambda t: imported(t, nan_and_far),
        WestbenchError,
        r"\S*a\.h5: frame 1 has coordinate nan nm at C-alpha 2 \(ASP\d\)",
        r"on_nonfinite: drop",
    ),
    Case(
        "import-trajectory-other-sequence",
        "trajectories",
        lambda t: imported(t, other_sequence),
        WestbenchError,
        r"\S*a\.h5 .*has C-alpha sequence GFDPE",
        r"import trajectories of the configured sequence",
    ),
    Case(
        "import-topology-unreadable",
        "topology",
        lambda t: imported(
            t, lambda f: (f["pdb"].parent / "top.gro").write_text("junk"), topology=t / "in" / "top.gro"
        ),
        WestbenchError,
        r"topology \S*top\.gro cannot be read",
        r"set groundtruth\.import\.topology",
    ),
    Case(
        "import-topology-other-atoms",
        "topology",
        lambda t: imported(
            t,
            lambda f: mdtraj.Trajectory(f["xyz"][:1, :3], f["top"].subset(range(3))).save_pdb(
                str(f["pdb"].parent / "three.pdb")
            ),
            topology=t / "in" / "three.pdb",
        ),
        WestbenchError,
        r"\S*a\.h5 \(topology \S*three\.pdb\) has C-alpha sequence GYD \(3 residues\)",
        r"import trajectories of the configured sequence",
    ),
    Case(
        "forces-missing",
        "forces",
        lambda t: imported(t, forces=t / "in" / "none.npz"),
        WestbenchError,
        r"force file \S*none\.npz does not exist",
        r"set forces to null",
    ),
    Case(
        "forces-wrong-shape",
        "forces",
        lambda t: imported(t, forces_file(lambda f: np.zeros((3, 5, 3))), forces=t / "in" / "forces.npz"),
        WestbenchError,
        r"force file \S*forces\.npz holds shape \(3, 5, 3\)",
        r"one row per trajectory frame",
    ),
    Case(
        "forces-non-finite",
        "forces",
        lambda t: imported(t, forces_file(lambda f: np.full((4, 5, 3), np.nan)), forces=t / "in" / "forces.npz"),
        WestbenchError,
        r"force file \S*forces\.npz: frame 0 has a non-finite force on C-alpha 0",
        r"write the forces again",
    ),
    Case(
        "external-nan-and-far",
        "trajectories",
        lambda t: external_with(t, nan_and_far),
        WestbenchError,
        r"external engine 'byo': \S*a\.h5: frame 1 has coordinate nan nm at C-alpha 2 \(residue D3\) \(2 of 4",
        r"on_nonfinite: drop",
    ),
    Case(
        "external-other-sequence",
        "trajectories",
        lambda t: external_with(t, other_sequence),
        WestbenchError,
        r"\S*a\.h5 has C-alpha sequence GFDPE \(5 C-alpha atoms\)",
        r"give samples of the configured protein",
    ),
    Case(
        "external-fewer-c-alphas",
        "trajectories",
        lambda t: external_with(t, fewer_atoms),
        WestbenchError,
        r"\S*a\.h5 has C-alpha sequence GYDP \(4 C-alpha atoms\); the protein was prepared as GYDPE \(5\)",
        r"give samples of the configured protein",
    ),
    Case(
        "external-same-trajectory-twice",
        "trajectories",
        lambda t: external_with(t, copied, trajectories=lambda f: [str(f["traj"]), str(f["traj"].parent / "b.h5")]),
        WestbenchError,
        r"external\.byo\.trajectories gives the same trajectory twice: \S*a\.h5 and \S*b\.h5 \(identical content\)",
        r"list each trajectory once in external\.byo\.trajectories",
    ),
    Case(
        "external-glob-matches-nothing",
        "trajectories",
        lambda t: external(t, trajectories="/nowhere/*.dcd"),
        WestbenchError,
        r"trajectories '/nowhere/\*\.dcd' match no file",
        r"set external\.byo\.trajectories",
    ),
    Case(
        "external-topology-other-atoms",
        "topology",
        lambda t: external_with(
            t,
            lambda f: (
                mdtraj.Trajectory(f["xyz"][:1, :4], f["top"].subset(range(4))).save_pdb(
                    str(f["pdb"].parent / "four.pdb")
                ),
                mdtraj.Trajectory(f["xyz"], f["top"]).save_dcd(str(f["pdb"].parent / "a.dcd")),
            ),
            trajectories=lambda f: str(f["pdb"].parent / "a.dcd"),
            topology=lambda f: str(f["pdb"].parent / "four.pdb"),
        ),
        WestbenchError,
        r"\S*four\.pdb has C-alpha sequence GYDP|\S*a\.dcd cannot be read with topology \S*four\.pdb",
        r"give samples of the configured protein|same count and order",
    ),
    Case(
        "weights-negative",
        "weights",
        lambda t: external_with(t, weights([1, -1, 1, 1]), weights=lambda f: str(f["pdb"].parent / "{name}.npy")),
        WestbenchError,
        r"weights \S*a\.npy: frame 1 has weight -1, below zero",
        r"finite, non-negative",
    ),
    Case(
        "weights-nan",
        "weights",
        lambda t: external_with(t, weights([1, 1, np.nan, 1]), weights=lambda f: str(f["pdb"].parent / "{name}.npy")),
        WestbenchError,
        r"weights \S*a\.npy: frame 2 has weight nan, not finite",
        r"finite, non-negative",
    ),
    Case(
        "weights-all-zero",
        "weights",
        lambda t: external_with(t, weights([0, 0, 0, 0]), weights=lambda f: str(f["pdb"].parent / "{name}.npy")),
        WestbenchError,
        r"weights \S*a\.npy: all 4 weights are zero",
        r"not all zero",
    ),
    Case(
        "weights-wrong-count",
        "weights",
        lambda t: external_with(t, weights([1, 1]), weights=lambda f: str(f["pdb"].parent / "{name}.npy")),
        WestbenchError,
        r"weights \S*a\.npy hold 2 values; \S*a\.h5 has 4 frames",
        r"one weight per frame",
    ),
    Case(
        "weights-missing-file",
        "weights",
        lambda t: external(t, weights=lambda f: str(f["pdb"].parent / "{name}.weights.npy")),
        WestbenchError,
        r"weights \S*a\.weights\.npy cannot be read",
        r"set external\.byo\.weights to null",
    ),
    Case(
        "task-without-task-toml",
        "tasks",
        lambda t: task_folder(t, None),
        WestbenchError,
        r"\S*mytask/task\.toml not found",
        r"needs task\.toml",
    ),
    Case(
        "task-toml-invalid",
        "tasks",
        lambda t: task_folder(t, "[task\nname = 1"),
        WestbenchError,
        r"\S*mytask/task\.toml is not valid TOML",
        r"TOML",
    ),
    Case(
        "task-bad-timeout",
        "tasks",
        lambda t: task_folder(t, "[agent]\ntimeout_sec = -5\n"),
        WestbenchError,
        r"\S*task\.toml: \[agent\]\.timeout_sec",
        r"must be a positive number",
    ),
    Case(
        "tasks-select-unknown",
        "tasks",
        select_tasks,
        WestbenchError,
        r"agents\.select\.tasks names 'md-setpu'",
        r"fix the name or the agents\.tasks_dir",
    ),
    Case(
        "agents-gate-unknown",
        "agents",
        agents({"gate": {"reference": "oracel", "null": "nop"}}),
        ConfigError,
        r"agents\.gate\.reference is 'oracel'",
        r"add \{name: oracel\} to agents\.agents",
    ),
    Case(
        "agents-select-unknown",
        "agents",
        agents({"select": {"agents": ["claude"]}}),
        ConfigError,
        r"agents\.select\.agents names 'claude'",
        r"no id in agents\.agents \(ids: oracle, nop\)",
    ),
    Case(
        "agents-duplicate-id",
        "agents",
        agents({"agents": [{"name": "oracle"}, {"name": "x:oracle"}]}),
        ConfigError,
        r"agents\.agents: two entries have id 'oracle'",
        r"give one an explicit `id`",
    ),
    Case(
        "engine-raises",
        "engine",
        crashing_engine,
        WestbenchError,
        r"WE run in \S*we failed in iteration \d+: FloatingPointError: toy engine crashed",
        r"Fix the cause and rerun",
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input_is_refused_clearly_and_touches_nothing_made_before(case, tmp_path):
    call = case.make(tmp_path)
    before = checksums(tmp_path)
    with pytest.raises(case.error) as raised:
        call()
    message = str(raised.value)
    assert re.search(case.names, message), f"{case.id}: the message does not name the file or key:\n{message}"
    assert re.search(case.fix, message), f"{case.id}: the message gives no fix:\n{message}"
    after = checksums(tmp_path)
    assert {k: after.get(k) for k in before} == before, f"{case.id}: a file made before was changed or removed"
    assert not (tmp_path / "out" / "frames.h5").exists()  # no frames file of refused samples


# -- config cases: snakemake -n with the demo and one bad file --------------------------------------------------

CONFIG_CASES = [
    (
        "wrong-type",
        {"we": {"bins_per_tic": "seven"}},
        r"we\.bins_per_tic: 'seven' is not of type 'integer'",
        r"Fix these entries",
    ),
    (
        "misspelt-key",
        {"we": {"max_iteration": 3}},
        r"we: Additional properties are not allowed \('max_iteration'",
        r"Fix these entries",
    ),
    ("removed-key", {"we": {"coverage_bins": 10}}, r"we\.coverage_bins was removed", r"set metrics\.coverage_bins"),
    (
        "unknown-engine",
        {"we": {"engines": ["gromacs"]}},
        r"we\.engines\[0\]: 'gromacs' is not valid.*'gromacs' does not match",
        r"Fix these entries",
    ),
    (
        "on-nonfinite-value",
        {"on_nonfinite": "skip"},
        r"on_nonfinite: 'skip' is not one of \['error', 'drop'\]",
        r"Fix these entries",
    ),
    (
        "file-source-without-path",
        {"proteins": [{"id": "p", "name": "P", "sequence": "GYDPETGTWG", "source": "file"}]},
        r"proteins\[0\]\.path",
        r"Fix these entries",
    ),
    (
        "duplicate-protein",
        {"proteins": [{"id": "p", "name": "P", "sequence": "GYDPETGTWG", "source": "sequence"}] * 2},
        r"protein ids must be unique, repeated: p",
        r"must be unique",
    ),
    (
        "gate-agent-unknown",
        {"agents": {"gate": {"reference": "nobody"}}},
        r"agents\.gate\.reference is 'nobody'",
        r"add \{name: nobody\} to agents\.agents",
    ),
]


@pytest.mark.workflow
@pytest.mark.parametrize("name, change, names, fix", CONFIG_CASES, ids=[c[0] for c in CONFIG_CASES])
def test_bad_config_is_refused_before_any_job_runs(name, change, names, fix, tmp_path):
    workdir = tmp_path / "run"
    made = workdir / "results" / "chignolin" / "prepare" / "structure.pdb"
    made.parent.mkdir(parents=True)
    made.write_text("an output of an earlier run\n")
    before = checksums(workdir)
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(change))
    result = snakemake(workdir, "-n", "--configfile", REPO / "config" / "config.yaml", bad, configfile=None)
    assert result.returncode != 0
    assert str(bad) in result.output or "agents.gate" in result.output  # the file (schema errors) or the key
    assert re.search(names, result.output), result.output[-2000:]
    assert re.search(fix, result.output), result.output[-2000:]
    assert checksums(workdir) == before
