"""Recompute the LJ fluid's MSD and self-diffusion coefficient from the agent's dump of unwrapped coordinates; tie
the dump to the run and the production to NVE.

Every setting is read back from what LAMMPS wrote (the log's input echo after variable substitution, its lattice
and atom-count lines, the thermo columns, the dump header); the dump is rerun through LAMMPS with the stated pair
style and must give the log's potential energy at every frame; the production's fixes come from the echo and its
total energy must be conserved.
"""

import os
import re
import sys

import lammpskit
import numpy as np
from verifykit import load_json, main

OUT = "/app/output"
N_ATOMS, DENSITY, TEMPERATURE, DT, TDAMP, CUTOFF = 500, 0.8442, 1.5, 0.005, 0.5, 2.5
EQUIL_STEPS, PROD_STEPS, THERMO_EVERY, DUMP_EVERY = 5000, 20000, 100, 200
FIT_START, FIT_END = 20.0, 100.0  # the fit window, in tau from the production's start
# D of the reference protocol over velocity seeds 1, 2, 3 (the task image, 2026-12-07): 0.0729, 0.0863, 0.0817 (one
# time origin, as compute msd); the window 0.05-0.12 lies 4-5 of their standard deviations (0.007) away.
D_WINDOW = (0.05, 0.12)

# fix styles that integrate or thermostat the atoms
DYNAMICS = {"nvt", "nve", "npt", "nph", "langevin", "temp/berendsen", "temp/rescale", "temp/csvr", "nvt/sllod", "gld",
            "nve/limit", "gle", "temp/csld", "nvk", "nve/noforce"}  # fmt: skip


def rerun_energies(dump, box, work="/tmp/rerun"):
    """{step: potential energy per atom} of every dump frame under the stated pair style (lj/cut 2.5, tail yes).

    The 500 atoms are created before the run (at random, the dump's frames replace their positions by id): the tail
    correction counts the atoms of each type when the pair style is initialized, so atoms added by the rerun itself
    would leave it out."""
    os.makedirs(work, exist_ok=True)
    setup = (
        f"units lj\natom_style atomic\nregion box block 0 {box[0]} 0 {box[1]} 0 {box[2]}\ncreate_box 1 box\n"
        f"create_atoms 1 random {N_ATOMS} 12345 box\nmass 1 1.0\n"
        f"pair_style lj/cut {CUTOFF}\npair_coeff 1 1 1.0 1.0 {CUTOFF}\npair_modify shift no tail yes\n"
        "thermo_style custom step pe\nthermo_modify format float %.12g norm yes"
    )
    return lammpskit.rerun_energies(setup, dump, cwd=work)


def msd_file(path):
    """fix ave/time's MSD file (mode scalar): {step: MSD}."""
    rows = np.loadtxt(path, comments="#", ndmin=2)
    return {int(step): value for step, value in rows[:, :2]}


def fit_d(times, msd):
    """D = slope / 6 of the least-squares line through MSD(t) over FIT_START <= t <= FIT_END (tau)."""
    window = (times >= FIT_START - 1e-9) & (times <= FIT_END + 1e-9)
    return np.polyfit(times[window], msd[window], 1)[0] / 6.0, int(window.sum())


