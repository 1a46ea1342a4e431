"""Recompute the T* = 2.0 isotherm's pressures from the agent's three LAMMPS logs; tie every log to its run.

Every setting is read back from what LAMMPS wrote (each log's input echo after variable substitution, its lattice,
box and atom-count lines, the fixes active during each run, the thermo columns, the dump header); the density is the
box volume's, not the folder's name. Each production's dump, rerun through LAMMPS with the stated pair style and the
dumped velocities, must give the log's potential energy and pressure at every frame; the means and block errors of
eos.csv are recomputed from the logs' own rows.
"""

import os
import re
import sys

import lammpskit as lk
import numpy as np
from verifykit import main

OUT = "/app/output"
DENSITIES = ("0.50", "0.70", "0.85")
N_ATOMS, TEMPERATURE, DT, TDAMP, CUTOFF = 500, 2.0, 0.005, 0.5, 2.5
EQUIL_STEPS, PROD_STEPS, THERMO_EVERY, DUMP_EVERY, BLOCKS = 2500, 20000, 20, 1000, 10
ROWS = PROD_STEPS // THERMO_EVERY
# Mean production pressure of the reference protocol over velocity seeds 1, 2, 3 (the task image, 2026-12-07):
# rho 0.50: 1.0677, 1.0689, 1.0678 (block SE 0.0069-0.0084); 0.70: 3.0017, 3.0145, 3.0168 (0.012-0.022);
# 0.85: 7.0081, 6.9642, 6.9573 (0.022-0.023). The window is the seeds' mean +- about 5 of the largest block SE; the
# tail correction left off moves the means by +0.267, +0.524, +0.772, outside every window. (For comparison only:
# the Johnson-Kolafa-Gubbins 1993 equation of state of the full LJ fluid gives 1.0775, 3.0503, 6.9722 at T* = 2.0.)
REFERENCE_PRESSURE = {"0.50": 1.0681, "0.70": 3.0110, "0.85": 6.9765}
PRESSURE_WINDOW = {"0.50": 0.04, "0.70": 0.10, "0.85": 0.12}

# fix styles that integrate or thermostat the atoms
DYNAMICS = {"nvt", "nve", "npt", "nph", "langevin", "temp/berendsen", "temp/rescale", "temp/csvr", "nvt/sllod", "gld",
            "nve/limit", "gle", "temp/csld", "nvk", "nve/noforce", "press/berendsen", "rigid", "viscous"}  # fmt: skip


def rerun(dump, box, work):
    """{step: (PotEng per atom, Press)} of every frame of ``dump`` (positions, velocities, box) under the stated pair
    style. The 500 atoms are created first (at random; the frames replace their positions and velocities by id):
    the tail correction counts the atoms of each type when the pair style is initialized."""
    lk.fresh_folder(work)
    frames = lk.rerun_thermo(
        f"units lj\natom_style atomic\nregion box block 0 {box} 0 {box} 0 {box}\ncreate_box 1 box\n"
        f"create_atoms 1 random {N_ATOMS} 12345 box\nmass 1 1.0\n"
        f"pair_style lj/cut {CUTOFF}\npair_coeff 1 1 1.0 1.0 {CUTOFF}\npair_modify shift no tail yes\n"
        "thermo_style custom step pe press\nthermo_modify format float %.12g norm yes",
        dump,
        cwd=work,
        timeout=60,
    )
    return {step: (values["PotEng"], values["Press"]) for step, values in frames.items()}


def block_statistics(pressure):
    blocks = pressure.reshape(BLOCKS, -1).mean(axis=1)
    return pressure.mean(), blocks.std(ddof=1) / np.sqrt(BLOCKS)


def each(runs, test):
    """Run ``test(rho, run)`` for every density whose log was read; the failures, joined, fail the check."""
    failed = []
    for rho in DENSITIES:
        try:
            test(rho, runs[rho])
        except (AssertionError, KeyError, IndexError, ValueError, TypeError, lk.LammpsError) as exc:
            failed.append(f"rho {rho}: {type(exc).__name__ if not str(exc) else exc}")
    assert not failed, "; ".join(failed)


