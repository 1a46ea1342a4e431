"""Recompute the LJ liquid's thermal conductivity by reverse non-equilibrium MD (Muller-Plathe) from the agent's own
log and temperature profile; tie the profile to the log and the log to the delivered input.

Every setting is read back from what LAMMPS wrote: the log's input echo after variable substitution (units, lattice,
pair style, timestep, velocities, the fixes active during each run, the chunk compute), its "Created" lines and the
thermo columns. The delivered in.kappa must be the input the log echoes, and a rerun of it through the equilibration
and the production's first 1000 steps must give the log's thermo rows (the swaps and their cumulative heat
included). profile.dat must hold the production's three 10000-step blocks, and each block's atom-weighted mean
temperature must equal (N - 1) / N times the mean of the log's Temp over the block's 200 samples (exact: both come
from the same kinetic energies). The gradient (own fits of the last block) and kappa are then recomputed with numpy.
"""

import os
import re
import sys

import lammpskit as lk
import numpy as np
from verifykit import load_json, main

OUT = "/app/output"
N_ATOMS, DENSITY, CELLS, TEMPERATURE, DT, TDAMP, CUTOFF = 2000, 0.6, (5, 5, 20), 1.35, 0.005, 0.5, 2.5
EQUIL_STEPS, PROD_STEPS, EQUIL_THERMO, PROD_THERMO = 2000, 30000, 100, 50
SWAP_EVERY, LAYERS, NEVERY, NREPEAT, NFREQ = 50, 20, 50, 200, 10000
FIRST, LAST = 20000, 30000  # the steady-state window: the profile block written at step 30000
RERUN_STEPS = 1000
CELL = (4 / DENSITY) ** (1 / 3)
# fit ranges (0-based chunk indices): chunks 3-9 rising from the cold slab (chunk 1) to the hot one (chunk 11), 13-19
# falling back; chunks 20, 1, 2 and 10, 11, 12 (the slabs and their neighbours) are left out
RISING, FALLING = slice(2, 9), slice(12, 19)
# kappa of the reference protocol over velocity seeds 1, 2, 3 and 2024 (the task image, 2026-12-07): 3.554, 3.486,
# 3.356, 3.618 (mean 3.50, standard deviation 0.11), gradients 0.0416-0.0473. The profile of the production's first
# block gives 6.6-7.8 (gradient 0.021-0.025), no factor 2 6.7-7.2, A = Lx Lz 0.84-0.90; the fit over the slabs
# 3.14-3.22 sits inside: only the refit catches it.
KAPPA_WINDOW = (3.0, 4.1)
GRADIENT_WINDOW = (0.036, 0.056)

# fix styles the production may have: the integrator, the swaps and output
PRODUCTION_STYLES = {"nve", "thermal/conductivity", "ave/chunk", "ave/time", "print"}
DYNAMICS = re.compile(r"^(nvt|nve|npt|nph|langevin|temp/|gld|gle|nvk|ehex|heat|thermal/conductivity|viscosity)")


def profile_blocks(path):
    """{step: rows (chunk, Coord1, Ncount, value)} of a fix ave/chunk file, with each block's header values."""
    lines = [line.split() for line in open(path) if line.strip() and not line.lstrip().startswith("#")]
    blocks, i = {}, 0
    while i < len(lines):
        step, count, total = lines[i]
        rows = np.array([[float(v) for v in words] for words in lines[i + 1 : i + 1 + int(count)]], ndmin=2)
        assert rows.shape == (int(count), 4), f"block at step {step}: rows of {rows.shape[1]} values, expected 4"
        blocks[int(step)] = (rows, float(total))
        i += 1 + int(count)
    return blocks


def until_production_start(text, steps):
    """The delivered input up to its last ``run`` command (the production), that run shortened to ``steps``."""
    lines = text.splitlines()
    at = [i for i, line in enumerate(lines) if line.split("#")[0].split()[:1] == ["run"]]
    assert len(at) >= 2, "the delivered in.kappa has fewer than two run commands"
    return "\n".join(lines[: at[-1]] + [f"run {steps}"])


def slopes(rows, lz):
    """The two least-squares slopes dT/dz of a profile block: rising (chunks 3-9) and falling (chunks 13-19)."""
    z, t = rows[:, 1] * lz, rows[:, 3]
    return np.polyfit(z[RISING], t[RISING], 1)[0], np.polyfit(z[FALLING], t[FALLING], 1)[0]


