"""Recompute the LJ liquid's self-diffusion coefficient by the VACF (Green-Kubo) and MSD (Einstein) routes from the
agent's dumps; tie the dumps to the run and to each other.

Every setting is read back from what LAMMPS wrote (the log's input echo after variable substitution, its lattice
and atom-count lines, the thermo columns, the dump headers). The dump of unwrapped coordinates is rerun through
LAMMPS and must give the log's PotEng at every frame; the velocity dump must give the log's KinEng at every thermo
step, and its velocities integrated over each 100 steps must give the coordinate dump's displacements; the
production's fixes come from the echo and its total energy must be conserved. The VACF, the MSD and both D are then
recomputed with numpy.
"""

import os
import re
import sys

import lammpskit
import numpy as np
from verifykit import load_json, main

OUT = "/app/output"
N_ATOMS, DENSITY, TEMPERATURE, DT, TDAMP, CUTOFF = 500, 0.8442, 0.722, 0.005, 0.5, 2.5
EQUIL_STEPS, PROD_STEPS, THERMO_EVERY, VEL_EVERY, POS_EVERY = 5000, 10000, 100, 5, 100
VACF_LAGS, FIT_START, FIT_END = 200, 5.0, 20.0
AGREEMENT = 0.10  # |D_vacf - D_msd| / D_msd; seeds 1-4: 0.4, 2.4, 4.9, 1.7 %
# D of the reference protocol over velocity seeds 1-4 (the task image, 2026-12-07; D_vacf / D_msd): 0.0307 / 0.0314,
# 0.0329 / 0.0314, 0.0314 / 0.0315, 0.0287 / 0.0282 (the production's mean temperature 0.690-0.741 sets the spread)
D_WINDOW = (0.020, 0.045)
# the velocities integrated over each 100 steps (trapezoid, 0.025 tau) against the displacement: seeds 1-4 rms
# 1.09-1.15e-3 sigma; velocities of another run or random ones 0.2-0.3 sigma (the displacements are 0.20 rms)
INTEGRATION_RMS = 5e-3

# fix styles that integrate or thermostat the atoms
DYNAMICS = {"nvt", "nve", "npt", "nph", "langevin", "temp/berendsen", "temp/rescale", "temp/csvr", "nvt/sllod", "gld",
            "nve/limit", "gle", "temp/csld", "nvk", "nve/noforce"}  # fmt: skip


def read_frames(path, columns):
    """A `dump custom` file as (steps, box lengths, array (frames, atoms, columns)), each frame's atoms sorted by id.

    Every frame must have the stated columns in the stated order and the same number of atoms."""
    lines = open(path).read().split("\n")
    atoms = int(lines[3])
    size = 9 + atoms
    count = len(lines) // size
    assert count and len(lines) - count * size <= 1, f"{path}: {len(lines)} lines, not frames of {atoms} atoms"
    steps, boxes = [], []
    for i in range(count):
        head = lines[i * size : i * size + 9]
        assert head[0] == "ITEM: TIMESTEP" and int(head[3]) == atoms, f"{path}: frame {i} header {head[:4]}"
        assert head[8].split()[2:] == columns, f"{path}: columns {head[8].split()[2:]}, expected {columns}"
        steps.append(int(head[1]))
        boxes.append([float(b) - float(a) for a, b in (line.split()[:2] for line in head[5:8])])
    body = " ".join(line for i in range(count) for line in lines[i * size + 9 : (i + 1) * size])
    data = np.array(body.split(), dtype=float).reshape(count, atoms, len(columns))
    order = np.argsort(data[:, :, 0], axis=1, kind="stable")
    return np.array(steps), np.array(boxes), np.take_along_axis(data, order[:, :, None], axis=1)


