"""Recompute the Kremer-Grest melt's <R^2>, <Rg^2> and their ratio from the agent's dump of unwrapped coordinates;
tie the dump to the run.

Every setting is read back from what LAMMPS wrote (the log's input echo after variable substitution, read_data's
atom and bond counts, the fixes active during each run, the thermo columns, the dump header); the chains (molecule
IDs, bead order, bonds) come from the task image's data file, never from the agent's; every dump frame is rerun
through LAMMPS with the stated model and must give the log's bond and pair energies at that step.
"""

import math
import os
import re
import sys

import lammpskit
import numpy as np
from verifykit import load_json, main

OUT = "/app/output"
DATA = "/app/inputs/kg_melt.data"
N_CHAINS, N_BEADS = 40, 20
N_ATOMS, N_BONDS = N_CHAINS * N_BEADS, N_CHAINS * (N_BEADS - 1)
TEMPERATURE, DAMP, DT, WCA = 1.0, 2.0, 0.01, 2 ** (1 / 6)
EQUIL_STEPS, PROD_STEPS, THERMO_EVERY, DUMP_EVERY = 5000, 20000, 500, 500
FENE = [30.0, 1.5, 1.0, 1.0]  # K, R0, epsilon, sigma
# <R^2> and <Rg^2> of the reference protocol over velocity seeds 1, 2, 3 (the task image, 2026-12-07); the windows
# are set in MEASURED below from them.
R2_WINDOW, RG2_WINDOW = (20.0, 40.0), (3.5, 6.5)

# fix styles that integrate or thermostat the atoms
DYNAMICS = {"nvt", "nve", "npt", "nph", "langevin", "temp/berendsen", "temp/rescale", "temp/csvr", "nvt/sllod", "gld",
            "nve/limit", "gle", "temp/csld", "nvk", "nve/noforce", "viscous", "momentum"}  # fmt: skip


def read_data(path):
    """The data file's box lengths, {atom id: molecule id} and bonds (pairs of atom ids)."""
    lines = open(path).read().splitlines()
    box, section, mols, bonds = [0.0, 0.0, 0.0], None, {}, []
    for line in lines:
        words = line.split("#")[0].split()
        for k, axis in enumerate("xyz"):
            if len(words) == 4 and words[2:] == [f"{axis}lo", f"{axis}hi"]:
                box[k] = float(words[1]) - float(words[0])
        if len(words) == 1 and words[0] in ("Atoms", "Bonds", "Masses", "Velocities"):
            section = words[0]
        elif section == "Atoms" and len(words) >= 6:
            mols[int(words[0])] = int(words[1])
        elif section == "Bonds" and len(words) == 4:
            bonds.append((int(words[2]), int(words[3])))
    return np.array(box), mols, np.array(bonds)


def chain_statistics(frames, mols):
    """Per frame: the mean over chains of R^2 (last bead minus first, by atom id) and of Rg^2 (about the centre)."""
    ids = np.array(sorted(mols))
    chains = [ids[[mols[i] == m for i in ids]] for m in sorted(set(mols.values()))]
    r2, rg2 = [], []
    for _, _, columns in frames:
        xyz = np.column_stack([columns["xu"], columns["yu"], columns["zu"]])
        index = {int(a): k for k, a in enumerate(columns["id"])}
        per_r2, per_rg2 = [], []
        for chain in chains:
            r = xyz[[index[a] for a in chain]]
            per_r2.append(((r[-1] - r[0]) ** 2).sum())
            per_rg2.append(((r - r.mean(axis=0)) ** 2).sum(axis=1).mean())
        r2.append(np.mean(per_r2))
        rg2.append(np.mean(per_rg2))
    return np.array(r2), np.array(rg2)