def verify(checks):
    for rho in DENSITIES:
        for name in ("in.lj", "log.lammps", "traj.lammpstrj"):
            checks.require(f"rho_{rho}/{name} exists", os.path.isfile(f"{OUT}/rho_{rho}/{name}"), "missing")
    checks.require("eos.csv exists", os.path.isfile(f"{OUT}/eos.csv"), f"{OUT}/eos.csv missing")
    runs = {}
    for rho in DENSITIES:
        log = lk.read_text(f"{OUT}/rho_{rho}/log.lammps")
        plan = [(lk.run_steps(words), fixes) for words, fixes in lk.runs(log) if words[0] == "run"]
        finished = len(lk.loop_atoms(log))
        blocks = [(head, np.array(rows)) for head, rows in lk.thermo_blocks(log)[:finished]]
        last = {}
        for words in lk.echo_commands(log):
            last.setdefault(words[0], []).append(words)
        runs[rho] = {"log": log, "plan": plan, "blocks": blocks, "cmds": last}

    def complete(rho, run):
        log = run["log"]
        assert (lk.version(log) or "").startswith("29 Sep 2021"), f"first line {log.splitlines()[:1]}"
        assert lk.echo_commands(log) == lk.echo_commands(lk.read_text(f"{OUT}/rho_{rho}/in.lj")), (
            "the log's input echo differs from the delivered in.lj"
        )
        assert len(run["blocks"]) == 2 and len(run["plan"]) == 2 and lk.loop_atoms(log) == [N_ATOMS] * 2, (
            f"{len(run['blocks'])} finished runs with atoms {lk.loop_atoms(log)}, expected 2 runs of {N_ATOMS}"
        )

    with checks.check("each log is LAMMPS 29 Sep 2021's, echoes its delivered in.lj and finished two runs"):
        each(runs, complete)

    def density(rho, run):
        cmds, log = run["cmds"], run["log"]
        assert [w[1] for w in cmds.get("units", [])] == ["lj"], f"units {cmds.get('units')}"
        lattice = cmds.get("lattice", [])
        assert len(lattice) == 1 and lattice[0][1] == "fcc", f"lattice {lattice}"
        assert abs(float(lattice[0][2]) - float(rho)) < 1e-9, f"lattice fcc {lattice[0][2]} in rho_{rho}"
        created = re.findall(r"^Created (\d+) atoms", log, re.M)
        assert created == [str(N_ATOMS)], f"created {created} atoms"
        box = re.findall(r"^Created orthogonal box = \(([-\d.e ]+)\) to \(([-\d.e ]+)\)", log, re.M)
        assert len(box) == 1, f"{len(box)} box lines"
        lengths = np.array(box[0][1].split(), float) - np.array(box[0][0].split(), float)
        measured = N_ATOMS / np.prod(lengths)
        assert abs(measured - float(rho)) <= 1e-6 * float(rho), f"500 atoms / box volume = {measured:.7f}"
        for head, rows in run["blocks"]:
            assert "Volume" not in head or np.allclose(rows[:, head.index("Volume")], np.prod(lengths), rtol=1e-7)
        assert not set(cmds) & {
            "change_box",
            "delete_atoms",
            "read_data",
            "read_restart",
            "replicate",
            "displace_atoms",
        }

    with checks.check("reduced units, 500 atoms on an fcc lattice at each folder's density (box volume, 1e-6)"):
        each(runs, density)

    def pair(rho, run):
        cmds = run["cmds"]
        styles = cmds.get("pair_style", [])
        assert len(styles) == 1 and styles[0][1:] == ["lj/cut", str(styles[0][2])] and float(styles[0][2]) == CUTOFF, (
            f"pair_style {styles}"
        )
        modify = " ".join(" ".join(w[1:]) for w in cmds.get("pair_modify", []))
        assert re.search(r"\btail yes\b", modify) and not re.search(r"\bshift yes\b", modify), f"pair_modify {modify!r}"
        for words in cmds.get("pair_coeff", []):
            assert [float(v) for v in words[3:5]] == [1.0, 1.0] and float(
                words[5] if len(words) > 5 else CUTOFF
            ) == CUTOFF
        masses = cmds.get("mass", [])
        assert masses and all(float(w[2]) == 1.0 for w in masses), f"mass {masses}"

    with checks.check("lj/cut 2.5 sigma (epsilon = sigma = 1), not shifted, tail correction on (log echo)"):
        each(runs, pair)

    def timestep(rho, run):
        assert [float(w[1]) for w in run["cmds"].get("timestep", [])] == [DT], f"timestep {run['cmds'].get('timestep')}"
        for head, rows in run["blocks"]:
            dt = np.diff(rows[:, head.index("Time")]) / np.diff(rows[:, 0])
            assert np.allclose(dt, DT, rtol=1e-6), f"Time / Step = {dt.min():g}-{dt.max():g}"

    with checks.check("timestep 0.005 (echo and the thermo Time column)"):
        each(runs, timestep)

    def dynamics(rho, run):
        assert [steps for steps, _ in run["plan"]] == [EQUIL_STEPS, PROD_STEPS], f"runs {[s for s, _ in run['plan']]}"
        for steps, fixes in run["plan"]:
            moving = [w for w in fixes.values() if len(w) > 3 and w[3] in DYNAMICS]
            assert len(moving) == 1 and moving[0][3] == "nvt", f"run of {steps}: fixes {list(fixes.values())}"
            w = moving[0]
            assert w[2] == "all" and w[4] == "temp", w
            assert [float(v) for v in w[5:8]] == [TEMPERATURE, TEMPERATURE, TDAMP] and len(w) == 8, w
        (_, equilibration), (head, production) = run["blocks"]
        assert equilibration[-1, 0] - equilibration[0, 0] == EQUIL_STEPS, "equilibration span"
        steps = production[:, 0]
        assert steps[-1] - steps[0] == PROD_STEPS and np.all(np.diff(steps) == THERMO_EVERY), (
            f"production thermo steps {steps[0]:g}-{steps[-1]:g}, spacing {sorted(set(np.diff(steps)))}"
        )
        assert head[:7] == ["Step", "Time", "Temp", "Press", "PotEng", "KinEng", "TotEng"], f"thermo columns {head}"

    with checks.check("Nose-Hoover NVT at T 2.0 (Tdamp 0.5) in both runs: 2500 then 20000 steps, thermo every 20"):
        each(runs, dynamics)

    def temperature(rho, run):
        head, production = run["blocks"][-1]
        mean = production[1:, head.index("Temp")].mean()
        assert abs(mean - TEMPERATURE) <= 0.03, f"mean production temperature {mean:.4f}"

    with checks.check("each production holds T 2.0 (mean temperature within 0.03)"):
        each(runs, temperature)
    frames = {}

    def dump(rho, run):
        head, production = run["blocks"][-1]
        found = lk.read_dump(f"{OUT}/rho_{rho}/traj.lammpstrj")
        steps = [f[0] for f in found]
        want = list(range(int(production[0, 0]), int(production[-1, 0]) + 1, DUMP_EVERY))
        assert steps == want, f"dump steps {steps[:2]}...{steps[-1:]} ({len(steps)}), the production wants {len(want)}"
        for step, bounds, columns in found:
            box = np.diff(bounds).ravel()
            assert {"id", "x", "y", "z", "vx", "vy", "vz"} <= set(columns) and len(columns["id"]) == N_ATOMS, step
            assert abs(N_ATOMS / np.prod(box) - float(rho)) <= 1e-6 * float(rho), f"density at step {step}"
        frames[rho] = (steps, float(np.diff(found[0][1][0])[0]))

    with checks.check("each dump is its production's: every 1000 steps, 500 atoms with velocities, box at the density"):
        each(runs, dump)

    def tied(rho, run):
        assert rho in frames, "no dump frames to rerun"
        steps, box = frames[rho]
        again = rerun(f"{OUT}/rho_{rho}/traj.lammpstrj", box, f"/tmp/rerun-{rho}")
        head, production = run["blocks"][-1]
        logged = {int(r[0]): (r[head.index("PotEng")], r[head.index("Press")]) for r in production}
        worst = [0.0, 0.0]
        for step in steps:
            assert step in again and step in logged, f"step {step} missing from the rerun or the log"
            for k in (0, 1):
                a, b = again[step][k], logged[step][k]
                worst[k] = max(worst[k], abs(a - b) / (abs(b) + 1.0))
        assert max(worst) <= 1e-6, f"largest difference over |value| + 1: PotEng {worst[0]:.3g}, Press {worst[1]:.3g}"

    with checks.check("the dumps come from the runs: a LAMMPS rerun of every frame gives the log's PotEng and Press"):
        each(runs, tied)
    table = {}
    with checks.check("eos.csv has the contracted header and one row per density, in increasing order"):
        lines = [line.strip() for line in lk.read_text(f"{OUT}/eos.csv").strip().splitlines()]
        assert lines and lines[0].replace(" ", "") == "density,mean_pressure,pressure_block_se", lines[:1]
        rows = [[float(v) for v in line.split(",")] for line in lines[1:]]
        assert len(rows) == len(DENSITIES) and all(len(r) == 3 for r in rows), f"{len(rows)} rows"
        for want, row in zip(DENSITIES, rows, strict=True):
            assert abs(row[0] - float(want)) < 1e-9, f"density {row[0]} where {want} is due"
            table[want] = row

    def statistics(rho, run):
        head, production = run["blocks"][-1]
        pressure = production[1:, head.index("Press")]
        assert len(pressure) == ROWS, f"{len(pressure)} production rows"
        mean, se = block_statistics(pressure)
        _, reported, reported_se = table[rho]
        assert abs(reported - mean) <= 1e-6 * abs(mean) + 1e-9, f"mean pressure {reported} != {mean:.8g} (log)"
        assert abs(reported_se - se) <= 1e-6 * se, f"block SE {reported_se} != {se:.6g} (log)"

    with checks.check("mean pressure and block SE (10 blocks of 100 rows) recomputed from each production's thermo"):
        each(runs, statistics)

    def window(rho, run):
        head, production = run["blocks"][-1]
        value = production[1:, head.index("Press")].mean()
        low, high = REFERENCE_PRESSURE[rho] - PRESSURE_WINDOW[rho], REFERENCE_PRESSURE[rho] + PRESSURE_WINDOW[rho]
        assert low <= value <= high, f"mean pressure {value:.4f} outside {low:.3f}-{high:.3f}"

    with checks.check("each mean pressure within the protocol's window at its density (three seeds)"):
        each(runs, window)


sys.exit(main(verify))
