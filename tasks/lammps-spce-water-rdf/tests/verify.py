"""Read the SPC/E model and the NVT protocol back from the LAMMPS log, tie the log to a rerun of the delivered input
and the dump to the log (every frame rerun gives the log's energy), and recompute the O-O g(r), its first peak, its
first minimum and the coordination number from the dump's production frames."""

import re
import shutil
import sys

import lammpskit as lk
import numpy as np
from verifykit import load_json, main

OUT = "/app/output"
DATA = "/app/inputs/spce_216.data"
NMOL, NATOMS, NBONDS, NANGLES = 216, 648, 432, 216
# The protocol: one run of 5000 steps of 2 fs, thermo and dump every 50 steps; production = steps 2500-5000.
STEPS, EVERY, PRODUCTION_START, DT, TEMP, TDAMP = 5000, 50, 2500, 2.0, 298.0, 100.0
Q_O, Q_H = -0.8476, 0.4238
EPS_OO, SIGMA_OO, R_OH, THETA_HOH, CUTOFF, PPPM_ACCURACY = 0.1553, 3.166, 1.0, 109.47, 10.0, 1.0e-4
# The histogram the instruction defines: bins of 0.05 A from 0 to 8 A; the first minimum between the peak and 4 A.
DR, RMAX, MIN_LIMIT = 0.05, 8.0, 4.0
# The reference protocol's windows (contract.toml: 3 seeds in the task image).
PEAK_R_WINDOW, PEAK_G_WINDOW, MIN_R_WINDOW, COORD_WINDOW = (2.675, 2.775), (2.85, 3.25), (3.15, 3.65), (3.9, 5.6)
RERUN_STEPS, RERUN_S = 200, 120
INTEGRATORS = re.compile(
    r"^(nve|nvt|npt|nph|langevin|temp/|rigid|viscous|press/|deform|nve/|gld|gle|dpd|spring|momentum|recenter|"
    r"setforce|addforce|efield|wall|ttm|heat|ehex|restrain|smd|move|box/relax)"
)
MARK = "WESTBENCH-VALUE"
MODEL = f"""units real
atom_style full
boundary p p p
read_data {DATA}
set type 1 charge {Q_O}
set type 2 charge {Q_H}
pair_style lj/cut/coul/long {CUTOFF}
pair_coeff 1 1 {EPS_OO} {SIGMA_OO}
pair_coeff 1 2 0.0 0.0
pair_coeff 2 2 0.0 0.0
pair_modify tail yes
kspace_style pppm {PPPM_ACCURACY}
bond_style harmonic
bond_coeff 1 1000.0 {R_OH}
angle_style harmonic
angle_coeff 1 100.0 {THETA_HOH}
thermo_style custom step pe
thermo_modify format float %.12g"""


def pair_table(cmds):
    """{(i, j): (epsilon, sigma, cutoff or None)} of the echoed pair_coeff lines (types 1 and 2, * ranges)."""
    table = {}
    for tokens in cmds:
        if tokens[0] == "pair_coeff":
            args = tokens[1:]
            assert len(args) in (4, 5), f"pair_coeff {' '.join(args)}"
            types = [[1, 2] if a == "*" else [int(a)] for a in args[:2]]
            for i in types[0]:
                for j in types[1]:
                    table[(min(i, j), max(i, j))] = (
                        float(args[2]),
                        float(args[3]),
                        float(args[4]) if args[4:] else None,
                    )
    return table


