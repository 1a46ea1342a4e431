"""Read the LJ fluid's NPT protocol back from its LAMMPS log, tie the log to a real run, and recompute the mean
density and its block error.

The model (units, lattice, 256 atoms, lj/cut 2.5, shift no, tail yes) and the protocol (timestep, velocities, the one
fix npt of both runs with its temperature, pressure and damping, run lengths, thermo) are read from the log's input
echo after substitution (lammpskit), never from the agent's input alone. The log is tied to the delivered input by
rerunning its first 300 steps, and to its dump by rerunning every frame (positions, velocities and box) through
LAMMPS under the stated model (PotEng, Press, Volume). The mean density and its 10-block error are recomputed from
the log's 200 production rows.
"""

import os
import re
import sys

import lammpskit as lk
import numpy as np
from verifykit import load_json, main

OUT = "/app/output"
N_ATOMS, START_DENSITY, TEMPERATURE, PRESSURE, DT = 256, 0.8442, 1.5, 2.5, 0.005
EQUIL_STEPS, PROD_STEPS, THERMO_EVERY, DUMP_EVERY = 2500, 10000, 50, 500
TDAMP_RANGE, PDAMP_RANGE = (0.1, 1.0), (1.0, 10.0)
ROWS, BLOCKS = PROD_STEPS // THERMO_EVERY, 10
THERMO_STYLE = "custom step time temp press pe ke etotal vol density".split()
# mean production density of the reference protocol (Tdamp 0.5, Pdamp 5.0) over velocity seeds 2024, 1, 2 in the task
# image (2026-12-07): 0.7634, 0.7607, 0.7617 (10-block SE 0.0019-0.0022); contract.toml, item density
DENSITY_WINDOW = (0.750, 0.775)
RERUN_STEPS = 300
# fix styles that move, thermostat or barostat the atoms or the box
DYNAMICS = re.compile(
    r"^(nve|nvt|npt|nph|langevin|temp/|rigid|viscous|press/|deform|gld|gle|dpd|momentum|recenter|setforce|addforce|"
    r"efield|ttm|heat|ehex|move|nvk|spring|smd|restrain|wall|box/relax)"
)
# fix npt keywords that would couple other than isotropically or move the coupling
NOT_ISO = {"aniso", "tri", "x", "y", "z", "xy", "xz", "yz", "couple", "dilate", "fixedpoint", "update"}


