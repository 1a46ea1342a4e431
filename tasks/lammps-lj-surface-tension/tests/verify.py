"""Read the LJ slab's setup back from its LAMMPS log, tie the log, dump and density profile to one real run, and
recompute the liquid-vapour surface tension and the slab-centre liquid density.

The model (units, lattice, box of 6 x 6 x 18 cells, 936 atoms in the slab, lj/cut 2.5 not shifted, no tail) and the
protocol (timestep, velocities, the one fix nvt of both runs, run lengths, thermo) are read from the log's input
echo after substitution (lammpskit). The log is tied to the delivered input by rerunning its first 300 steps, to the
stated slab by the verifier's own build of it (the step-0 potential energy), and to its dump by rerunning every frame
(PotEng, Pxx, Pyy, Pzz); the profile is tied to the dump by histogramming the frames it sampled. gamma is recomputed
from the production's rows and the centre density from the profile.
"""

import os
import re
import sys

import lammpskit as lk
import numpy as np
from verifykit import load_json, main

OUT = "/app/output"
N_ATOMS, TEMPERATURE, DT, RHO_LATTICE = 936, 0.8, 0.005, 0.8442
CELLS = (6, 6, 18)
EQUIL_STEPS, PROD_STEPS, THERMO_EVERY, DUMP_EVERY = 10000, 40000, 10, 1000
TDAMP_RANGE = (0.1, 1.0)
THERMO_STYLE = "custom step temp pe press pxx pyy pzz lx ly lz".split()
NBINS, BIN = 50, 0.02
PROFILE = (1000, 5, 5000)  # Nevery, Nrepeat, Nfreq
RERUN_STEPS = 300
# the reference protocol over velocity seeds 2024, 1, 2, 3 in the task image (2026-12-07): gamma 0.3806, 0.4454, 0.3900,
# 0.3764 (10-block SE of one run 0.030); centre density 0.7325, 0.7281, 0.7295, 0.7318 (contract.toml, items
# gamma-window and density-window)
GAMMA_WINDOW = (0.25, 0.55)
DENSITY_WINDOW = (0.70, 0.76)
# fix styles that move or thermostat the atoms or change the box
DYNAMICS = re.compile(
    r"^(nve|nvt|npt|nph|langevin|temp/|rigid|viscous|press/|deform|gld|gle|dpd|momentum|recenter|setforce|addforce|"
    r"efield|ttm|heat|ehex|move|nvk|spring|smd|restrain|wall|box/relax)"
)
SETUP = (
    "units lj\natom_style atomic\nboundary p p p\nlattice fcc 0.8442\nregion box block 0 6 0 6 0 18\n"
    "region slab block 0 6 0 6 6 12\ncreate_box 1 box\ncreate_atoms 1 region slab\nmass 1 1.0\n"
    "pair_style lj/cut 2.5\npair_coeff 1 1 1.0 1.0 2.5\npair_modify shift no tail no\n"
)


def read_profile(path):
    """The blocks of a fix ave/chunk file: [(step, chunks, total count, rows of Chunk Coord1 Ncount density)]."""
    blocks = []
    for line in open(path):
        if line.startswith("#") or not line.strip():
            continue
        words = line.split()
        if len(words) == 3:
            blocks.append((int(words[0]), int(words[1]), float(words[2]), []))
        else:
            assert blocks and len(words) == 4, f"profile.dat line {line.strip()!r}: not Chunk Coord1 Ncount density"
            blocks[-1][3].append([float(w) for w in words])
    return [(s, n, t, np.array(r)) for s, n, t, r in blocks]


