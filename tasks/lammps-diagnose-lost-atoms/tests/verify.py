"""Read the fixed LJ input's production run back from its LAMMPS log, recompute the drift, and rerun the input."""

import re
import sys

import lammpskit as lk
from verifykit import load_json, main

OUT = "/app/output"
INPUT = "/app/inputs/in.lj"
# The planted causes (tests only, never in the image): a 0.025 tau step (5x), overlapping atoms from create_atoms
# random with no minimization, and a 0.05 sigma skin rebuilt every 10 steps unchecked.
CAUSES = {"timestep", "overlap", "neighbor"}
# |relative drift| per tau of a stable run: the reference (0.005 tau, skin 0.3, checked) over seeds lies well below;
# the 0.025 tau step and the old neighbour settings, each alone, lie above (contract.toml, item drift-bound).
DRIFT_BOUND = 1.0e-5
RUN_TAU, THERMO_TAU, NATOMS = 25.0, 0.5, 800
# The rerun's time limit (the reference reruns in ~15 s; the verifier has 240 s): an input that hangs fails a check.
RERUN_S = 150
INTEGRATORS = re.compile(
    r"^(nve|nvt|npt|nph|langevin|temp/|rigid|viscous|press/|deform|nve/|gld|gle|dpd|spring|momentum|recenter|"
    r"setforce|addforce|efield|wall|ttm|heat|ehex|restrain|smd|move)"
)


def production(log):
    """The commands the log echoes before its last ``run`` (the production run) and the fixes active in it."""
    cmds = lk.echo_commands(log)
    last = max((i for i, tokens in enumerate(cmds) if tokens[0] == "run"), default=None)
    fixes = [fixes for command, fixes in lk.runs(log) if command[0] == "run"]
    return (cmds[:last], fixes[-1]) if last is not None else (cmds, {})


def rerun(path):
    """Rerun the delivered input in a fresh folder: (its screen output, None) or ("", why it failed: LAMMPS's ERROR
    line, the time limit, an unreadable file)."""
    work = lk.fresh_folder("/tmp/rerun")
    try:
        return lk.run(open(path).read(), cwd=work, timeout=RERUN_S), None
    except (OSError, lk.LammpsError) as exc:
        return "", str(exc)


def drift(columns, rows):
    """Least-squares slope of TotEng against Time over every row, divided by |mean TotEng| (per tau)."""
    t = [r[columns.index("Time")] for r in rows]
    e = [r[columns.index("TotEng")] for r in rows]
    tm, em = sum(t) / len(t), sum(e) / len(e)
    return sum((a - tm) * (b - em) for a, b in zip(t, e)) / sum((a - tm) ** 2 for a in t) / abs(em)


def first_row(text):
    """The first thermo row of a log or screen output: (columns, values)."""
    blocks = lk.thermo_blocks(text)
    assert blocks, "no thermo output"
    return blocks[0][0], blocks[0][1][0]


def last(cmds, name):
    found = [tokens[1:] for tokens in cmds if tokens[0] == name]
    assert found, f"no {name} command before the production run"
    return found[-1]