def rerun_input(delivered):
    """Rerun the delivered input with its run cut to RERUN_STEPS steps, echoing its commands, then print the charges
    LAMMPS holds. (screen output, {name: value})."""
    cut = lk.cut_run(delivered, RERUN_STEPS, "last")
    prints = {
        "q_o": "charge(wb_o)/count(wb_o)", "q_h": "charge(wb_h)/count(wb_h)", "q_total": "charge(all)",
        "q_1": "q[1]", "q_2": "q[2]", "q_3": "q[3]", "q_last": f"q[{NATOMS}]", "n_o": "count(wb_o)",
    }  # fmt: skip
    tail = ["group wb_o type 1", "group wb_h type 2"]
    tail += [f'print "{MARK} {name} $({formula}:%.17g)"' for name, formula in prints.items()]
    work = "/tmp/rerun-input"
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(OUT, work)
    screen = lk.run("echo screen\n" + cut + "\n" + "\n".join(tail), cwd=work, timeout=RERUN_S)
    values = {name: float(v) for name, v in re.findall(rf"^{MARK} (\w+) (\S+)$", screen, re.M)}
    assert set(values) == set(prints), f"the rerun printed {sorted(values)}"
    return screen, values


def before_run(cmds):
    last = max((k for k, tokens in enumerate(cmds) if tokens[0] == "run"), default=len(cmds))
    return [tokens for tokens in cmds[:last] if tokens[0] != "echo"]


def rdf(frames):
    """g(r) of the O-O ordered pairs i != j (minimum image) over ``frames``, normalised by N_O, rho_O = N_O / V and
    the shells' exact volumes; returns bin centres, g, shell volumes and rho_O."""
    edges = np.arange(0.0, RMAX + DR / 2, DR)
    hist, n_o, volume = np.zeros(len(edges) - 1), None, None
    for _, bounds, columns in frames:
        lengths = np.diff(np.array(bounds), axis=1).ravel()
        oxygen = np.column_stack([columns[c] for c in ("x", "y", "z")])[columns["type"] == 1]
        d = oxygen[:, None, :] - oxygen[None, :, :]
        d -= lengths * np.round(d / lengths)
        r = np.sqrt((d**2).sum(axis=-1))[~np.eye(len(oxygen), dtype=bool)]
        hist += np.histogram(r, bins=edges)[0]
        n_o, volume = len(oxygen), float(np.prod(lengths))
    rho = n_o / volume
    shell = 4.0 / 3.0 * np.pi * (edges[1:] ** 3 - edges[:-1] ** 3)
    return (edges[1:] + edges[:-1]) / 2, hist / (len(frames) * n_o * rho * shell), shell, rho


def features(centers, g, shell, rho):
    """First peak (r, g), first minimum r (the smallest g between the peak and 4 A) and the coordination number."""
    peak = int(np.argmax(g))
    window = np.flatnonzero((centers > centers[peak]) & (centers <= MIN_LIMIT))
    minimum = int(window[np.argmin(g[window])])
    return centers[peak], g[peak], centers[minimum], rho * float(np.sum(g[: minimum + 1] * shell[: minimum + 1]))