def rerun_energies(dump, box, work="/tmp/rerun"):
    """{step: potential energy per atom} of every dump frame under the stated pair style (lj/cut 2.5, tail yes).

    The 500 atoms are created before the run (at random, the dump's frames replace their positions by id): the tail
    correction counts the atoms of each type when the pair style is initialized."""
    os.makedirs(work, exist_ok=True)
    setup = (
        f"units lj\natom_style atomic\nregion box block 0 {box[0]} 0 {box[1]} 0 {box[2]}\ncreate_box 1 box\n"
        f"create_atoms 1 random {N_ATOMS} 12345 box\nmass 1 1.0\n"
        f"pair_style lj/cut {CUTOFF}\npair_coeff 1 1 1.0 1.0 {CUTOFF}\npair_modify shift no tail yes\n"
        "thermo_style custom step pe\nthermo_modify format float %.12g norm yes"
    )
    return lammpskit.rerun_energies(setup, dump, cwd=work)


def vacf(velocities, lags):
    """Z(t) = < v_i(t0) . v_i(t0 + t) > over atoms and every time origin, lags 0..lags."""
    n = len(velocities)
    spectrum = np.fft.rfft(velocities, 2 * n, axis=0)
    z = np.fft.irfft(spectrum * np.conj(spectrum), axis=0)[:n].sum(axis=2).mean(axis=1) / (n - np.arange(n))
    return z[: lags + 1]


def msd(positions):
    """MSD(t) of unwrapped positions over atoms and every time origin, lags 0..frames - 1."""
    m = len(positions)
    return np.array([((positions[k:] - positions[: m - k]) ** 2).sum(axis=2).mean() for k in range(m)])


def two_columns(path):
    rows = np.loadtxt(path, comments="#", ndmin=2)
    assert rows.shape[1] == 2, f"{path}: {rows.shape[1]} columns, expected t and the value"
    return rows[:, 0], rows[:, 1]