def verify(checks):
    log = ""
    with checks.check("log.lammps readable"):
        log = open(f"{OUT}/log.lammps").read()
        assert log.startswith("LAMMPS (29 Sep 2021"), f"not a LAMMPS 29 Sep 2021 log: {log[:40]!r}"
    with checks.check("in.lj readable"):
        delivered = open(f"{OUT}/in.lj").read()
    result = {}
    with checks.check("result.json readable"):
        result = load_json(f"{OUT}/result.json")
    cmds = lk.echo_commands(log)
    with checks.check("the log is the delivered in.lj's: the log echoes its commands in order"):
        assert cmds, "no input echo in the log"
        assert lk.input_commands(log) == lk.commands(delivered), "the log's input echo differs from the delivered in.lj"
    setup, fixes = production(log)
    columns, rows, steps, natoms = [], [], None, None
    with checks.check("the production run completed with all 800 atoms (no lost atoms, no error)"):
        assert "ERROR" not in log, re.search(r"ERROR.*", log).group(0)
        assert any(tokens[0] == "run" for tokens in cmds), "no run command in the log's input echo"
        columns, rows, steps, natoms = lk.last_run(log)
        assert steps is not None, "the last run did not finish (no Loop line)"
        assert natoms == NATOMS, f"the run ended with {natoms} atoms"
    with checks.check("NVE: fix nve on all atoms the one integrating fix of the production run, no thermostat"):
        integrating = [f for f in fixes.values() if len(f) > 3 and INTEGRATORS.match(f[3])]
        assert [f[2:4] for f in integrating] == [["all", "nve"]] and len(integrating[0]) == 4, (
            f"fixes active in the production run: {[' '.join(f) for f in fixes.values()]}"
        )
    with checks.check("25 tau of NVE with thermo every 0.5 tau (Time column), steps as the log reports"):
        time = [r[columns.index("Time")] for r in rows]
        dt = float(last(setup, "timestep")[0])
        assert abs(time[-1] - time[0] - RUN_TAU) < 1e-6, f"the run spans {time[-1] - time[0]} tau"
        assert all(abs(b - a - THERMO_TAU) < 1e-6 for a, b in zip(time, time[1:])), "thermo rows not 0.5 tau apart"
        assert abs(steps * dt - RUN_TAU) < 1e-9, f"{steps} steps of {dt} tau"
        assert int(result["steps"]) == steps and result["steps"] == int(result["steps"]), (
            f"steps {result['steps']}, the log's {steps}"
        )
    with checks.check("the physics is the input's: lj/cut 2.5 (eps = sigma = 1, shifted), mass 1, 800 atoms, V 1000"):
        original = lk.echo_commands(open(INPUT).read())
        for name in ("units", "atom_style", "boundary", "region", "create_box", "create_atoms", "mass",
                     "pair_style", "pair_coeff", "pair_modify"):  # fmt: skip
            want = [" ".join(tokens) for tokens in original if tokens[0] == name]
            got = [" ".join(tokens) for tokens in setup if tokens[0] == name]
            assert got[-1:] == want, f"{name}: {got[-1:]} for the input's {want}"
        assert not [t for t in setup if t[0] in ("delete_atoms", "change_box", "displace_box", "read_data",
                                                 "read_restart", "set")], "atoms or box edited"  # fmt: skip
        assert re.search(r"^Created 800 atoms$", log, re.M), "atom count"
        assert re.search(r"^Created orthogonal box = \(0\.0+ 0\.0+ 0\.0+\) to \(10\.0+ 10\.0+ 10\.0+\)$", log, re.M)
        volume = {r[columns.index("Volume")] for r in rows}
        assert volume == {1000.0}, f"volume {sorted(volume)[:3]}"
    with checks.check("velocities are the input's: its velocity command, T* = 1.0 at the run's first row"):
        original = [" ".join(t) for t in lk.echo_commands(open(INPUT).read()) if t[0] == "velocity"]
        got = [" ".join(t) for t in setup if t[0] == "velocity"]
        assert got == original, f"velocity commands {got}"
        assert abs(rows[0][columns.index("Temp")] - 1.0) < 1e-6, f"T* {rows[0][columns.index('Temp')]} at the start"
    again, failed = rerun(f"{OUT}/in.lj")  # once, for the two checks on it; a crash or a hang fails them, not us
    with checks.check("the log comes from the delivered in.lj: its first thermo row is the rerun's"):
        assert failed is None, f"the rerun failed, nothing to compare: {failed}"
        names, mine = first_row(log)
        again_names, theirs = first_row(again)
        assert names == again_names, f"columns {names} vs {again_names}"
        for name, a, b in zip(names, mine, theirs, strict=True):
            assert abs(a - b) <= 1e-6 * max(abs(a), abs(b)) + 1e-6, f"{name}: {a} in the log, {b} rerun"
    with checks.check("drift_per_tau is the log's: least-squares slope of TotEng over Time / |mean TotEng|"):
        value = drift(columns, rows)
        # the agent reads the same log: any least-squares fit of its rows agrees far within 1e-3; a 1 % slip does not
        assert abs(float(result["drift_per_tau"]) - value) <= 1e-3 * abs(value) + 1e-12, (
            f"{result['drift_per_tau']} vs {value:.4g} per tau"
        )
    with checks.check("the delivered run conserves energy: |drift| <= 1e-5 per tau"):
        value = drift(columns, rows)
        assert abs(value) <= DRIFT_BOUND, f"drift {value:.3g} per tau"
    with checks.check("the rerun of the delivered in.lj completes with 800 atoms and |drift| <= 1e-5 per tau"):
        assert failed is None, failed
        again_columns, again_rows, again_steps, again_atoms = lk.last_run(again)
        assert again_steps == steps and again_atoms == NATOMS, f"{again_steps} steps with {again_atoms} atoms"
        value = drift(again_columns, again_rows)
        assert abs(value) <= DRIFT_BOUND, f"rerun drift {value:.3g} per tau"
    with checks.check("causes are exactly the planted ones (compared as a set)"):
        got = result["causes"]
        assert isinstance(got, list) and len(set(got)) == len(got), "causes must be a list without repeats"
        missing, extra = CAUSES - set(got), set(got) - CAUSES
        assert not missing and not extra, f"{len(missing)} causes missing, {len(extra)} not causes"


sys.exit(main(verify))
