"""Recompute the Kremer-Grest melt's volume per bead at each temperature, the two straight-line fits and Tg from the
agent's LAMMPS log; tie the log to a run of the delivered protocol.

Every setting is read back from what LAMMPS wrote (the log's input echo after variable substitution, read_data's
atom and bond counts, the fixes active during each run, the thermo columns); the verifier reruns the first 500 steps
of the echoed input (every command before the first run, LAMMPS substituting the agent's own seed) and must find the
log's first thermo rows; every cooling step must start where the one before ended.
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
N_ATOMS, N_BONDS = 400, 380
TEMPS = [1.0, 0.9, 0.8, 0.7, 0.6, 0.55, 0.5, 0.45, 0.4, 0.35, 0.3, 0.25, 0.2]
STEPS, THERMO_EVERY, DT, TDAMP, PDAMP, CUTOFF = 6000, 100, 0.005, 0.5, 5.0, 2.5
FENE = [30.0, 1.5, 1.0, 1.0]  # K, R0, epsilon, sigma
MELT, GLASS = (0.6, 1.0), (0.2, 0.35)  # the fit ranges, both ends included
RERUN_STEPS = 500
COLUMNS = ["Step", "Temp", "Press", "Volume", "PotEng"]
TG_WINDOW = (0.40, 0.60)  # the reference protocol over seeds 2024, 1, 2, 3: Tg 0.514, 0.510, 0.474, 0.497

# fix styles that integrate or thermostat the atoms or change the box
DYNAMICS = {"nvt", "nve", "npt", "nph", "langevin", "temp/berendsen", "temp/rescale", "temp/csvr", "nvt/sllod", "gld",
            "nve/limit", "gle", "temp/csld", "nvk", "nve/noforce", "viscous", "momentum", "press/berendsen",
            "deform", "box/relax", "rigid", "nvt/asphere", "npt/asphere"}  # fmt: skip
# commands that do not belong in the first run's rerun (loops, output, files, shell)
SKIPPED = {"label", "jump", "next", "print", "shell", "log", "dump", "dump_modify", "undump", "write_data",
           "write_restart", "write_dump", "restart", "include", "echo"}  # fmt: skip


def averages(rows, header):
    """Mean Volume / N and Temp over the rows of the last half of a run (steps start + STEPS / 2 to its end)."""
    last_half = rows[:, 0] >= rows[0, 0] + STEPS // 2
    return rows[last_half, header.index("Volume")].mean() / N_ATOMS, rows[last_half, header.index("Temp")].mean()


def fit_tg(temps, volumes):
    """The two least-squares lines (melt, glass) and the temperature where they meet."""
    t, v = np.asarray(temps), np.asarray(volumes)
    melt = (t >= MELT[0] - 1e-9) & (t <= MELT[1] + 1e-9)
    glass = (t >= GLASS[0] - 1e-9) & (t <= GLASS[1] + 1e-9)
    a1, b1 = np.polyfit(t[melt], v[melt], 1)
    a2, b2 = np.polyfit(t[glass], v[glass], 1)
    return (a1, b1), (a2, b2), (b2 - b1) / (a1 - a2)


def first_run_input(log):
    """The echoed commands before the first run (variables substituted by LAMMPS), then a run of RERUN_STEPS."""
    lines = []
    for words in lammpskit.echo_commands(log):
        if words[0] == "run":
            return "\n".join(lines + [f"run {RERUN_STEPS}"])
        if words[0] not in SKIPPED:
            lines.append(" ".join(words))
    raise AssertionError("the log echoes no run")


def verify(checks):
    for name in ("in.tg", "log.lammps", "result.json"):
        checks.require(f"{name} exists", os.path.isfile(f"{OUT}/{name}"), f"{OUT}/{name} missing")
    log = open(f"{OUT}/log.lammps").read() if os.path.isfile(f"{OUT}/log.lammps") else ""
    last = {}
    for words in lammpskit.echo_commands(log):
        last.setdefault(words[0], []).append(words)
    plan = [(lammpskit.run_steps(words), fixes) for words, fixes in lammpskit.runs(log)]
    finished = lammpskit.loop_atoms(log)
    runs = [(head, np.array(rows)) for head, rows in lammpskit.thermo_blocks(log)[: len(finished)]]
    with checks.check("log.lammps is LAMMPS 29 Sep 2021's log with its input echo and 13 runs of 400 atoms"):
        assert (lammpskit.version(log) or "").startswith("29 Sep 2021"), (
            f"first line {log.splitlines()[0] if log else ''!r}"
        )
        assert len(plan) == len(TEMPS) and len(runs) == len(TEMPS), (
            f"{len(plan)} run commands, {len(runs)} thermo tables, expected {len(TEMPS)}"
        )
        assert finished == [N_ATOMS] * len(TEMPS), f"loops over {finished} atoms"
    with checks.check(
        "reduced units, atom_style bond, the melt read from /app/inputs/kg_melt.data (400 atoms, 380 bonds)"
    ):
        assert [w[1:] for w in last.get("units", [])] == [["lj"]], f"units {last.get('units')}"
        assert [w[1:] for w in last.get("atom_style", [])] == [["bond"]], f"atom_style {last.get('atom_style')}"
        assert [w[1:] for w in last.get("read_data", [])] == [[DATA]], f"read_data {last.get('read_data')}"
        assert re.findall(r"^\s+(\d+) atoms$", log, re.M) == [str(N_ATOMS)], "read_data did not read 400 atoms"
        assert re.findall(r"^\s+(\d+) bonds$", log, re.M) == [str(N_BONDS)], "read_data did not read 380 bonds"
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
            "mass",
        }
        assert not set(last) & edits, "the system is changed"
    with checks.check("FENE bonds K 30, R0 1.5, epsilon = sigma = 1; special_bonds lj 0 1 1 (log echo)"):
        assert [w[1:] for w in last.get("bond_style", [])] == [["fene"]], f"bond_style {last.get('bond_style')}"
        coeffs = last.get("bond_coeff", [])
        assert coeffs and all(w[1] in ("1", "*") for w in coeffs), f"bond_coeff {coeffs}"
        assert [float(v) for v in coeffs[-1][2:]] == FENE, f"bond_coeff {coeffs[-1]}"
        words = last.get("special_bonds", [[]])[-1][1:]
        words = ["lj", "0", "1", "1"] if words[:1] == ["fene"] else words
        assert "lj" in words and [float(v) for v in words[words.index("lj") + 1 :][:3]] == [0.0, 1.0, 1.0], (
            f"special_bonds {words}"
        )
    with checks.check("attractive LJ pairs: lj/cut 2.5, epsilon = sigma = 1, shifted (log echo)"):
        styles = last.get("pair_style", [])
        assert [w[1:] for w in styles] == [["lj/cut", "2.5"]], f"pair_style {styles}"
        coeffs = last.get("pair_coeff", [])
        assert len(coeffs) == 1 and coeffs[0][1:3] in (["1", "1"], ["*", "*"]), f"pair_coeff {coeffs}"
        assert [float(v) for v in coeffs[0][3:]] in ([1.0, 1.0], [1.0, 1.0, CUTOFF]), f"pair_coeff {coeffs[0]}"
        modify = " ".join(" ".join(w[1:]) for w in last.get("pair_modify", []))
        assert re.search(r"\bshift yes\b", modify) and "tail yes" not in modify, f"pair_modify {modify!r}"
    with checks.check("velocities drawn at T 1.0, timestep 0.005"):
        velocity = last.get("velocity", [])
        assert len(velocity) == 1 and velocity[0][1:3] == ["all", "create"] and float(velocity[0][3]) == 1.0, (
            f"velocity {velocity}"
        )
        assert [float(w[1]) for w in last.get("timestep", [])] == [DT], f"timestep {last.get('timestep')}"
    with checks.check(
        "each run: 6000 steps of fix npt temp T T 0.5 iso 0.0 0.0 5.0 on all atoms alone, T from 1.0 down to 0.2"
    ):
        assert len(plan) == len(TEMPS), f"{len(plan)} runs"
        for (steps, fixes), temp in zip(plan, TEMPS):
            assert steps == STEPS, f"the run at T {temp} has {steps} steps"
            moving = [w for w in fixes.values() if w[3] in DYNAMICS or "temp" in w[3] or "press" in w[3]]
            assert len(moving) == 1 and moving[0][2:5] == ["all", "npt", "temp"], f"fixes at T {temp}: {moving}"
            words = moving[0]
            assert [float(v) for v in words[5:8]] == [temp, temp, TDAMP], f"at T {temp}: {' '.join(words)}"
            assert words[8] == "iso" and [float(v) for v in words[9:12]] == [0.0, 0.0, PDAMP] and len(words) == 12, (
                f"at T {temp}: {' '.join(words)}"
            )
    with checks.check("thermo step temp press vol pe every 100 steps; each run continues the one before"):
        previous = None
        for head, rows in runs:
            assert head == COLUMNS, f"thermo columns {head}"
            assert rows[-1, 0] - rows[0, 0] == STEPS and np.all(np.diff(rows[:, 0]) == THERMO_EVERY), (
                f"thermo steps {rows[0, 0]:g}-{rows[-1, 0]:g}"
            )
            if previous is not None:
                assert rows[0, 0] == previous[0] and abs(rows[0, 3] - previous[3]) <= 1e-7 * previous[3], (
                    f"the run from step {rows[0, 0]:g} does not start at the previous run's end"
                )
            previous = rows[-1]
    temps, volumes = [], []
    with checks.check(
        "each temperature's mean Temp (last half of its run) within 5 % of its target; the volume varies"
    ):
        for (head, rows), temp in zip(runs, TEMPS):
            v, t = averages(rows, head)
            assert abs(t - temp) <= 0.05 * temp, f"mean Temp {t:.4f} at T {temp}"
            temps.append(temp)
            volumes.append(v)
        spread = max(np.ptp(rows[:, 3]) / rows[:, 3].mean() for _, rows in runs)
        assert spread > 1e-3, f"the volume never changes by more than {spread:.2g} within a run (no barostat)"
    with checks.check(
        "the log is the delivered protocol's: a rerun of its first 500 steps gives its first thermo rows"
    ):
        work = "/tmp/rerun"
        os.makedirs(work, exist_ok=True)
        screen = lammpskit.run(first_run_input(log), cwd=work, timeout=120)
        blocks = lammpskit.thermo_blocks(screen)
        assert blocks and blocks[0][0] == COLUMNS, "the rerun printed no thermo table"
        mine = np.array(blocks[0][1])
        theirs = runs[0][1][: len(mine)]
        assert len(mine) == RERUN_STEPS // THERMO_EVERY + 1 and np.array_equal(mine[:, 0], theirs[:, 0]), (
            f"rerun steps {mine[:, 0]}"
        )
        worst = float((np.abs(mine - theirs) / np.maximum(np.abs(theirs), 1e-3)).max())
        assert worst <= 1e-6, f"rerun rows differ from the log's by {worst:.3g} (relative)"
    result = {}
    with checks.check("result.json readable"):
        result = load_json(f"{OUT}/result.json")
        assert {"temperatures", "volume_per_bead", "Tg"} <= set(result), sorted(result)
        assert isinstance(result["Tg"], (int, float)) and math.isfinite(result["Tg"]), f"Tg {result['Tg']!r}"
    with checks.check("temperatures lists the 13 temperatures 1.0 to 0.2 in order"):
        assert [float(t) for t in result["temperatures"]] == TEMPS, f"temperatures {result['temperatures']}"
    with checks.check("volume_per_bead: each temperature's mean Volume / 400 over the last half of its run (1e-6)"):
        got = [float(v) for v in result["volume_per_bead"]]
        assert len(got) == len(volumes), f"{len(got)} volumes for {len(volumes)} temperatures"
        worst = max(abs(g - v) / v for g, v in zip(got, volumes))
        assert worst <= 1e-6, f"volume_per_bead differs from the log's by up to {worst:.3g} (relative)"
    tg = float("nan")
    with checks.check("Tg: the intersection of the melt (0.6-1.0) and glass (0.2-0.35) lines, recomputed (1e-4)"):
        melt, glass, tg = fit_tg(temps, volumes)
        assert abs(float(result["Tg"]) - tg) <= 1e-4, f"Tg {result['Tg']} != {tg:.6g} (refitted from the log)"
    with checks.check("the melt expands more than the glass and Tg lies within 0.40-0.60"):
        melt, glass, tg = fit_tg(temps, volumes)
        assert melt[0] > glass[0] > 0, f"slopes dv/dT melt {melt[0]:.4g}, glass {glass[0]:.4g}"
        assert TG_WINDOW[0] <= tg <= TG_WINDOW[1], f"Tg {tg:.4g} from the log"


sys.exit(main(verify))
