"""Read the fixed input's settings back from the LAMMPS log it wrote, rerun it, and recompute the averages."""

import re
import sys

import lammpskit as lk
from verifykit import load_json, main

OUT = "/app/output"
INPUT = "/app/inputs/in.cu"
# The planted mistakes (tests only, never in the image): line, setting, the unit the value was written in.
WRONG_LINES = {(14, "timestep", "fs"), (15, "thermostat_damping", "fs"), (16, "pressure_conversion", "atm")}
# Pressure unit of each LAMMPS unit style, in bar (metal: bar; real: atm).
BAR_PER_PRESSURE_UNIT = {"metal": 1.0, "real": 1.01325}
INTEGRATORS = re.compile(r"(nve|nvt|npt|nph|langevin|temp/|rigid)")


def verify(checks):
    log = ""
    with checks.check("log.lammps readable"):
        log = open(f"{OUT}/log.lammps").read()
        assert log.startswith("LAMMPS (29 Sep 2021"), f"not a LAMMPS 29 Sep 2021 log: {log[:40]!r}"
    with checks.check("in.cu readable"):
        delivered = open(f"{OUT}/in.cu").read()
    result = {}
    with checks.check("result.json readable"):
        result = load_json(f"{OUT}/result.json")
    cmds = lk.echo_commands(log)
    with checks.check("the log is the delivered in.cu's: the log echoes its commands in order"):
        assert cmds, "no input echo in the log"
        assert lk.input_commands(log) == lk.commands(delivered), "the log's input echo differs from the delivered in.cu"
    units = "?"
    with checks.check("metal units and a 1 fs timestep, read back from the log"):
        units = lk.only(cmds, "units")[0]
        assert units == "metal", f"units {units}"
        dt = float(lk.only(cmds, "timestep")[0])
        assert abs(dt - 0.001) < 1e-12, f"timestep {dt} ps"
    with checks.check("Nose-Hoover NVT of all atoms at 300 K, damping 0.1 ps, the one integrator (log echo)"):
        fixes = [tokens for tokens in cmds if tokens[0] == "fix"]
        integrators = [f for f in fixes if len(f) > 3 and INTEGRATORS.match(f[3])]
        assert len(integrators) == 1 and integrators[0][2:4] == ["all", "nvt"], f"integrating fixes {integrators}"
        args = integrators[0][4:]
        assert args[0] == "temp" and len(args) == 4, f"fix nvt arguments {args}"
        t0, t1, damp = map(float, args[1:4])
        assert t0 == 300 and t1 == 300, f"temperatures {t0} {t1} K"
        assert abs(damp - 0.1) < 1e-12, f"damping time {damp} {'ps' if units == 'metal' else 'time units'}"
    with checks.check("the crystal, potential and velocities are the input's (256 Cu atoms, a = 3.615 A, Cu_u3)"):
        assert re.search(r"^Lattice spacing in x,y,z = 3\.615(0*) 3\.615\1 3\.615\1$", log, re.M), "lattice"
        assert re.search(r"^Created orthogonal box = \(0\.0+ 0\.0+ 0\.0+\) to \(14\.460+ 14\.460+ 14\.460+\)$",
                         log, re.M), "box"  # fmt: skip
        assert re.search(r"^Created 256 atoms$", log, re.M), "atom count"
        assert lk.only(cmds, "pair_style") == ["eam"], "pair_style"
        assert lk.only(cmds, "pair_coeff") == ["1", "1", "/usr/share/lammps/potentials/Cu_u3.eam"], "pair_coeff"
        assert lk.only(cmds, "mass") == ["1", "63.546"], "mass"
        velocity = [tokens for tokens in lk.echo_commands(open(INPUT).read()) if tokens[0] == "velocity"]
        assert [tokens for tokens in cmds if tokens[0] == "velocity"] == velocity, "the velocity line was changed"
    columns, rows, steps, natoms = [], [], 0, 0
    with checks.check("the run completed: 10 ps in 10000 steps of 1 fs, thermo every 100 fs (0-10000)"):
        columns, rows, steps, natoms = lk.last_run(log)
        assert steps is not None, "the run did not finish: no 'Loop time' line after it"
        step = [r[columns.index("Step")] for r in rows]
        assert steps == 10000 and natoms == 256, f"the run: {steps} steps, {natoms} atoms on its Loop line"
        assert step == [100.0 * k for k in range(101)], f"thermo rows at steps {step[:3]} ... {step[-1:]}"
        assert lk.only(cmds, "run") == ["10000"], f"run {lk.only(cmds, 'run')}"
    with checks.check("the log comes from a run of the delivered in.cu (rerun: rows to step 500 agree)"):
        work = lk.fresh_folder("/tmp/rerun")
        blocks = lk.thermo_blocks(lk.run(open(f"{OUT}/in.cu").read(), cwd=work, timeout=120))
        assert blocks, "the rerun printed no thermo output"
        again_columns, again = blocks[-1]
        assert again_columns == columns, f"rerun columns {again_columns}"
        for mine, theirs in zip(rows[:6], again[:6], strict=True):
            for name, a, b in zip(columns, mine, theirs, strict=True):
                assert abs(a - b) <= 1e-5 * max(abs(a), abs(b)) + 1e-4, f"{name} at step {mine[0]:.0f}: {a} vs {b}"
    pressure = []
    with checks.check("the pressure is also shown in GPa: a thermo column equal to Press / 10^4 in every row"):
        pressure = [r[columns.index("Press")] for r in rows]
        bar = BAR_PER_PRESSURE_UNIT.get(units, float("nan"))

        def in_gpa(k):
            return all(abs(r[k] - p * bar * 1e-4) <= 1e-6 * abs(p * bar * 1e-4) + 1e-7 for r, p in zip(rows, pressure))

        gpa = [k for k in range(len(columns)) if in_gpa(k)]
        assert gpa, f"no thermo column is Press ({units} units) in GPa"
    with checks.check("steps is the number of MD steps the log reports"):
        assert int(result["steps"]) == steps == 10000 and result["steps"] == int(result["steps"]), result["steps"]
    with checks.check("mean temperature over every thermo row matches the log (0.01 K)"):
        mean = sum(r[columns.index("Temp")] for r in rows) / len(rows)
        assert abs(float(result["mean_temperature_k"]) - mean) <= 0.01, f"{result['mean_temperature_k']} vs {mean}"
    with checks.check("mean pressure over every thermo row matches the log in bar (1 bar) and GPa (1e-4 GPa)"):
        bar = sum(pressure) / len(pressure) * BAR_PER_PRESSURE_UNIT[units]
        assert abs(float(result["mean_pressure_bar"]) - bar) <= 1.0, f"{result['mean_pressure_bar']} vs {bar:.1f}"
        assert abs(float(result["mean_pressure_gpa"]) - bar * 1e-4) <= 1e-4, (
            f"{result['mean_pressure_gpa']} vs {bar * 1e-4:.5f} GPa"
        )
    with checks.check("the thermostat holds 300 K (mean temperature of the run 285-310 K)"):
        mean = sum(r[columns.index("Temp")] for r in rows) / len(rows)
        assert 285 <= mean <= 310, f"mean temperature {mean:.1f} K"
    with checks.check("wrong_lines are exactly the input's wrong lines, each with its setting and unit"):
        got = {(int(w["line"]), str(w["setting"]), str(w["written_in"])) for w in result["wrong_lines"]}
        assert len(got) == len(result["wrong_lines"]), "duplicate entries"
        missing, extra = WRONG_LINES - got, got - WRONG_LINES
        assert not missing and not extra, f"{len(missing)} wrong lines missing or misnamed, {len(extra)} not wrong"


sys.exit(main(verify))