def verify(checks):
    for name in ("in.slab", "log.lammps", "traj.lammpstrj", "profile.dat", "result.json"):
        checks.require(f"{name} exists", os.path.isfile(f"{OUT}/{name}"), f"{OUT}/{name} missing")
    log, delivered = lk.read_text(f"{OUT}/log.lammps"), lk.read_text(f"{OUT}/in.slab")
    cmds = lk.echo_commands(log)
    plan = [(command, fixes) for command, fixes in lk.runs(log) if command[0] == "run"]
    finished = len(lk.loop_atoms(log))
    blocks = [(head, np.array(rows)) for head, rows in lk.thermo_blocks(log)[:finished]]
    spacing = (4 / RHO_LATTICE) ** (1 / 3)
    box = [c * spacing for c in CELLS]
    result = {}
    with checks.check("result.json readable"):
        result = load_json(f"{OUT}/result.json")
        float(result["surface_tension"]), float(result["liquid_density"])
    with checks.check("the log is LAMMPS 29 Sep 2021's run of the delivered in.slab: its echo, two finished runs"):
        assert (lk.version(log) or "").startswith("29 Sep 2021"), f"first line {log.splitlines()[:1]}"
        assert cmds and lk.echo_commands(delivered) == cmds, "the log's input echo differs from the delivered in.slab"
        assert "ERROR" not in log, re.search(r"ERROR.*", log).group(0)
        assert len(plan) == 2 and len(blocks) == 2 and lk.loop_atoms(log) == [N_ATOMS] * 2, (
            f"{len(plan)} runs, {len(blocks)} finished, atoms {lk.loop_atoms(log)}: expected two runs of 936 atoms"
        )
    with checks.check(
        "model: lj units, 936 atoms in a slab of the 6 x 6 x 18-cell box (fcc 0.8442), lj/cut 2.5, no shift, no tail"
    ):
        assert lk.setting(log, "units") == ["lj"], f"units {lk.setting(log, 'units')}"
        assert lk.setting(log, "boundary") in (None, ["p", "p", "p"]), f"boundary {lk.setting(log, 'boundary')}"
        assert re.findall(r"^Created (\d+) atoms", log, re.M) == [str(N_ATOMS)], "atom count"
        edits = ("delete_atoms", "change_box", "displace_atoms", "read_data", "read_restart", "replicate", "deform")
        assert not [t for t in cmds if t[0] in edits], "atoms or box edited"
        head, rows = blocks[0]
        for name, length in zip(("Lx", "Ly", "Lz"), box, strict=True):
            assert abs(rows[0, head.index(name)] - length) <= 1e-6 * length, f"{name} {rows[0, head.index(name)]}"
        assert [[float(v) for v in t[1:3]] for t in cmds if t[0] == "mass"] == [[1, 1.0]], "mass"
        assert lk.setting(log, "pair_style") == ["lj/cut", "2.5"], f"pair_style {lk.setting(log, 'pair_style')}"
        coeff = [t for t in cmds if t[0] == "pair_coeff"]
        assert len(coeff) == 1 and coeff[0][1:3] == ["1", "1"], f"pair_coeff {coeff}"
        assert [float(v) for v in coeff[0][3:5]] == [1.0, 1.0], f"epsilon, sigma {coeff[0][3:5]}"
        assert [float(v) for v in coeff[0][5:]] in ([], [2.5]), f"pair cutoff {coeff[0][5:]}"
        state = lk.pair_modify_state(cmds)
        assert state == {"shift": "no", "tail": "no"}, f"pair_modify leaves {state}"
    with checks.check("the log's step 0 is the stated slab: its PotEng equals the verifier's own build of it"):
        own = lk.evaluate(SETUP + "run 0", pe="pe", atoms="atoms")
        head, rows = blocks[0]
        assert own["atoms"] == N_ATOMS, f"the verifier's slab has {own['atoms']} atoms"
        logged = rows[0, head.index("PotEng")]
        assert abs(logged - own["pe"]) <= 1e-6 * abs(own["pe"]), f"step 0 PotEng {logged}, the slab's {own['pe']:.8g}"
    with checks.check("dynamics: dt 0.005, velocities at 0.8, runs of 10000 and 40000 steps, one fix nvt 0.8 in both"):
        assert [float(t[1]) for t in cmds if t[0] == "timestep"] == [DT], "timestep"
        velocity = [t for t in cmds if t[0] == "velocity"]
        assert len(velocity) == 1 and velocity[0][1:3] == ["all", "create"], f"velocity {velocity}"
        assert float(velocity[0][3]) == TEMPERATURE, f"velocity temperature {velocity[0][3]}"
        assert "no" not in [v for k, v in zip(velocity[0][5:], velocity[0][6:]) if k == "mom"], "mom no"
        assert [lk.run_steps(c) for c, _ in plan] == [EQUIL_STEPS, PROD_STEPS], f"runs {[c for c, _ in plan]}"
        for (command, fixes), label in zip(plan, ("equilibration", "production"), strict=True):
            moving = [f for f in fixes.values() if len(f) > 3 and DYNAMICS.match(f[3])]
            assert len(moving) == 1, f"the {label}'s fixes moving or thermostatting the atoms: {moving}"
            fix = moving[0]
            assert fix[2:5] == ["all", "nvt", "temp"] and len(fix) == 8, f"fix {' '.join(fix)}"
            assert [float(v) for v in fix[5:7]] == [TEMPERATURE] * 2, f"temperatures {fix[5:7]}"
            assert TDAMP_RANGE[0] <= float(fix[7]) <= TDAMP_RANGE[1], f"Tdamp {fix[7]}"
    with checks.check("thermo every 10 steps with the stated thermo_style over both runs"):
        assert lk.setting(log, "thermo_style") == THERMO_STYLE, f"thermo_style {lk.setting(log, 'thermo_style')}"
        for (head, rows), (start, steps) in zip(blocks, ((0, EQUIL_STEPS), (EQUIL_STEPS, PROD_STEPS)), strict=True):
            assert rows[0, 0] == start and rows[-1, 0] - rows[0, 0] == steps, f"rows {rows[0, 0]:g}-{rows[-1, 0]:g}"
            assert np.all(np.diff(rows[:, 0]) == THERMO_EVERY), f"thermo every {sorted(set(np.diff(rows[:, 0])))}"
    with checks.check("the log comes from the delivered in.slab: a rerun of its first 300 steps gives the log's rows"):
        work = lk.fresh_folder("/tmp/rerun")
        again = lk.thermo_blocks(
            lk.run(lk.cut_run(delivered, RERUN_STEPS, name="the delivered in.slab"), cwd=work, timeout=60)
        )
        assert again and blocks, "no thermo rows to compare"
        lk.same_first_rows(blocks[0], again[0], RERUN_STEPS // THERMO_EVERY + 1)
    frames = []
    with checks.check(
        "the dump is the production's: a LAMMPS rerun of every frame gives the log's PotEng, Pxx, Pyy, Pzz"
    ):
        head, production = blocks[-1]
        frames = lk.read_dump(f"{OUT}/traj.lammpstrj")
        steps = [f[0] for f in frames]
        want = list(range(EQUIL_STEPS, EQUIL_STEPS + PROD_STEPS + 1, DUMP_EVERY))
        assert steps == want, f"dump steps {steps[:2]}...{steps[-1:]} ({len(steps)}), the production wants {len(want)}"
        assert {"id", "x", "y", "z", "vx", "vy", "vz"} <= set(frames[0][2]), "the dump lacks positions or velocities"
        assert all(len(f[2]["id"]) == N_ATOMS for f in frames), "a frame without all 936 atoms"
        work = lk.fresh_folder("/tmp/rerun-dump")
        (xlo, xhi), (ylo, yhi), (zlo, zhi) = frames[0][1]
        again = lk.rerun_thermo(
            f"units lj\natom_style atomic\nregion box block {xlo!r} {xhi!r} {ylo!r} {yhi!r} {zlo!r} {zhi!r}\n"
            f"create_box 1 box\ncreate_atoms 1 random {N_ATOMS} 12345 box\nmass 1 1.0\npair_style lj/cut 2.5\n"
            "pair_coeff 1 1 1.0 1.0 2.5\npair_modify shift no tail no\nthermo_style custom step pe pxx pyy pzz\n"
            "thermo_modify format float %.12g",
            f"{OUT}/traj.lammpstrj",
            cwd=work,
            timeout=60,
        )
        worst = lk.largest_difference(again, (head, production), steps, ("PotEng", "Pxx", "Pyy", "Pzz"))
        assert worst <= 1e-6, f"largest difference over |value| + 1: {worst:.3g}"
    profile = []
    with checks.check(
        "profile.dat is the production's fix ave/chunk of 50 z bins (1000 5 5000): the dump's frames give its counts"
    ):
        profile = read_profile(f"{OUT}/profile.dat")
        nevery, nrepeat, nfreq = PROFILE
        want = list(range(EQUIL_STEPS + nfreq, EQUIL_STEPS + PROD_STEPS + 1, nfreq))
        assert [b[0] for b in profile] == want, f"profile steps {[b[0] for b in profile]}, the production's {want}"
        bin_volume = box[0] * box[1] * box[2] * BIN
        centres = (np.arange(NBINS) + 0.5) * BIN
        by_step = {f[0]: f for f in frames}
        for step, chunks, total, rows in profile:
            assert chunks == NBINS and rows.shape == (NBINS, 4), f"step {step}: {chunks} chunks"
            assert abs(total - N_ATOMS) < 1e-6, f"step {step}: total count {total}"
            assert np.allclose(rows[:, 1], centres, atol=1e-6), f"step {step}: bin centres {rows[:3, 1]}..."
            assert np.allclose(rows[:, 3], rows[:, 2] / bin_volume, rtol=2e-5, atol=1e-6), f"step {step}: density"
            counts = np.zeros(NBINS)
            for sample in range(step - (nrepeat - 1) * nevery, step + 1, nevery):
                assert sample in by_step, f"no dump frame at step {sample} that profile.dat's step {step} sampled"
                (_, _), (_, _), (lo, hi) = by_step[sample][1]
                z = by_step[sample][2]["z"]
                length = hi - lo
                z = np.where(z < lo, z + length, np.where(z >= hi, z - length, z))
                counts += np.bincount(np.clip(((z - lo) / (BIN * length)).astype(int), 0, NBINS - 1), minlength=NBINS)
            off = np.abs(counts - rows[:, 2] * nrepeat).sum()
            assert off <= 2.01, f"step {step}: the frames' histogram differs by {off:g} atom-samples"
    with checks.check("surface_tension recomputed from the production's rows: (Lz/2)(Pzz - (Pxx + Pyy)/2), 1e-6"):
        head, rows = blocks[-1]
        p = rows[1:]
        assert len(p) == PROD_STEPS // THERMO_EVERY, f"{len(p)} production rows after the first"
        gamma = np.mean(
            p[:, head.index("Lz")]
            / 2
            * (p[:, head.index("Pzz")] - p[:, head.index("Pxx")] / 2 - p[:, head.index("Pyy")] / 2)
        )
        reported = float(result["surface_tension"])
        assert abs(reported - gamma) <= 1e-6 * abs(gamma) + 1e-9, f"surface_tension {reported}, the log's {gamma:.7g}"
    with checks.check("liquid_density recomputed from profile.dat: the 10 central bins (|z/Lz - 0.5| < 0.1), 1e-6"):
        assert profile, "no profile"
        data = np.array([b[3] for b in profile])
        centre = np.abs(data[0, :, 1] - 0.5) < 0.1
        density = data[:, centre, 3].mean()
        reported = float(result["liquid_density"])
        assert centre.sum() == 10 and abs(reported - density) <= 1e-6 * density, (
            f"liquid_density {reported}, the profile's {density:.7g}"
        )
    with checks.check("gamma lies in 0.25-0.55 and the centre density in 0.70-0.76 (the reference over seeds)"):
        gamma, density = float(result["surface_tension"]), float(result["liquid_density"])
        assert GAMMA_WINDOW[0] <= gamma <= GAMMA_WINDOW[1], f"surface_tension {gamma:.4f}"
        assert DENSITY_WINDOW[0] <= density <= DENSITY_WINDOW[1], f"liquid_density {density:.4f}"


sys.exit(main(verify))