def verify(checks):
    for name in ("in.kappa", "log.lammps", "profile.dat", "result.json"):
        checks.require(f"{name} exists", os.path.isfile(f"{OUT}/{name}"), f"{OUT}/{name} missing")
    log = open(f"{OUT}/log.lammps").read() if os.path.isfile(f"{OUT}/log.lammps") else ""
    delivered = open(f"{OUT}/in.kappa").read() if os.path.isfile(f"{OUT}/in.kappa") else ""
    cmds = lk.echo_commands(log)
    last = {}
    for words in cmds:
        last.setdefault(words[0], []).append(words)
    plan = [(lk.run_steps(words), fixes) for words, fixes in lk.runs(log)]
    finished = len(lk.loop_atoms(log))
    runs = [(head, np.array(rows)) for head, rows in lk.thermo_blocks(log)[:finished]]
    with checks.check("log.lammps is LAMMPS 29 Sep 2021's log of the delivered in.kappa, with two runs"):
        assert (lk.version(log) or "").startswith("29 Sep 2021"), f"first line {log.splitlines()[0] if log else ''!r}"
        assert lk.commands(delivered) == lk.input_commands(log), "the log's echo is not the delivered in.kappa"
        assert len(runs) == 2 and len(plan) == 2, f"{len(runs)} thermo tables, {len(plan)} run commands, expected 2"
    equil_head, equil = runs[0] if runs else ([], np.zeros((0, 0)))
    header, production = runs[-1] if runs else ([], np.zeros((0, 0)))
    box = [0.0, 0.0, 0.0]
    with checks.check("reduced units, 2000 atoms on an fcc lattice at density 0.6 in a 5 x 5 x 20 cell box"):
        assert [w[1] for w in last.get("units", [])] == ["lj"], f"units {last.get('units')}"
        lattice = last.get("lattice", [])
        assert len(lattice) == 1 and lattice[0][1] == "fcc", f"lattice {lattice}"
        assert abs(float(lattice[0][2]) - DENSITY) < 1e-9, f"lattice {lattice}"
        created = re.findall(r"^Created (\d+) atoms", log, re.M)
        assert created == [str(N_ATOMS)], f"created {created} atoms"
        found = re.findall(r"Created orthogonal box = \((\S+) (\S+) (\S+)\) to \((\S+) (\S+) (\S+)\)", log)
        assert len(found) == 1, f"{len(found)} 'Created orthogonal box' lines"
        lo, hi = np.array(found[0][:3], float), np.array(found[0][3:], float)
        box = list(hi - lo)
        want = np.array(CELLS) * CELL
        assert np.allclose(box, want, rtol=1e-6), f"box {box}, expected {want.tolist()}"
    with checks.check("lj/cut with a 2.5 sigma cutoff, epsilon = sigma = 1, mass 1 (log echo)"):
        styles = last.get("pair_style", [])
        assert len(styles) == 1 and styles[0][1] == "lj/cut" and float(styles[0][2]) == CUTOFF, styles
        coeffs = last.get("pair_coeff", [])
        assert len(coeffs) == 1 and coeffs[0][1:3] == ["1", "1"], f"pair_coeff {coeffs}"
        values = [float(v) for v in coeffs[0][3:]]
        assert values[:2] == [1.0, 1.0] and values[2:] in ([], [CUTOFF]), f"pair_coeff {coeffs[0]}"
        assert [[float(v) for v in w[1:]] for w in last.get("mass", [])] == [[1, 1]], f"mass {last.get('mass')}"
    with checks.check("timestep 0.005, velocities created at T 1.35 (echo and the thermo Time column)"):
        assert [float(w[1]) for w in last.get("timestep", [])] == [DT], f"timestep {last.get('timestep')}"
        velocity = last.get("velocity", [])
        assert len(velocity) == 1 and velocity[0][1:3] == ["all", "create"], f"velocity {velocity}"
        assert float(velocity[0][3]) == TEMPERATURE, f"velocity temperature {velocity[0][3]}"
        for head, rows in runs:
            dt = np.diff(rows[:, head.index("Time")]) / np.diff(rows[:, 0])
            assert np.allclose(dt, DT, rtol=1e-6), f"Time / Step = {dt.min():g}-{dt.max():g}"
    with checks.check("equilibration: 2000 steps under Nose-Hoover NVT at T 1.35 (Tdamp 0.5) alone, no swaps"):
        steps, fixes = plan[0]
        moving = [w for w in fixes.values() if len(w) > 3 and DYNAMICS.match(w[3])]
        assert steps == EQUIL_STEPS, f"first run {steps} steps"
        assert len(moving) == 1 and moving[0][2:5] == ["all", "nvt", "temp"], f"fixes {list(fixes.values())}"
        assert [float(v) for v in moving[0][5:8]] == [TEMPERATURE, TEMPERATURE, TDAMP], moving[0]
        assert len(moving[0]) == 8, f"fix nvt keywords {moving[0][8:]}"
        want = np.arange(0, EQUIL_STEPS + 1, EQUIL_THERMO)
        assert np.array_equal(equil[:, 0], want), f"equilibration thermo steps {equil[:, 0]}"
    # the production's swap and profile fixes, found whatever else its checks find wrong
    active = list(plan[-1][1].values()) if plan else []
    swap_id = next((w[1] for w in active if len(w) > 3 and w[3] == "thermal/conductivity"), None)
    chunk_fix = next((w for w in active if len(w) > 3 and w[3] == "ave/chunk"), None)
    with checks.check(
        "production: 30000 steps from step 0, fix nve alone (no thermostat), swaps every 50 steps along z, 20 layers"
    ):
        steps, fixes = plan[1]
        assert steps == PROD_STEPS, f"production {steps} steps"
        styles = [w[3] for w in fixes.values() if len(w) > 3]
        assert set(styles) <= PRODUCTION_STYLES, f"production fixes {list(fixes.values())}"
        moving = [w for w in fixes.values() if DYNAMICS.match(w[3]) and w[3] != "thermal/conductivity"]
        assert [w[2:] for w in moving] == [["all", "nve"]], f"production integrators/thermostats {moving}"
        swaps = [w for w in fixes.values() if w[3] == "thermal/conductivity"]
        assert len(swaps) == 1, f"{len(swaps)} fix thermal/conductivity"
        swap = swaps[0]
        assert swap[2] == "all" and swap[4:7] == [str(SWAP_EVERY), "z", str(LAYERS)], f"fix {' '.join(swap)}"
        assert swap[7:] in ([], ["swap", "1"]), f"fix thermal/conductivity keywords {swap[7:]}"
        chunks = [w for w in fixes.values() if w[3] == "ave/chunk"]
        assert len(chunks) == 1, f"{len(chunks)} fix ave/chunk"
        want = np.arange(0, PROD_STEPS + 1, PROD_THERMO)
        assert np.array_equal(production[:, 0], want), (
            f"production thermo steps {production[0, 0]:g}-{production[-1, 0]:g}, expected 0-30000 every 50"
        )
        assert f"f_{swap_id}" in header and "Temp" in header and "TotEng" in header, f"thermo columns {header}"
    with checks.check(
        "profile fix: ave/chunk 50 200 10000 of ke/1.5 per atom over chunk/atom bin/1d z lower 0.05 units reduced"
    ):
        assert chunk_fix is not None, "no production ave/chunk fix"
        assert chunk_fix[4:7] == [str(NEVERY), str(NREPEAT), str(NFREQ)], f"fix {' '.join(chunk_fix)}"
        computes = {w[1]: w for w in last.get("compute", []) if len(w) > 3}
        binning = computes.get(chunk_fix[7], [])
        assert binning[2:] == ["all", "chunk/atom", "bin/1d", "z", "lower", "0.05", "units", "reduced"], (
            f"chunk compute {' '.join(binning)}"
        )
        assert "file" in chunk_fix, f"fix {' '.join(chunk_fix)} writes no file"
        assert not {"ave", "norm", "bias", "adof", "cdof"} & set(chunk_fix[9:]), f"keywords {chunk_fix[9:]}"
    blocks = {}
    with checks.check("profile.dat holds the production's blocks at steps 10000, 20000, 30000: 20 layers, 2000 atoms"):
        blocks = profile_blocks(f"{OUT}/profile.dat")
        assert sorted(blocks) == [NFREQ, 2 * NFREQ, 3 * NFREQ], f"profile blocks at steps {sorted(blocks)}"
        for step, (rows, total) in blocks.items():
            assert len(rows) == LAYERS and total == N_ATOMS, f"step {step}: {len(rows)} chunks, {total} atoms"
            assert np.allclose(rows[:, 1], (np.arange(LAYERS) + 0.5) / LAYERS, atol=1e-9), f"Coord1 {rows[:, 1]}"
            assert abs(rows[:, 2].sum() - N_ATOMS) <= 1e-6 * N_ATOMS, f"step {step}: Ncount sums to {rows[:, 2].sum()}"
    with checks.check(
        "profile.dat is the log's run: each block's sum of Ncount x T equals (N - 1) x the log's mean Temp (1e-6)"
    ):
        assert blocks and len(production), "no profile or production rows"
        temps = dict(zip(production[:, 0].astype(int), production[:, header.index("Temp")]))
        for step, (rows, _) in sorted(blocks.items()):
            samples = range(step - (NREPEAT - 1) * NEVERY, step + 1, NEVERY)
            mean = np.mean([temps[s] for s in samples])
            mine = float((rows[:, 2] * rows[:, 3]).sum())
            assert abs(mine - (N_ATOMS - 1) * mean) <= 1e-6 * mine, (
                f"step {step}: sum Ncount T {mine:.8g}, (N - 1) <Temp> {(N_ATOMS - 1) * mean:.8g}"
            )
    with checks.check("production conserves energy: |TotEng drift| below 0.02 per atom over the 150 tau"):
        etotal = production[:, header.index("TotEng")]
        time = production[:, header.index("Time")]
        drift = np.polyfit(time, etotal, 1)[0] * (time[-1] - time[0])
        assert abs(drift) <= 0.02, f"total energy drift {drift:.3g} per atom"
    with checks.check("the heat f_swap starts at 0, never falls and gains 1000-2000 per 10000 steps"):
        heat = production[:, header.index(f"f_{swap_id}")]
        assert heat[0] == 0 and np.all(np.diff(heat) >= 0), "f_swap not zero at step 0 or falling"
        per_block = heat[-1] - heat[np.searchsorted(production[:, 0], FIRST)]
        assert 1000 <= per_block <= 2000, f"heat over steps 20000-30000 {per_block:.6g}"
    # the rerun last: an input writing absolute paths would overwrite the delivered files
    with checks.check("the log comes from in.kappa: a rerun to the production's step 1000 gives the log's rows"):
        work = lk.fresh_folder("/tmp/rerun")
        again = lk.thermo_blocks(lk.run(until_production_start(delivered, RERUN_STEPS), cwd=work, timeout=60))
        assert len(again) == 2 and len(runs) == 2, f"{len(again)} rerun thermo tables"
        for (head, rows), (again_head, again_rows) in zip(runs, again, strict=True):
            assert again_head == head, f"rerun columns {again_head}"
            count = len(again_rows)
            assert len(rows) >= count, f"{count} rerun rows for {len(rows)}"
            for mine, theirs in zip(rows[:count], again_rows, strict=True):
                for name, a, b in zip(head, mine, theirs, strict=True):
                    assert abs(a - b) <= 1e-6 * max(abs(a), abs(b)) + 1e-9, f"{name} at step {mine[0]:.0f}: {a} vs {b}"
        assert again[1][1][-1][0] == RERUN_STEPS, f"rerun stopped at step {again[1][1][-1][0]:g}"
    result = {}
    with checks.check("result.json readable"):
        result = load_json(f"{OUT}/result.json")
        assert {"kappa", "gradient"} <= set(result), sorted(result)
    gradient, kappa = None, None
    with checks.check("gradient recomputed from profile.dat's block at step 30000 (chunks 3-9 and 13-19; 1e-3)"):
        rising, falling = slopes(blocks[LAST][0], box[2])
        gradient = (rising - falling) / 2
        got = float(result["gradient"])
        assert abs(got - gradient) <= 1e-3 * abs(gradient), f"gradient {got} != {gradient:.6g}"
    with checks.check("kappa = Q / (2 Lx Ly t |dT/dz|) recomputed from the log's f_swap and the gradient (1e-3)"):
        assert gradient is not None, "no gradient recomputed"
        heat = dict(zip(production[:, 0].astype(int), production[:, header.index(f"f_{swap_id}")]))
        q = heat[LAST] - heat[FIRST]
        kappa = q / (2 * box[0] * box[1] * (LAST - FIRST) * DT * gradient)
        got = float(result["kappa"])
        assert abs(got - kappa) <= 1e-3 * abs(kappa), f"kappa {got} != {kappa:.6g}"
    with checks.check("kappa within 3.0-4.1 and the gradient within 0.036-0.056 (the protocol over four seeds)"):
        assert kappa is not None, "no kappa recomputed"
        assert KAPPA_WINDOW[0] <= kappa <= KAPPA_WINDOW[1], f"kappa {kappa:.4g} from the delivered files"
        assert GRADIENT_WINDOW[0] <= gradient <= GRADIENT_WINDOW[1], f"gradient {gradient:.4g}"


sys.exit(main(verify))
