"""Read the model and the NPT protocol back from each temperature's LAMMPS log, tie each log to a rerun of the
delivered input, recompute the lattice parameters from the logs' production rows and refit alpha."""

import os
import re
import shutil
import sys

import lammpskit as lk
from verifykit import load_json, main

OUT = "/app/output"
TEMPERATURES = (300, 600, 900)
CELLS, ATOMS, LATTICE = 4, 256, 3.615
# The protocol: 10000 steps of 1 fs, thermo every 50 steps; production = the rows at steps 5000-10000.
STEPS, THERMO, PRODUCTION_START, DT = 10000, 50, 5000, 0.001
TDAMP, PDAMP = 0.1, 1.0
# The reference protocol's windows (contract.toml: 3 seeds in the task image).
LATTICE_WINDOWS = {300: (3.630, 3.636), 600: (3.649, 3.655), 900: (3.670, 3.677)}
ALPHA_WINDOW = (1.75e-5, 2.0e-5)
TEMP_TOLERANCE = 0.05  # mean production temperature within 5 % of the target
PRESSURE_LIMIT = 1000.0  # |mean production pressure| in bar
RERUN_STEPS, RERUN_S = 200, 60
INTEGRATORS = re.compile(
    r"^(nve|nvt|npt|nph|langevin|temp/|rigid|viscous|press/|deform|nve/|gld|gle|dpd|spring|momentum|recenter|"
    r"setforce|addforce|efield|wall|ttm|heat|ehex|restrain|smd|move|box/relax)"
)


def before_run(cmds):
    last = max((k for k, tokens in enumerate(cmds) if tokens[0] == "run"), default=len(cmds))
    return [tokens for tokens in cmds[:last] if tokens[0] not in ("echo", "log")]


def rerun(delivered, temperature):
    """Rerun the delivered input at ``temperature`` (as ``-var T``) with its run cut to RERUN_STEPS steps."""
    cut = lk.cut_run(delivered, RERUN_STEPS, "last")
    work = f"/tmp/rerun-{temperature}"
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(OUT, work)
    return lk.run(f"variable T index {temperature}\necho screen\n" + cut, cwd=work, timeout=RERUN_S)


def lattice_rows(columns, rows):
    """Per production row: the lattice parameter (lx + ly + lz) / 3 / 4, and the rows' mean T and P."""
    lx, ly, lz = (columns.index(c) for c in ("Lx", "Ly", "Lz"))
    production = [r for r in rows if r[0] >= PRODUCTION_START]
    a = [(r[lx] + r[ly] + r[lz]) / 3 / CELLS for r in production]
    temp = sum(r[columns.index("Temp")] for r in production) / len(production)
    press = sum(r[columns.index("Press")] for r in production) / len(production)
    return a, temp, press


def fit_alpha(lattice):
    """Least-squares slope of a(T) over the three temperatures, divided by a(300 K)."""
    ts = list(TEMPERATURES)
    tm = sum(ts) / len(ts)
    am = sum(lattice[t] for t in ts) / len(ts)
    slope = sum((t - tm) * (lattice[t] - am) for t in ts) / sum((t - tm) ** 2 for t in ts)
    return slope / lattice[300]