def verify(checks):
    log, delivered, result = "", "", {}
    with checks.check("log.lammps readable"):
        log = open(f"{OUT}/log.lammps").read()
        assert log.startswith("LAMMPS (29 Sep 2021"), f"not a LAMMPS 29 Sep 2021 log: {log[:40]!r}"
    with checks.check("in.rdf readable"):
        delivered = open(f"{OUT}/in.rdf").read()
    with checks.check("result.json readable"):
        result = load_json(f"{OUT}/result.json")
        keys = ["coordination_number", "first_minimum_r_angstrom", "first_peak_g", "first_peak_r_angstrom"]
        assert sorted(result) == keys, f"keys {sorted(result)}"
    table = None
    with checks.check("rdf.dat readable: 160 rows of r and g"):
        table = np.loadtxt(f"{OUT}/rdf.dat", comments="#", ndmin=2)
        assert table.shape == (round(RMAX / DR), 2), f"rdf.dat has shape {table.shape}"
    cmds = lk.echo_commands(log)
    with checks.check("real units, the shipped data file read as is: 648 atoms, 432 bonds, 216 angles"):
        assert lk.only(cmds, "units") == ["real"], f"units {lk.only(cmds, 'units')}"
        assert lk.only(cmds, "atom_style") == ["full"], f"atom_style {lk.only(cmds, 'atom_style')}"
        assert lk.only(cmds, "read_data") == [DATA], f"read_data {lk.only(cmds, 'read_data')}"
        edits = {"create_atoms", "delete_atoms", "delete_bonds", "change_box", "displace_atoms", "read_restart"}
        edits |= {"replicate", "create_bonds", "read_dump"}
        assert not [t[0] for t in cmds if t[0] in edits], f"the system was edited: {[t for t in cmds if t[0] in edits]}"
        for count, what in ((NATOMS, "atoms"), (NBONDS, "bonds"), (NANGLES, "angles")):
            assert re.search(rf"^\s+{count} {what}$", log, re.M), f"the log does not read {count} {what}"
    with checks.check("SPC/E Lennard-Jones O-O 0.1553 kcal/mol, 3.166 A, none on H; lj/cut/coul/long 10 A, tail yes"):
        style = lk.only(cmds, "pair_style")
        assert style[0] == "lj/cut/coul/long" and [float(v) for v in style[1:]] in ([CUTOFF], [CUTOFF, CUTOFF]), (
            f"pair_style {' '.join(style)}"
        )
        pairs = pair_table(cmds)
        assert set(pairs) == {(1, 1), (1, 2), (2, 2)}, f"pair coefficients set for {sorted(pairs)}"
        eps, sigma, _ = pairs[(1, 1)]
        assert abs(eps - 0.15535) <= 5e-4 and abs(sigma - SIGMA_OO) <= 1e-3, f"O-O epsilon {eps}, sigma {sigma}"
        assert pairs[(1, 2)][0] == 0 and pairs[(2, 2)][0] == 0, f"H Lennard-Jones {pairs[(1, 2)]} {pairs[(2, 2)]}"
        assert all(c is None or c == CUTOFF for _, _, c in pairs.values()), "a pair cutoff other than 10 A"
        tail = [t[t.index("tail") + 1] for t in cmds if t[0] == "pair_modify" and "tail" in t[:-1]]
        assert tail[-1:] == ["yes"], f"pair_modify tail {tail[-1:]}"
        special = [t for t in cmds if t[0] == "special_bonds"]
        assert all(t[1:] in (["lj/coul", "0.0", "0.0", "0.0"], ["lj/coul", "0", "0", "0"]) for t in special), special
    with checks.check("kspace pppm with relative accuracy 1e-4"):
        kspace = lk.only(cmds, "kspace_style")
        assert kspace[0] == "pppm" and len(kspace) == 2 and float(kspace[1]) == PPPM_ACCURACY, f"kspace {kspace}"
    fixes = {}
    with checks.check("one run of 5000 steps (no minimization), 648 atoms on its Loop line"):
        found = lk.runs(log)
        assert [command for command, _ in found] == [["run", str(STEPS)]], f"runs {[c for c, _ in found]}"
        fixes = found[0][1]
        assert lk.loop_atoms(log) == [NATOMS], f"Loop lines {lk.loop_atoms(log)}"
    with checks.check("rigid SPC/E geometry: fix shake on bond type 1 and angle type 1 (1.0 A, 109.47 deg)"):
        shake = [f for f in fixes.values() if len(f) > 3 and f[3] in ("shake", "rattle")]
        assert len(shake) == 1 and shake[0][2] == "all", f"SHAKE fixes active in the run: {shake}"
        args = shake[0][7:]
        bonds = args[args.index("b") + 1 : args.index("b") + 2] if "b" in args else []
        angles = args[args.index("a") + 1 : args.index("a") + 2] if "a" in args else []
        assert bonds == ["1"] and angles == ["1"], f"SHAKE constrains bonds {bonds}, angles {angles}"
        assert lk.only(cmds, "bond_style") == ["harmonic"] and lk.only(cmds, "angle_style") == ["harmonic"], "styles"
        bond, angle = lk.only(cmds, "bond_coeff"), lk.only(cmds, "angle_coeff")
        assert bond[0] == "1" and abs(float(bond[2]) - R_OH) <= 1e-6, f"bond_coeff {' '.join(bond)}"
        assert angle[0] == "1" and abs(float(angle[2]) - THETA_HOH) <= 1e-3, f"angle_coeff {' '.join(angle)}"
    with checks.check("Nose-Hoover NVT of all atoms at 298 K (100 fs), velocities at 298 K, 2 fs steps"):
        integrating = [f for f in fixes.values() if len(f) > 3 and INTEGRATORS.match(f[3])]
        assert [f[2:5] for f in integrating] == [["all", "nvt", "temp"]], (
            f"integrating fixes in the run: {[' '.join(f) for f in integrating]}"
        )
        assert [float(v) for v in integrating[0][5:8]] == [TEMP, TEMP, TDAMP], (
            f"{' '.join(integrating[0])} (nvt temp 298 298 100)"
        )
        assert float(lk.only(cmds, "timestep")[0]) == DT, f"timestep {lk.only(cmds, 'timestep')}"
        velocity = [t for t in cmds if t[0] == "velocity"]
        assert len(velocity) == 1 and velocity[0][1:3] == ["all", "create"] and float(velocity[0][3]) == TEMP, (
            f"velocity {velocity}"
        )
    columns, rows = [], []
    with checks.check("thermo every 50 steps from 0 to 5000 with Temp and PotEng (not normalized)"):
        blocks = lk.thermo_blocks(log)
        assert len(blocks) == 1, f"{len(blocks)} thermo blocks"
        columns, rows = blocks[0]
        assert {"Step", "Temp", "PotEng"} <= set(columns), f"columns {columns}"
        steps = [r[0] for r in rows]
        assert steps == [float(EVERY * k) for k in range(STEPS // EVERY + 1)], f"rows at {steps[:3]}...{steps[-1:]}"
        norm = [t for t in cmds if t[0] == "thermo_modify" and "norm" in t]
        assert not norm or norm[-1][norm[-1].index("norm") + 1] == "no", "thermo_modify norm yes"
    values = {}
    with checks.check("the log comes from the delivered in.rdf: a rerun echoes its commands and gives rows 0-200"):
        screen, values = rerun_input(delivered)
        assert before_run(lk.echo_commands(screen)) == before_run(cmds), "the rerun's commands differ"
        again_columns, again = lk.thermo_blocks(screen)[0]
        assert again_columns == columns, f"rerun columns {again_columns}"
        assert len(again) == RERUN_STEPS // EVERY + 1, f"{len(again)} rerun rows"
        for mine, theirs in zip(rows, again):
            for name, a, b in zip(columns, mine, theirs, strict=True):
                assert abs(a - b) <= 1e-6 * max(abs(a), abs(b)) + 1e-6, f"{name} at step {mine[0]:.0f}: {a} vs {b}"
    with checks.check("SPC/E charges O -0.8476 e, H +0.4238 e as LAMMPS holds them (rerun)"):
        assert values, "the rerun gave no values"
        assert values["n_o"] == NMOL, f"{values['n_o']} O"
        for name, want in (("q_o", Q_O), ("q_1", Q_O), ("q_h", Q_H), ("q_2", Q_H), ("q_3", Q_H), ("q_last", Q_H)):
            assert abs(values[name] - want) <= 1e-6, f"{name} {values[name]} e (SPC/E {want})"
        assert abs(values["q_total"]) <= 1e-6, f"net charge {values['q_total']}"
    frames = []
    with checks.check("dump.water: every 50 steps from 0 to 5000, 648 atoms with id, type, x, y, z, 10 digits"):
        frames = lk.read_dump(f"{OUT}/dump.water")
        steps = [step for step, _, _ in frames]
        assert steps == list(range(0, STEPS + 1, EVERY)), f"dump steps {steps[:3]}...{steps[-1:]} ({len(steps)})"
        for step, _, data in frames:
            assert {"id", "type", "x", "y", "z"} <= set(data), f"dump columns {sorted(data)}"
            assert len(data["id"]) == NATOMS and list(data["id"]) == list(range(1, NATOMS + 1)), f"ids at {step}"
            assert int((data["type"] == 1).sum()) == NMOL, f"{int((data['type'] == 1).sum())} O at step {step}"
        text = open(f"{OUT}/dump.water").read().splitlines()
        header = [line.split()[2:] for line in text if line.startswith("ITEM: ATOMS")][-1]
        last = [line.split()[header.index("x")] for line in text[-NATOMS:]]
        digits = max(len(re.sub(r"e.*|[-+.]", "", value).lstrip("0")) for value in last)
        assert digits >= 9, f"the last frame's x has at most {digits} significant digits (10 asked)"
    with checks.check("the dump comes from the run: every frame rerun under SPC/E gives the log's PotEng (1e-6)"):
        assert frames, "no dump frames to rerun"
        energies = lk.rerun_energies(MODEL, f"{OUT}/dump.water", cwd="/tmp")
        logged = {round(r[0]): r[columns.index("PotEng")] for r in rows}
        for step, _, _ in frames:
            assert step in energies and step in logged, f"step {step} missing from the rerun or the log"
            a, b = energies[step], logged[step]
            assert abs(a - b) <= 1e-6 * abs(b) + 1e-4, f"step {step}: rerun PotEng {a}, the log's {b}"
    production = [f for f in frames if f[0] >= PRODUCTION_START]
    found = None
    if len(production) == (STEPS - PRODUCTION_START) // EVERY + 1:
        centers, g, shell, rho = rdf(production)
        found = features(centers, g, shell, rho)
    with checks.check("rdf.dat is the O-O g(r) of the 51 production frames (bin centres, 1e-5)"):
        assert found is not None and table is not None, "no production frames or no rdf.dat"
        assert np.abs(table[:, 0] - centers).max() <= 1e-6, "rdf.dat's r column is not the bin centres 0.025-7.975"
        worst = int(np.argmax(np.abs(table[:, 1] - g)))
        assert abs(table[worst, 1] - g[worst]) <= 1e-5, (
            f"g({centers[worst]:.3f}) {table[worst, 1]}, dump {g[worst]:.6f}"
        )
    with checks.check("first peak position and height recomputed from the production frames (bin centre, 1e-5)"):
        assert found is not None, "no production frames"
        r_peak, g_peak = float(result["first_peak_r_angstrom"]), float(result["first_peak_g"])
        assert abs(r_peak - found[0]) <= 1e-6, f"first peak at {r_peak} A, the dump's at {found[0]:.3f} A"
        assert abs(g_peak - found[1]) <= 1e-5, f"first peak height {g_peak}, the dump's {found[1]:.6f}"
    with checks.check("first minimum and coordination number recomputed from the production frames (1e-5)"):
        assert found is not None, "no production frames"
        r_min, n_c = float(result["first_minimum_r_angstrom"]), float(result["coordination_number"])
        assert abs(r_min - found[2]) <= 1e-6, f"first minimum at {r_min} A, the dump's at {found[2]:.3f} A"
        assert abs(n_c - found[3]) <= 1e-5, f"coordination number {n_c}, the dump's {found[3]:.6f}"
    with checks.check("g(r) is SPC/E's at 298 K: first peak 2.675-2.775 A and 2.85-3.25 (3 seeds)"):
        assert found is not None, "no production frames"
        assert PEAK_R_WINDOW[0] <= found[0] <= PEAK_R_WINDOW[1], f"first peak at {found[0]:.3f} A"
        assert PEAK_G_WINDOW[0] <= found[1] <= PEAK_G_WINDOW[1], f"first peak height {found[1]:.3f}"
    with checks.check("first shell is SPC/E's: minimum 3.15-3.65 A, coordination number 3.9-5.6 (3 seeds)"):
        assert found is not None, "no production frames"
        assert MIN_R_WINDOW[0] <= found[2] <= MIN_R_WINDOW[1], f"first minimum at {found[2]:.3f} A"
        assert COORD_WINDOW[0] <= found[3] <= COORD_WINDOW[1], f"coordination number {found[3]:.3f}"


sys.exit(main(verify))