def verify(checks):
    for name in ("in.lj", "log.lammps", "traj.lammpstrj", "msd.dat", "result.json"):
        checks.require(f"{name} exists", os.path.isfile(f"{OUT}/{name}"), f"{OUT}/{name} missing")
    log = open(f"{OUT}/log.lammps").read() if os.path.isfile(f"{OUT}/log.lammps") else ""
    last = {}
    for words in lammpskit.echo_commands(log):
        last.setdefault(words[0], []).append(words)
    # the runs the echo states (steps, {fix id: words}) and the thermo tables of the runs that finished
    plan = [(lammpskit.run_steps(words), fixes) for words, fixes in lammpskit.runs(log) if words[0] == "run"]
    finished = len(lammpskit.loop_atoms(log))
    runs = [(head, np.array(rows)) for head, rows in lammpskit.thermo_blocks(log)[:finished]]
    with checks.check("log.lammps is LAMMPS 29 Sep 2021's log with its input echo and two runs"):
        assert (lammpskit.version(log) or "").startswith("29 Sep 2021"), (
            f"first line {log.splitlines()[0] if log else ''!r}"
        )
        assert len(runs) == 2 and len(plan) == 2, f"{len(runs)} thermo tables, {len(plan)} run commands, expected 2"
    header, production = runs[-1] if runs else ([], np.zeros((0, 0)))
    with checks.check("reduced units, 500 atoms on an fcc lattice at density 0.8442"):
        assert [w[1] for w in last.get("units", [])] == ["lj"], f"units {last.get('units')}"
        assert any(w[1] == "fcc" and abs(float(w[2]) - DENSITY) < 1e-9 for w in last.get("lattice", [])), (
            f"lattice {last.get('lattice')}"
        )
        created = re.findall(r"^Created (\d+) atoms", log, re.M)
        assert created == [str(N_ATOMS)], f"created {created} atoms"
    with checks.check("lj/cut 2.5 sigma, not shifted, tail correction on (log echo)"):
        styles = last.get("pair_style", [])
        assert styles and styles[-1][1] == "lj/cut" and float(styles[-1][2]) == CUTOFF, styles
        modify = " ".join(" ".join(w[1:]) for w in last.get("pair_modify", []))
        assert re.search(r"\btail yes\b", modify) and not re.search(r"\bshift yes\b", modify), f"pair_modify {modify!r}"
    with checks.check("timestep 0.005 (echo and the thermo Time column)"):
        assert [float(w[1]) for w in last.get("timestep", [])] == [DT], f"timestep {last.get('timestep')}"
        for head, rows in runs:
            dt = np.diff(rows[:, head.index("Time")]) / np.diff(rows[:, 0])
            assert np.allclose(dt, DT, rtol=1e-6), f"Time / Step = {dt.min():g}-{dt.max():g}"
    with checks.check("equilibration: 5000 steps under Nose-Hoover NVT at T 1.5 (Tdamp 0.5) alone"):
        steps, fixes = plan[0]
        moving = [w for w in fixes.values() if w[3] in DYNAMICS]
        assert steps == EQUIL_STEPS, f"first run {steps} steps"
        assert len(moving) == 1 and moving[0][2:5] == ["all", "nvt", "temp"], f"fixes {list(fixes.values())}"
        assert [float(v) for v in moving[0][5:8]] == [TEMPERATURE, TEMPERATURE, TDAMP], moving[0]
    with checks.check("production is NVE: 20000 steps with fix nve on all atoms and no thermostat (log echo)"):
        steps, fixes = plan[1]
        moving = [w for w in fixes.values() if w[3] in DYNAMICS or "temp" in w[3] or "langevin" in w[3]]
        assert steps == PROD_STEPS, f"production {steps} steps"
        assert [w[2:4] for w in moving] == [["all", "nve"]], f"production fixes {list(fixes.values())}"
        span = production[-1, 0] - production[0, 0]
        assert span == PROD_STEPS and np.all(np.diff(production[:, 0]) == THERMO_EVERY), f"thermo over {span:g} steps"
    with checks.check("production conserves energy: total energy drift below 1e-3, range below 0.02 per atom"):
        etotal = production[:, header.index("TotEng")]
        time = production[:, header.index("Time")]
        drift = np.polyfit(time, etotal, 1)[0] * (time[-1] - time[0])
        spread = etotal.max() - etotal.min()
        assert abs(drift) <= 1e-3 and spread <= 0.02, f"drift {drift:.3g}, range {spread:.3g} per atom"
    with checks.check("the production's temperature stays near 1.5 (mean within 0.2)"):
        temp = production[:, header.index("Temp")].mean()
        assert abs(temp - TEMPERATURE) <= 0.2, f"mean production temperature {temp:.4f}"
    frames = []
    with checks.check("traj.lammpstrj is the production's dump: xu yu zu every 200 steps, 500 atoms, density 0.8442"):
        dump = lammpskit.read_dump(f"{OUT}/traj.lammpstrj")
        frames = [(step, np.diff(bounds).ravel(), columns) for step, bounds, columns in dump]  # box lengths
        steps = [f[0] for f in frames]
        want = list(range(int(production[0, 0]), int(production[-1, 0]) + 1, DUMP_EVERY))
        assert steps == want, f"dump steps {steps[:2]}...{steps[-1:]} ({len(steps)}), production wants {len(want)}"
        for step, box, columns in frames:
            assert {"id", "type", "xu", "yu", "zu"} <= set(columns) and len(columns["id"]) == N_ATOMS, f"step {step}"
            assert abs(N_ATOMS / np.prod(box) - DENSITY) < 1e-6, f"density {N_ATOMS / np.prod(box):.6f} at step {step}"
    with checks.check("the dump comes from the run: a LAMMPS rerun of every frame gives the log's PotEng (1e-6)"):
        assert frames, "no dump frames to rerun"
        energies = rerun_energies(f"{OUT}/traj.lammpstrj", frames[0][1])
        logged = dict(zip(production[:, 0].astype(int), production[:, header.index("PotEng")]))
        worst = 0.0
        for step, _, _ in frames:
            assert step in energies and step in logged, f"step {step} missing from the rerun or the log"
            worst = max(worst, abs(energies[step] - logged[step]) / abs(logged[step]))
        assert frames and worst <= 1e-6, f"largest relative PotEng difference {worst:.3g}"
    times, msd = np.zeros(0), np.zeros(0)
    with checks.check("msd.dat is the MSD of the dump's unwrapped coordinates (numpy, 1e-4 relative)"):
        xyz = [np.column_stack([c["xu"], c["yu"], c["zu"]]) for _, _, c in frames]
        msd = np.array([((r - xyz[0]) ** 2).sum(axis=1).mean() for r in xyz])
        times = (np.array([f[0] for f in frames]) - frames[0][0]) * DT
        delivered = msd_file(f"{OUT}/msd.dat")
        missing = [f[0] for f in frames if f[0] not in delivered]
        assert not missing, f"msd.dat lacks the dump's steps {missing[:3]}"
        got = np.array([delivered[f[0]] for f in frames])
        deviation = (np.abs(got - msd) / np.maximum(msd, 1e-3)).max()
        assert deviation <= 1e-4, f"largest relative |MSD - numpy's| {deviation:.3g} (msd.dat at 100 tau {got[-1]:.4g})"
    result = {}
    with checks.check("result.json readable"):
        result = load_json(f"{OUT}/result.json")
        assert {"D", "fit_start", "fit_end"} <= set(result), sorted(result)
    with checks.check("result.json states the fit window 20-100 tau"):
        assert [float(result["fit_start"]), float(result["fit_end"])] == [FIT_START, FIT_END], (
            f"fit window {result['fit_start']}-{result['fit_end']}"
        )
    with checks.check("D = slope / 6 over 20-100 tau, recomputed from the dump's MSD (1e-4 relative)"):
        d, points = fit_d(times, msd)
        assert points == 81, f"{points} MSD points in the window"
        assert abs(float(result["D"]) - d) <= 1e-4 * d, f"D {result['D']} != {d:.6g} (numpy's MSD, slope / 6)"
    with checks.check("D of the dump within 0.05-0.12 (the protocol's over three seeds: 0.073-0.086)"):
        d, _ = fit_d(times, msd)
        assert D_WINDOW[0] <= d <= D_WINDOW[1], f"D {d:.4g} from the dump's MSD"


sys.exit(main(verify))