def verify(checks):
    result, delivered = {}, ""
    with checks.check("result.json readable"):
        result = load_json(f"{OUT}/result.json")
        assert sorted(result) == ["alpha_per_k", "lattice_constant_angstrom"], f"keys {sorted(result)}"
        assert sorted(result["lattice_constant_angstrom"]) == sorted(str(t) for t in TEMPERATURES), (
            f"temperatures {sorted(result['lattice_constant_angstrom'])}"
        )
        float(result["alpha_per_k"])
    with checks.check("in.expansion readable"):
        delivered = open(f"{OUT}/in.expansion").read()
    logs = {}
    with checks.check("log.300.lammps, log.600.lammps, log.900.lammps readable: LAMMPS 29 Sep 2021 logs"):
        for t in TEMPERATURES:
            logs[t] = open(f"{OUT}/log.{t}.lammps", errors="replace").read()
            assert logs[t].startswith("LAMMPS (29 Sep 2021"), f"log.{t}.lammps: {logs[t][:40]!r}"
    cmds = {t: lk.echo_commands(log) for t, log in logs.items()}
    with checks.check("log echo: units metal, atomic, periodic, lattice fcc 3.615, 4x4x4 cells, 256 atoms"):
        assert len(cmds) == len(TEMPERATURES), "logs missing"
        for t, c in cmds.items():
            assert lk.only(c, "units") == ["metal"], f"{t} K: units {lk.only(c, 'units')}"
            assert [x[1:] for x in c if x[0] == "atom_style"] in ([], [["atomic"]]), f"{t} K: atom_style"
            assert [x[1:] for x in c if x[0] == "boundary"] in ([], [["p", "p", "p"]]), f"{t} K: boundary"
            lattice = lk.only(c, "lattice")
            assert lattice[0] == "fcc" and float(lattice[1]) == LATTICE and len(lattice) == 2, (
                f"{t} K: lattice {' '.join(lattice)} (fcc 3.615)"
            )
            region = lk.only(c, "region")
            assert region[1] == "block" and [float(v) for v in region[2:8]] == [0, CELLS] * 3, (
                f"{t} K: region {' '.join(region)}"
            )
            edits = [
                x[0]
                for x in c
                if x[0]
                in ("read_data", "read_restart", "replicate", "change_box", "delete_atoms", "displace_atoms", "set")
            ]
            assert not edits, f"{t} K: the crystal was edited: {edits}"
            assert lk.loop_atoms(logs[t]) == [ATOMS], f"{t} K: Loop lines {lk.loop_atoms(logs[t])}"
    with checks.check("log echo: pair_style eam with Cu_u3.eam"):
        assert len(cmds) == len(TEMPERATURES), "logs missing"
        for t, c in cmds.items():
            assert lk.only(c, "pair_style") == ["eam"], f"{t} K: pair_style {lk.only(c, 'pair_style')}"
            coeff = lk.only(c, "pair_coeff")
            assert coeff[:2] == ["*", "*"] and len(coeff) == 3, f"{t} K: pair_coeff {' '.join(coeff)}"
            assert os.path.basename(coeff[2]) == "Cu_u3.eam", f"{t} K: potential {coeff[2]}"
    with checks.check("one run of 10000 steps of 1 fs, the only integrator fix npt all at T, T, 0.1 and 0 bar (1 ps)"):
        assert len(cmds) == len(TEMPERATURES), "logs missing"
        for t in TEMPERATURES:
            found = lk.runs(logs[t])
            assert [command for command, _ in found] == [["run", str(STEPS)]], f"{t} K: runs {[x for x, _ in found]}"
            assert float(lk.only(cmds[t], "timestep")[0]) == DT, f"{t} K: timestep {lk.only(cmds[t], 'timestep')}"
            integrating = [f for f in found[0][1].values() if len(f) > 3 and INTEGRATORS.match(f[3])]
            assert [f[2:4] for f in integrating] == [["all", "npt"]], (
                f"{t} K: integrating fixes in the run: {[' '.join(f) for f in integrating]}"
            )
            keys = lk.keyword_triples(integrating[0][4:])
            assert keys.get("temp") == [float(t), float(t), TDAMP], f"{t} K: temp {keys.get('temp')}"
            coupling = [k for k in ("iso", "aniso") if k in keys]
            assert len(coupling) == 1 and keys[coupling[0]] == [0.0, 0.0, PDAMP], (
                f"{t} K: pressure coupling {[(k, keys[k]) for k in coupling]} (iso or aniso 0.0 0.0 1.0)"
            )
            other = set(keys) & {"tri", "x", "y", "z", "xy", "yz", "xz"}
            assert not other, f"{t} K: pressure coupling {other}"
            velocity = [x for x in cmds[t] if x[0] == "velocity"]
            assert len(velocity) == 1 and velocity[0][1:3] == ["all", "create"], f"{t} K: velocity {velocity}"
    table = {}
    with checks.check("thermo every 50 steps from 0 to 10000 with Temp, Press, Lx, Ly, Lz"):
        assert len(cmds) == len(TEMPERATURES), "logs missing"
        for t in TEMPERATURES:
            blocks = lk.thermo_blocks(logs[t])
            assert len(blocks) == 1, f"{t} K: {len(blocks)} thermo blocks"
            columns, rows = blocks[0]
            assert {"Step", "Temp", "Press", "Lx", "Ly", "Lz"} <= set(columns), f"{t} K: columns {columns}"
            steps = [r[0] for r in rows]
            assert steps == [float(THERMO * k) for k in range(STEPS // THERMO + 1)], (
                f"{t} K: rows at {steps[:3]}...{steps[-1:]}"
            )
            table[t] = (columns, rows)
    with checks.check("each log is the delivered in.expansion run at its T: a rerun echoes it and gives rows 0-200"):
        assert len(table) == len(TEMPERATURES), "logs missing"
        for t in TEMPERATURES:
            screen = rerun(delivered, t)
            assert before_run(lk.echo_commands(screen)) == before_run(cmds[t]), f"{t} K: the rerun's commands differ"
            columns, rows = table[t]
            again_columns, again = lk.thermo_blocks(screen)[0]
            assert again_columns == columns, f"{t} K: rerun columns {again_columns}"
            assert len(again) == RERUN_STEPS // THERMO + 1, f"{t} K: {len(again)} rerun rows"
            for mine, theirs in zip(rows, again):
                for name, x, y in zip(columns, mine, theirs, strict=True):
                    assert abs(x - y) <= 1e-6 * max(abs(x), abs(y)) + 1e-6, (
                        f"{t} K: {name} at step {mine[0]:.0f}: log {x}, rerun {y}"
                    )
    lattice, state = {}, {}
    for t in TEMPERATURES:
        if t in table:
            a, temp, press = lattice_rows(*table[t])
            lattice[t], state[t] = sum(a) / len(a), (temp, press, len(a))
    with checks.check("production state: 101 rows, mean T within 5 % of the target, |mean P| < 1000 bar"):
        assert len(state) == len(TEMPERATURES), "logs missing"
        for t, (temp, press, n) in state.items():
            assert n == (STEPS - PRODUCTION_START) // THERMO + 1, f"{t} K: {n} production rows"
            assert abs(temp - t) <= TEMP_TOLERANCE * t, f"{t} K: mean production temperature {temp:.1f} K"
            assert abs(press) < PRESSURE_LIMIT, f"{t} K: mean production pressure {press:.0f} bar"
    with checks.check("lattice parameters = the logs' mean (lx+ly+lz)/3/4 over steps 5000-10000 (1e-6 A)"):
        assert len(lattice) == len(TEMPERATURES), "logs missing"
        for t in TEMPERATURES:
            got = float(result["lattice_constant_angstrom"][str(t)])
            assert abs(got - lattice[t]) <= 1e-6, f"{t} K: {got} A, the log's production mean {lattice[t]:.7f} A"
    with checks.check("alpha = least-squares slope of a(T) / a(300 K), refitted from the logs (1e-6 relative)"):
        assert len(lattice) == len(TEMPERATURES), "logs missing"
        alpha = fit_alpha(lattice)
        got = float(result["alpha_per_k"])
        assert abs(got - alpha) <= 1e-6 * abs(alpha), f"alpha {got} /K, refitted from the logs {alpha:.6e} /K"
    with checks.check("lattice parameters are Cu_u3's at 300, 600, 900 K and 0 bar (3 seeds)"):
        assert len(lattice) == len(TEMPERATURES), "logs missing"
        for t, (lo, hi) in LATTICE_WINDOWS.items():
            assert lo <= lattice[t] <= hi, f"{t} K: {lattice[t]:.5f} A outside {lo}-{hi}"
    with checks.check("alpha is Cu_u3's over 300-900 K (1.75e-5 to 2.0e-5 /K, 3 seeds)"):
        assert len(lattice) == len(TEMPERATURES), "logs missing"
        alpha = fit_alpha(lattice)
        assert ALPHA_WINDOW[0] <= alpha <= ALPHA_WINDOW[1], f"alpha {alpha:.4e} /K"


sys.exit(main(verify))
