"""Recompute the LJ fluid's pressure statistics and RDF from the agent's LAMMPS log and dump; tie the dump to the run.

Every setting is read back from what LAMMPS wrote (the log's input echo after variable substitution, its lattice
and atom-count lines, the thermo columns, the dump header and rdf.dat's bins); the dump is rerun through LAMMPS with
the stated pair style and must give the log's potential energy at every frame.
"""

import os
import re
import sys

import lammpskit
import numpy as np
from verifykit import load_json, main

OUT = "/app/output"
N_ATOMS, DENSITY, TEMPERATURE, DT, TDAMP, CUTOFF = 500, 0.8442, 1.5, 0.005, 0.5, 2.5
EQUIL_STEPS, PROD_STEPS, THERMO_EVERY, DUMP_EVERY, BLOCKS, BINS = 5000, 20000, 100, 200, 10, 100
# Mean production pressure of the reference protocol over velocity seeds 1, 2, 3 (the task image, 2026-12-07):
# 4.435, 4.421, 4.396 (block SE 0.021, 0.025, 0.028); the window is the seeds' mean +- 0.15 (5 of the largest SE).
REFERENCE_PRESSURE, PRESSURE_WINDOW = 4.417, 0.15

# fix styles that integrate or thermostat the atoms
DYNAMICS = {"nvt", "nve", "npt", "nph", "langevin", "temp/berendsen", "temp/rescale", "temp/csvr", "nvt/sllod", "gld",
            "nve/limit", "gle", "temp/csld", "nvk", "nve/noforce"}  # fmt: skip


def rdf_blocks(path):
    """The blocks of a fix ave/time file in mode vector: [(timestep, rows array)]."""
    blocks, lines = [], [line for line in open(path).read().splitlines() if line.strip() and not line.startswith("#")]
    i = 0
    while i < len(lines):
        step, n = (int(w) for w in lines[i].split()[:2])
        blocks.append((step, np.array([line.split() for line in lines[i + 1 : i + 1 + n]], dtype=float)))
        i += 1 + n
    return blocks


def numpy_rdf(frames, bins, cutoff):
    """g(r) as LAMMPS' compute rdf normalizes it (ordered pairs / (shell fraction of the box x N (N - 1)))."""
    edges = np.linspace(0.0, cutoff, bins + 1)
    total, shell, n = np.zeros(bins), np.ones(bins), 1
    for _, box, columns in frames:
        xyz = np.column_stack([columns["x"], columns["y"], columns["z"]])
        n = len(xyz)
        for i in range(n - 1):
            d = xyz[i + 1 :] - xyz[i]
            d -= box * np.round(d / box)
            total += 2 * np.histogram(np.sqrt((d * d).sum(axis=1)), bins=edges)[0]
        shell = 4.0 / 3.0 * np.pi * (edges[1:] ** 3 - edges[:-1] ** 3) / np.prod(box)
    return 0.5 * (edges[1:] + edges[:-1]), total / len(frames) / (shell * n * (n - 1))


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