def verify(checks):
    for name in ("in.lj", "log.lammps", "traj.lammpstrj", "result.json"):
        checks.require(f"{name} exists", os.path.isfile(f"{OUT}/{name}"), f"{OUT}/{name} missing")
    log, delivered = lk.read_text(f"{OUT}/log.lammps"), lk.read_text(f"{OUT}/in.lj")
    cmds = lk.echo_commands(log)
    plan = [(command, fixes) for command, fixes in lk.runs(log) if command[0] == "run"]
    finished = len(lk.loop_atoms(log))
    blocks = [(head, np.array(rows)) for head, rows in lk.thermo_blocks(log)[:finished]]
    result = {}
    with checks.check("result.json readable"):
        result = load_json(f"{OUT}/result.json")
    with checks.check("the log is LAMMPS 29 Sep 2021's run of the delivered in.lj: its echo, two finished runs"):
        assert (lk.version(log) or "").startswith("29 Sep 2021"), f"first line {log.splitlines()[:1]}"
        assert cmds and lk.echo_commands(delivered) == cmds, "the log's input echo differs from the delivered in.lj"
        assert "ERROR" not in log, re.search(r"ERROR.*", log).group(0)
        assert len(plan) == 2 and len(blocks) == 2 and lk.loop_atoms(log) == [N_ATOMS] * 2, (
            f"{len(plan)} runs, {len(blocks)} finished, atoms {lk.loop_atoms(log)}: expected two runs of 256 atoms"
        )
    with checks.check("model: lj units, 256 atoms at rho* 0.8442 to start, mass 1, lj/cut 2.5, not shifted, tail on"):
        assert lk.setting(log, "units") == ["lj"], f"units {lk.setting(log, 'units')}"
        assert re.findall(r"^Created (\d+) atoms", log, re.M) == [str(N_ATOMS)], "atom count"
        edits = ("delete_atoms", "change_box", "displace_atoms", "read_data", "read_restart", "replicate", "deform")
        assert not [t for t in cmds if t[0] in edits], "atoms or box edited"
        head, rows = blocks[0]
        volume = rows[0, head.index("Volume")]
        assert abs(N_ATOMS / volume - START_DENSITY) <= 1e-6, f"starting density {N_ATOMS / volume:.6f}"
        assert [[float(v) for v in t[1:3]] for t in cmds if t[0] == "mass"] == [[1, 1.0]], "mass"
        assert lk.setting(log, "pair_style") == ["lj/cut", "2.5"], f"pair_style {lk.setting(log, 'pair_style')}"
        coeff = [t for t in cmds if t[0] == "pair_coeff"]
        assert len(coeff) == 1 and coeff[0][1:3] == ["1", "1"], f"pair_coeff {coeff}"
        assert [float(v) for v in coeff[0][3:5]] == [1.0, 1.0], f"epsilon, sigma {coeff[0][3:5]}"
        assert [float(v) for v in coeff[0][5:]] in ([], [2.5]), f"pair cutoff {coeff[0][5:]}"
        state = lk.pair_modify_state(cmds)
        assert state == {"shift": "no", "tail": "yes"}, f"pair_modify leaves {state}"
    with checks.check(
        "dynamics: dt 0.005, velocities at 1.5, runs of 2500 and 10000 steps, one fix npt 1.5 / 2.5 iso in both"
    ):
        assert [float(t[1]) for t in cmds if t[0] == "timestep"] == [DT], "timestep"
        velocity = [t for t in cmds if t[0] == "velocity"]
        assert len(velocity) == 1 and velocity[0][1:3] == ["all", "create"], f"velocity {velocity}"
        assert float(velocity[0][3]) == TEMPERATURE, f"velocity temperature {velocity[0][3]}"
        assert [lk.run_steps(c) for c, _ in plan] == [EQUIL_STEPS, PROD_STEPS], f"runs {[c for c, _ in plan]}"
        for (command, fixes), label in zip(plan, ("equilibration", "production"), strict=True):
            moving = [f for f in fixes.values() if len(f) > 3 and DYNAMICS.match(f[3])]
            assert len(moving) == 1, f"the {label}'s fixes moving, thermostatting or barostatting: {moving}"
            fix = moving[0]
            assert fix[2:5] == ["all", "npt", "temp"] and len(fix) >= 12 and fix[8] == "iso", f"fix {' '.join(fix)}"
            assert [float(v) for v in fix[5:7]] == [TEMPERATURE] * 2, f"temperatures {fix[5:7]}"
            assert TDAMP_RANGE[0] <= float(fix[7]) <= TDAMP_RANGE[1], f"Tdamp {fix[7]}"
            assert [float(v) for v in fix[9:11]] == [PRESSURE] * 2, f"pressures {fix[9:11]}"
            assert PDAMP_RANGE[0] <= float(fix[11]) <= PDAMP_RANGE[1], f"Pdamp {fix[11]}"
            assert not NOT_ISO & set(fix[12:]), f"keywords {fix[12:]}"
    with checks.check("thermo every 50 steps with the stated thermo_style, Time = Step x 0.005"):
        assert lk.setting(log, "thermo_style") == THERMO_STYLE, f"thermo_style {lk.setting(log, 'thermo_style')}"
        for (head, rows), steps in zip(blocks, (EQUIL_STEPS, PROD_STEPS), strict=True):
            assert rows[-1, 0] - rows[0, 0] == steps and np.all(np.diff(rows[:, 0]) == THERMO_EVERY), (
                f"thermo rows {rows[0, 0]:g}-{rows[-1, 0]:g} every {sorted(set(np.diff(rows[:, 0])))}"
            )
            assert np.allclose(np.diff(rows[:, head.index("Time")]) / np.diff(rows[:, 0]), DT, rtol=1e-6), "Time"
    with checks.check("the log comes from the delivered in.lj: a rerun of its first 300 steps gives the log's rows"):
        work = lk.fresh_folder("/tmp/rerun")
        again = lk.thermo_blocks(
            lk.run(lk.cut_run(delivered, RERUN_STEPS, name="the delivered in.lj"), cwd=work, timeout=60)
        )
        assert again and blocks, "no thermo rows to compare"
        lk.same_first_rows(blocks[0], again[0], RERUN_STEPS // THERMO_EVERY + 1)
    with checks.check(
        "the dump is the production's: a LAMMPS rerun of every frame (tail on) gives the log's PotEng, Press, Volume"
    ):
        head, production = blocks[-1]
        frames = lk.read_dump(f"{OUT}/traj.lammpstrj")
        steps = [f[0] for f in frames]
        want = list(range(int(production[0, 0]), int(production[-1, 0]) + 1, DUMP_EVERY))
        assert steps == want, f"dump steps {steps[:2]}...{steps[-1:]} ({len(steps)}), the production wants {len(want)}"
        assert {"id", "x", "y", "z", "vx", "vy", "vz"} <= set(frames[0][2]), "the dump lacks positions or velocities"
        box = float(np.diff(frames[0][1][0])[0])
        work = lk.fresh_folder("/tmp/rerun-dump")
        again = lk.rerun_thermo(
            f"units lj\natom_style atomic\nregion box block 0 {box} 0 {box} 0 {box}\ncreate_box 1 box\n"
            f"create_atoms 1 random {N_ATOMS} 12345 box\nmass 1 1.0\npair_style lj/cut 2.5\n"
            "pair_coeff 1 1 1.0 1.0 2.5\npair_modify shift no tail yes\nthermo_style custom step pe press vol\n"
            "thermo_modify format float %.12g",
            f"{OUT}/traj.lammpstrj",
            cwd=work,
            timeout=60,
        )
        worst = lk.largest_difference(again, (head, production), steps, ("PotEng", "Press", "Volume"))
        assert worst <= 1e-6, f"largest difference over |value| + 1: {worst:.3g}"
    density = np.zeros(0)
    with checks.check("mean_density and density_block_se recomputed from the production's 200 rows"):
        head, rows = blocks[-1]
        density = rows[1:, head.index("Density")]
        assert len(density) == ROWS, f"{len(density)} production rows after the first"
        mean = density.mean()
        se = density.reshape(BLOCKS, -1).mean(axis=1).std(ddof=1) / np.sqrt(BLOCKS)
        assert abs(float(result["mean_density"]) - mean) <= 1e-6 * mean, f"{result['mean_density']} vs {mean:.7g}"
        assert abs(float(result["density_block_se"]) - se) <= 1e-6 * se, f"{result['density_block_se']} vs {se:.6g}"
    with checks.check("the mean density lies in 0.750-0.775 (the reference protocol over seeds)"):
        assert len(density), "no production rows"
        assert DENSITY_WINDOW[0] <= density.mean() <= DENSITY_WINDOW[1], f"mean density {density.mean():.4f}"


sys.exit(main(verify))