def verify(checks):
    names = ("in.lj", "log.lammps", "vel.lammpstrj", "pos.lammpstrj", "vacf.dat", "msd.dat", "result.json")
    for name in names:
        checks.require(f"{name} exists", os.path.isfile(f"{OUT}/{name}"), f"{OUT}/{name} missing")
    log = open(f"{OUT}/log.lammps").read() if os.path.isfile(f"{OUT}/log.lammps") else ""
    last = {}
    for words in lammpskit.echo_commands(log):
        last.setdefault(words[0], []).append(words)
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
    with checks.check("equilibration: 5000 steps under Nose-Hoover NVT at T 0.722 (Tdamp 0.5) alone"):
        steps, fixes = plan[0]
        moving = [w for w in fixes.values() if w[3] in DYNAMICS]
        assert steps == EQUIL_STEPS, f"first run {steps} steps"
        assert len(moving) == 1 and moving[0][2:5] == ["all", "nvt", "temp"], f"fixes {list(fixes.values())}"
        assert [float(v) for v in moving[0][5:8]] == [TEMPERATURE, TEMPERATURE, TDAMP], moving[0]
    with checks.check("production is NVE: 10000 steps from step 0 with fix nve on all atoms and no thermostat"):
        steps, fixes = plan[1]
        moving = [w for w in fixes.values() if w[3] in DYNAMICS or "temp" in w[3] or "langevin" in w[3]]
        assert steps == PROD_STEPS, f"production {steps} steps"
        assert [w[2:4] for w in moving] == [["all", "nve"]], f"production fixes {list(fixes.values())}"
        want = np.arange(0, PROD_STEPS + 1, THERMO_EVERY)
        assert np.array_equal(production[:, 0], want), f"thermo steps {production[0, 0]:g}-{production[-1, 0]:g}"
    with checks.check("production conserves energy: total energy drift below 1e-3, range below 0.02 per atom"):
        etotal = production[:, header.index("TotEng")]
        time = production[:, header.index("Time")]
        drift = np.polyfit(time, etotal, 1)[0] * (time[-1] - time[0])
        spread = etotal.max() - etotal.min()
        assert abs(drift) <= 1e-3 and spread <= 0.02, f"drift {drift:.3g}, range {spread:.3g} per atom"
    with checks.check("the production's mean temperature stays near 0.722 (within 0.05)"):
        temp = production[:, header.index("Temp")].mean()
        assert abs(temp - TEMPERATURE) <= 0.05, f"mean production temperature {temp:.4f}"
    positions, pos_steps, pos_box = None, None, None
    with checks.check("pos.lammpstrj is the production's dump: xu yu zu every 100 steps, 500 atoms, density 0.8442"):
        pos_steps, boxes, data = read_frames(f"{OUT}/pos.lammpstrj", ["id", "type", "xu", "yu", "zu"])
        want = np.arange(0, PROD_STEPS + 1, POS_EVERY)
        assert np.array_equal(pos_steps, want), f"dump steps {pos_steps[:2]}...{pos_steps[-1:]} ({len(pos_steps)})"
        assert data.shape[1] == N_ATOMS, f"{data.shape[1]} atoms"
        assert np.all(data[:, :, 0] == np.arange(1, N_ATOMS + 1)), "atom ids are not 1-500 in every frame"
        density = N_ATOMS / boxes.prod(axis=1)
        assert np.abs(density - DENSITY).max() < 1e-6, f"density {density.min():.6f}-{density.max():.6f}"
        positions, pos_box = data[:, :, 2:], boxes[0]
    with checks.check("the coordinates come from the run: a LAMMPS rerun of every frame gives the log's PotEng (1e-6)"):
        assert positions is not None, "no coordinate frames to rerun"
        energies = rerun_energies(f"{OUT}/pos.lammpstrj", pos_box)
        logged = dict(zip(production[:, 0].astype(int), production[:, header.index("PotEng")]))
        worst = max(abs(energies[s] - logged[s]) / abs(logged[s]) for s in pos_steps)
        assert worst <= 1e-6, f"largest relative PotEng difference {worst:.3g}"
    velocities = None
    with checks.check("vel.lammpstrj is the production's dump: vx vy vz every 5 steps, 500 atoms, the log's KinEng"):
        steps, _, data = read_frames(f"{OUT}/vel.lammpstrj", ["id", "vx", "vy", "vz"])
        want = np.arange(0, PROD_STEPS + 1, VEL_EVERY)
        assert np.array_equal(steps, want), f"dump steps {steps[:2]}...{steps[-1:]} ({len(steps)})"
        assert data.shape[1] == N_ATOMS, f"{data.shape[1]} atoms"
        assert np.all(data[:, :, 0] == np.arange(1, N_ATOMS + 1)), "atom ids are not 1-500 in every frame"
        velocities = data[:, :, 1:]
        kinetic = 0.5 * (velocities[:: THERMO_EVERY // VEL_EVERY] ** 2).sum(axis=(1, 2)) / N_ATOMS
        logged = production[:, header.index("KinEng")]
        worst = np.abs(kinetic - logged).max() / logged.mean()
        assert worst <= 1e-6, f"largest relative |KinEng of the dump - log| {worst:.3g}"
    with checks.check("the velocities are the trajectory's: integrated over 100 steps they give its displacements"):
        assert velocities is not None and positions is not None, "no dumps to compare"
        per = POS_EVERY // VEL_EVERY
        segments = velocities[:-1].reshape(-1, per, N_ATOMS, 3).sum(axis=1)
        segments += 0.5 * (velocities[per::per] - velocities[:-1:per])
        rms = np.sqrt(((segments * DT * VEL_EVERY - np.diff(positions, axis=0)) ** 2).mean())
        assert rms <= INTEGRATION_RMS, f"rms |integral of v dt - displacement| {rms:.3g} sigma over 100 steps"
    z, d_vacf = None, None
    with checks.check("vacf.dat is the VACF of vel.lammpstrj: t 0-5 tau by 0.025, Z(t) (numpy, 1e-5 of Z(0))"):
        assert velocities is not None, "no velocities"
        z = vacf(velocities, VACF_LAGS)
        d_vacf = (z.sum() - 0.5 * (z[0] + z[-1])) * DT * VEL_EVERY / 3.0
        t, got = two_columns(f"{OUT}/vacf.dat")
        assert len(t) == VACF_LAGS + 1, f"{len(t)} rows, expected {VACF_LAGS + 1}"
        assert np.allclose(t, np.arange(VACF_LAGS + 1) * DT * VEL_EVERY, atol=1e-9), f"t {t[:3]}...{t[-1:]}"
        worst = np.abs(got - z).max() / z[0]
        assert worst <= 1e-5, f"largest |Z - numpy's| {worst:.3g} of Z(0) = {z[0]:.6g}"
    m, d_msd = None, None
    with checks.check("msd.dat is the MSD of pos.lammpstrj: t 0-50 tau by 0.5, every time origin (numpy, 1e-5)"):
        assert positions is not None, "no positions"
        m = msd(positions)
        times = np.arange(len(m)) * DT * POS_EVERY
        window = (times >= FIT_START - 1e-9) & (times <= FIT_END + 1e-9)
        assert window.sum() == 31, f"{window.sum()} points in 5-20 tau"
        d_msd = np.polyfit(times[window], m[window], 1)[0] / 6.0
        t, got = two_columns(f"{OUT}/msd.dat")
        assert len(t) == len(m), f"{len(t)} rows, expected {len(m)}"
        assert np.allclose(t, times, atol=1e-9), f"t {t[:3]}...{t[-1:]}"
        worst = (np.abs(got - m) / np.maximum(m, 1e-3)).max()
        assert worst <= 1e-5, f"largest relative |MSD - numpy's| {worst:.3g}"
    result = {}
    with checks.check("result.json readable"):
        result = load_json(f"{OUT}/result.json")
        assert {"D_vacf", "D_msd"} <= set(result), sorted(result)
    with checks.check("D_vacf = 1/3 of the VACF's integral over 0-5 tau, recomputed (1e-3 relative)"):
        assert d_vacf is not None, "no VACF recomputed"
        assert abs(float(result["D_vacf"]) - d_vacf) <= 1e-3 * d_vacf, f"D_vacf {result['D_vacf']} != {d_vacf:.6g}"
    with checks.check("D_msd = slope / 6 of the MSD over 5-20 tau, recomputed (1e-3 relative)"):
        assert d_msd is not None, "no MSD recomputed"
        assert abs(float(result["D_msd"]) - d_msd) <= 1e-3 * d_msd, f"D_msd {result['D_msd']} != {d_msd:.6g}"
    with checks.check("the two routes agree: |D_vacf - D_msd| within 10 % of D_msd (recomputed and reported)"):
        assert d_vacf is not None and d_msd is not None, "no D recomputed"
        gap = abs(d_vacf - d_msd) / d_msd
        assert gap <= AGREEMENT, f"recomputed D_vacf {d_vacf:.5g}, D_msd {d_msd:.5g}: {100 * gap:.1f} % apart"
        reported = abs(float(result["D_vacf"]) - float(result["D_msd"])) / abs(float(result["D_msd"]))
        assert reported <= AGREEMENT, f"reported D_vacf and D_msd {100 * reported:.1f} % apart"
    with checks.check("D of the dumps within 0.020-0.045 (the protocol's over four seeds: 0.028-0.033)"):
        assert d_vacf is not None and d_msd is not None, "no D recomputed"
        assert D_WINDOW[0] <= d_vacf <= D_WINDOW[1] and D_WINDOW[0] <= d_msd <= D_WINDOW[1], (
            f"D_vacf {d_vacf:.4g}, D_msd {d_msd:.4g}"
        )


sys.exit(main(verify))