def verify(checks):
    for name in ("in.lj", "log.lammps", "traj.lammpstrj", "rdf.dat", "result.json"):
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
        assert len(runs) == 2 and len(plan) == 2, f"{len(runs)} thermo tables, expected 2 runs"
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
        for words in last.get("pair_coeff", []):
            assert [float(v) for v in words[3:5]] == [1.0, 1.0] and float(words[-1] if len(words) > 5 else 2.5) == 2.5
    with checks.check("timestep 0.005 (echo and the thermo Time column)"):
        assert [float(w[1]) for w in last.get("timestep", [])] == [DT], f"timestep {last.get('timestep')}"
        for head, rows in runs:
            time = rows[:, head.index("Time")]
            dt = np.diff(time) / np.diff(rows[:, 0])
            assert np.allclose(dt, DT, rtol=1e-6), f"Time / Step = {dt.min():g}-{dt.max():g}"
    with checks.check("Nose-Hoover NVT at T 1.5 (Tdamp 0.5) in both runs: 5000 then 20000 steps"):
        assert [steps for steps, _ in plan] == [EQUIL_STEPS, PROD_STEPS], f"runs {[s for s, _ in plan]}"
        for steps, fixes in plan:
            moving = [w for w in fixes.values() if w[3] in DYNAMICS]
            assert len(moving) == 1 and moving[0][3] == "nvt", f"run of {steps}: fixes {list(fixes.values())}"
            w = moving[0]
            assert w[2] == "all" and w[4] == "temp", w
            assert [float(v) for v in w[5:8]] == [TEMPERATURE, TEMPERATURE, TDAMP], w
        steps = production[:, 0]
        assert steps[-1] - steps[0] == PROD_STEPS and np.all(np.diff(steps) == THERMO_EVERY), (
            f"production thermo steps {steps[0]:g}-{steps[-1]:g}, spacing {set(np.diff(steps))}"
        )
        eq_head, eq = runs[0]
        assert eq[-1, 0] - eq[0, 0] == EQUIL_STEPS, f"equilibration {eq[-1, 0] - eq[0, 0]:g} steps"
    with checks.check("the production holds T 1.5 (mean temperature within 0.03)"):
        temp = production[1:, header.index("Temp")].mean()
        assert abs(temp - TEMPERATURE) <= 0.03, f"mean production temperature {temp:.4f}"
    frames = []
    with checks.check("traj.lammpstrj is the production's dump: every 200 steps, 500 atoms, box at density 0.8442"):
        dump = lammpskit.read_dump(f"{OUT}/traj.lammpstrj")
        frames = [(step, np.diff(bounds).ravel(), columns) for step, bounds, columns in dump]  # box lengths
        steps = [f[0] for f in frames]
        want = list(range(int(production[0, 0]), int(production[-1, 0]) + 1, DUMP_EVERY))
        assert steps == want, f"dump steps {steps[:2]}...{steps[-1:]} ({len(steps)}), production wants {len(want)}"
        for step, box, columns in frames:
            assert {"id", "type", "x", "y", "z"} <= set(columns) and len(columns["id"]) == N_ATOMS, f"step {step}"
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
    result = {}
    with checks.check("result.json readable"):
        result = load_json(f"{OUT}/result.json")
        assert {"mean_pressure", "pressure_block_se", "rdf_peak_r", "rdf_peak_g"} <= set(result), sorted(result)
    with checks.check("mean pressure and block SE (10 blocks) recomputed from the production thermo"):
        pressure = production[1:, header.index("Press")]
        assert len(pressure) == PROD_STEPS // THERMO_EVERY, f"{len(pressure)} production rows"
        blocks = pressure.reshape(BLOCKS, -1).mean(axis=1)
        se = blocks.std(ddof=1) / np.sqrt(BLOCKS)
        assert abs(result["mean_pressure"] - pressure.mean()) <= 1e-6 * abs(pressure.mean()), (
            f"mean pressure {result['mean_pressure']} != {pressure.mean():.8g} (log)"
        )
        assert abs(result["pressure_block_se"] - se) <= 1e-6 * se, f"block SE {result['pressure_block_se']} != {se:.6g}"
    with checks.check("mean pressure within 0.15 of the protocol's (4.417, three seeds)"):
        value = production[1:, header.index("Press")].mean()
        assert abs(value - REFERENCE_PRESSURE) <= PRESSURE_WINDOW, f"mean pressure {value:.4f}"
    rdf = None
    with checks.check("rdf.dat: one fix ave/time block at the production's end, 100 bins to 2.5 sigma"):
        blocks = rdf_blocks(f"{OUT}/rdf.dat")
        rdf = blocks[-1][1] if blocks else None
        assert len(blocks) == 1 and blocks[0][0] == int(production[-1, 0]), (
            f"blocks at steps {[b[0] for b in blocks]}, production ends at {production[-1, 0]:g}"
        )
        centres = (np.arange(BINS) + 0.5) * CUTOFF / BINS
        assert rdf.shape[0] == BINS and np.allclose(rdf[:, 1], centres, atol=1e-6), f"{rdf.shape[0]} bins"
    with checks.check("the RDF is the production frames' (numpy from the dump, steps after the first, 5e-5)"):
        r, g = numpy_rdf(frames[1:], BINS, CUTOFF)
        deviation = np.abs(rdf[:, 2] - g).max()
        assert deviation <= 5e-5, f"largest |g(r) - numpy's| {deviation:.3g}"
    with checks.check("first RDF peak: position and height as rdf.dat's maximum and the recomputed one"):
        peak = int(np.argmax(rdf[:, 2]))
        assert abs(result["rdf_peak_r"] - rdf[peak, 1]) <= 1e-6, f"peak {result['rdf_peak_r']}, rdf.dat {rdf[peak]}"
        assert abs(result["rdf_peak_g"] - rdf[peak, 2]) <= 1e-4, f"peak {result['rdf_peak_g']}, rdf.dat {rdf[peak, 2]}"
        assert int(np.argmax(g)) == peak and abs(g[peak] - result["rdf_peak_g"]) <= 2e-4, f"numpy peak {g.max():.5f}"


sys.exit(main(verify))