def rerun_energies(dump, work="/tmp/rerun"):
    """{step: (E_bond, E_pair) per atom} of every dump frame under the stated model, by LAMMPS's rerun."""
    os.makedirs(work, exist_ok=True)
    setup = (
        f"units lj\natom_style bond\nread_data {DATA}\nbond_style fene\nbond_coeff 1 {' '.join(map(str, FENE))}\n"
        f"special_bonds lj 0.0 1.0 1.0\npair_style lj/cut {WCA!r}\npair_coeff 1 1 1.0 1.0 {WCA!r}\n"
        "pair_modify shift yes\nthermo_style custom step ebond epair\nthermo_modify format float %.12g norm yes\n"
        f"thermo 1\nrerun {dump} dump x y z box yes"
    )
    screen = lammpskit.run(setup, cwd=work, timeout=120)
    out = {}
    for header, rows in lammpskit.thermo_blocks(screen):
        for row in rows:
            out[int(row[0])] = (row[header.index("E_bond")], row[header.index("E_pair")])
    return out


def verify(checks):
    for name in ("in.kg", "log.lammps", "chains.lammpstrj", "result.json"):
        checks.require(f"{name} exists", os.path.isfile(f"{OUT}/{name}"), f"{OUT}/{name} missing")
    log = open(f"{OUT}/log.lammps").read() if os.path.isfile(f"{OUT}/log.lammps") else ""
    last = {}
    for words in lammpskit.echo_commands(log):
        last.setdefault(words[0], []).append(words)
    plan = [(lammpskit.run_steps(words), fixes) for words, fixes in lammpskit.runs(log) if words[0] == "run"]
    finished = lammpskit.loop_atoms(log)
    runs = [(head, np.array(rows)) for head, rows in lammpskit.thermo_blocks(log)[: len(finished)]]
    with checks.check("log.lammps is LAMMPS 29 Sep 2021's log with its input echo and two runs of 800 atoms"):
        assert (lammpskit.version(log) or "").startswith("29 Sep 2021"), (
            f"first line {log.splitlines()[0] if log else ''!r}"
        )
        assert len(runs) == 2 and len(plan) == 2, f"{len(runs)} thermo tables, {len(plan)} run commands, expected 2"
        assert finished == [N_ATOMS, N_ATOMS], f"loops over {finished} atoms"
    header, production = runs[-1] if runs else ([], np.zeros((0, 0)))
    with checks.check(
        "reduced units, atom_style bond, the melt read from /app/inputs/kg_melt.data (800 atoms, 760 bonds)"
    ):
        assert [w[1:] for w in last.get("units", [])] == [["lj"]], f"units {last.get('units')}"
        assert [w[1:] for w in last.get("atom_style", [])] == [["bond"]], f"atom_style {last.get('atom_style')}"
        assert [w[1:] for w in last.get("read_data", [])] == [[DATA]], f"read_data {last.get('read_data')}"
        assert re.findall(r"^\s+(\d+) atoms$", log, re.M) == [str(N_ATOMS)], "read_data did not read 800 atoms"
        assert re.findall(r"^\s+(\d+) bonds$", log, re.M) == [str(N_BONDS)], "read_data did not read 760 bonds"
        edits = {
            "create_atoms",
            "delete_atoms",
            "delete_bonds",
            "create_bonds",
            "displace_atoms",
            "change_box",
            "replicate",
            "read_restart",
            "set",
        }
        assert not set(last) & edits, "the system is changed after read_data"
    with checks.check("FENE bonds K 30, R0 1.5, epsilon = sigma = 1 (log echo)"):
        assert [w[1:] for w in last.get("bond_style", [])] == [["fene"]], f"bond_style {last.get('bond_style')}"
        coeffs = last.get("bond_coeff", [])
        assert coeffs and all(w[1] in ("1", "*") for w in coeffs), f"bond_coeff {coeffs}"
        assert [float(v) for v in coeffs[-1][2:]] == FENE, f"bond_coeff {coeffs[-1]}"
    with checks.check("WCA pairs: lj/cut at 2^(1/6) sigma, epsilon = sigma = 1, shifted (log echo)"):
        styles = last.get("pair_style", [])
        assert styles and styles[-1][1] == "lj/cut" and abs(float(styles[-1][2]) - WCA) < 1e-6, f"pair_style {styles}"
        coeffs = last.get("pair_coeff", [])
        assert coeffs and coeffs[-1][1:3] in (["1", "1"], ["*", "*"]), f"pair_coeff {coeffs}"
        values = [float(v) for v in coeffs[-1][3:]]
        assert values[:2] == [1.0, 1.0] and all(abs(v - WCA) < 1e-6 for v in values[2:]), f"pair_coeff {coeffs[-1]}"
        modify = " ".join(" ".join(w[1:]) for w in last.get("pair_modify", []))
        assert re.search(r"\bshift yes\b", modify), f"pair_modify {modify!r}"
    with checks.check("special_bonds lj 0 1 1 (log echo)"):
        words = last.get("special_bonds", [[]])[-1][1:]
        if words[:1] == ["fene"]:
            words = ["lj", "0", "1", "1"]
        assert "lj" in words or "lj/coul" in words, f"special_bonds {words}"
        k = words.index("lj") if "lj" in words else words.index("lj/coul")
        assert [float(v) for v in words[k + 1 : k + 4]] == [0.0, 1.0, 1.0], f"special_bonds {words}"
    with checks.check("velocities drawn at T 1.0, timestep 0.01"):
        velocity = last.get("velocity", [])
        assert len(velocity) == 1 and velocity[0][1:3] == ["all", "create"] and float(velocity[0][3]) == TEMPERATURE, (
            f"velocity {velocity}"
        )
        assert [float(w[1]) for w in last.get("timestep", [])] == [DT], f"timestep {last.get('timestep')}"
    with checks.check("both runs: fix nve and fix langevin 1.0 1.0 2.0 on all atoms and nothing else that moves them"):
        for (steps, fixes), want in zip(plan, (EQUIL_STEPS, PROD_STEPS)):
            assert steps == want, f"a run of {steps} steps, expected {want}"
            moving = sorted((w for w in fixes.values() if w[3] in DYNAMICS or "temp" in w[3]), key=lambda w: w[3])
            assert [w[2:4] for w in moving] == [["all", "langevin"], ["all", "nve"]], f"fixes {list(fixes.values())}"
            assert [float(v) for v in moving[0][4:7]] == [TEMPERATURE, TEMPERATURE, DAMP], moving[0]
            extra = moving[0][8:]  # zero and tally leave the dynamics alone; gjf, scale, angmom, omega change them
            assert len(extra) % 2 == 0 and set(extra[::2]) <= {"zero", "tally"}, f"fix langevin keywords {extra}"
    with checks.check("the production's thermo: steps 0-20000 every 500, step temp pe ebond epair press"):
        assert header == ["Step", "Temp", "PotEng", "E_bond", "E_pair", "Press"], f"thermo columns {header}"
        steps = production[:, 0]
        assert steps[0] == 0 and steps[-1] == PROD_STEPS and np.all(np.diff(steps) == THERMO_EVERY), (
            f"production thermo steps {steps[0]:g}-{steps[-1]:g}"
        )
        assert "norm" not in " ".join(" ".join(w) for w in last.get("thermo_modify", [])), "thermo_modify norm"
    with checks.check("the production's mean temperature within 0.03 of 1.0"):
        temp = production[1:, header.index("Temp")].mean()
        assert abs(temp - TEMPERATURE) <= 0.03, f"mean production temperature {temp:.4f}"
    box, mols, bonds = read_data(DATA)
    frames = []
    with checks.check(
        "chains.lammpstrj: id mol xu yu zu of the 800 beads every 500 steps, 0-20000, the data file's box and chains"
    ):
        frames = lammpskit.read_dump(f"{OUT}/chains.lammpstrj")
        steps = [f[0] for f in frames]
        assert steps == list(range(0, PROD_STEPS + 1, DUMP_EVERY)), (
            f"dump steps {steps[:2]}...{steps[-1:]} ({len(steps)})"
        )
        for step, bounds, columns in frames:
            assert {"id", "mol", "xu", "yu", "zu"} <= set(columns), f"step {step}: columns {sorted(columns)}"
            assert [int(a) for a in columns["id"]] == sorted(mols), f"step {step}: not the 800 beads of the data file"
            assert all(mols[int(a)] == int(m) for a, m in zip(columns["id"], columns["mol"])), f"step {step}: mol ids"
            assert np.allclose(np.diff(bounds).ravel(), box, rtol=1e-8), f"step {step}: box {np.diff(bounds).ravel()}"
    with checks.check(
        "the dump's coordinates are unwrapped: every bond of the data file shorter than R0 = 1.5 in every frame"
    ):
        assert frames, "no dump frames"
        longest = 0.0
        for step, _, columns in frames:
            names = ["xu", "yu", "zu"] if "xu" in columns else ["x", "y", "z"]  # wrapped ones fail by their bonds
            xyz = np.column_stack([columns[name] for name in names])
            index = {int(a): k for k, a in enumerate(columns["id"])}
            i, j = [index[a] for a in bonds[:, 0]], [index[a] for a in bonds[:, 1]]
            longest = max(longest, float(np.sqrt(((xyz[i] - xyz[j]) ** 2).sum(axis=1)).max()))
        assert longest < FENE[1], f"a bond {longest:.3f} long in the dump's coordinates (wrapped, or not these chains)"
    with checks.check(
        "the dump comes from the run: a LAMMPS rerun of every frame gives the log's E_bond and E_pair (1e-6)"
    ):
        assert frames, "no dump frames to rerun"
        energies = rerun_energies(f"{OUT}/chains.lammpstrj")
        logged = {int(row[0]): (row[header.index("E_bond")], row[header.index("E_pair")]) for row in production}
        worst = 0.0
        for step, _, _ in frames:
            assert step in energies and step in logged, f"step {step} missing from the rerun or the log"
            for got, want in zip(energies[step], logged[step]):
                worst = max(worst, abs(got - want) / max(abs(want), 1e-3))
        assert worst <= 1e-6, f"largest relative energy difference {worst:.3g}"
    result = {}
    with checks.check("result.json readable"):
        result = load_json(f"{OUT}/result.json")
        assert {"R2", "Rg2", "ratio"} <= set(result), sorted(result)
        assert all(isinstance(result[k], (int, float)) and math.isfinite(result[k]) for k in ("R2", "Rg2", "ratio"))
    r2, rg2 = chain_statistics(frames[1:], mols) if len(frames) > 1 else (np.zeros(1), np.ones(1))
    R2, Rg2 = float(r2.mean()), float(rg2.mean())
    with checks.check(
        "R2 = <R^2> over 40 chains and the 40 frames of steps 500-20000, recomputed from the dump (1e-6)"
    ):
        assert abs(float(result["R2"]) - R2) <= 1e-6 * R2, f"R2 {result['R2']} != {R2:.6g} (numpy, the dump)"
    with checks.check("Rg2 = <Rg^2> about each chain's centre, over the same frames, recomputed from the dump (1e-6)"):
        assert abs(float(result["Rg2"]) - Rg2) <= 1e-6 * Rg2, f"Rg2 {result['Rg2']} != {Rg2:.6g} (numpy, the dump)"
    with checks.check("ratio = <R^2> / <Rg^2> of the recomputed averages (1e-6)"):
        assert abs(float(result["ratio"]) - R2 / Rg2) <= 1e-6 * R2 / Rg2, f"ratio {result['ratio']} != {R2 / Rg2:.6g}"
    with checks.check("the melt's <R^2> and <Rg^2> within the protocol's windows (20-40 and 3.5-6.5)"):
        assert R2_WINDOW[0] <= R2 <= R2_WINDOW[1] and RG2_WINDOW[0] <= Rg2 <= RG2_WINDOW[1], (
            f"<R^2> {R2:.4g}, <Rg^2> {Rg2:.4g} from the dump"
        )


sys.exit(main(verify))
