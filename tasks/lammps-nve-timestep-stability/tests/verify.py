"""Read the 15 NVE runs back from their LAMMPS logs, tie each log to a rerun of in.nve, recompute every run's energy
drift per atom per tau and the largest stable timestep."""

import glob
import os
import re
import sys

import lammpskit as lk
from verifykit import load_json, main

OUT = "/app/output"
CANDIDATES, SEEDS = (0.005, 0.010, 0.015, 0.020, 0.030), (1, 2, 3)
NATOMS, RUN_TAU, THERMO_TAU, EQ_STEPS, EQ_DT = 256, 24.0, 0.12, 1000, 0.005
THRESHOLD = 5e-4  # |drift| per atom per tau (contract.toml, item criterion)
# The rerun of each log's input: its equilibration and the first RERUN_ROWS intervals of its NVE run.
RERUN_ROWS, RERUN_S = 5, 60
SYSTEM = {
    "units": [["lj"]],
    "atom_style": [["atomic"]],
    "lattice": [["fcc", "0.8442"]],
    "region": [["box", "block", "0", "4", "0", "4", "0", "4"]],
    "mass": [["1", "1.0"]],
    "pair_style": [["lj/cut", "2.5"]],
    "pair_coeff": [["1", "1", "1.0", "1.0", "2.5"]],
    "pair_modify": [["shift", "yes"]],
    "neighbor": [["0.3", "bin"]],
    "neigh_modify": [["every", "1", "delay", "0", "check", "yes"]],
}


def numeric(tokens):
    """Tokens with numbers normalised (1.0 and 1 and 1e0 compare equal), words kept."""
    out = []
    for token in tokens:
        try:
            out.append(repr(float(token)))
        except ValueError:
            out.append(token)
    return out


def timestep_at(cmds, index):
    """The timestep in force at command ``index`` (the last ``timestep`` before it; LAMMPS's lj default 0.005)."""
    found = [float(t[1]) for t in cmds[:index] if t[0] == "timestep"]
    return found[-1] if found else 0.005


def nve_rows(log):
    """The NVE run's thermo block (the log's last): columns, rows, and whether the run finished (its Loop line)."""
    columns, rows, steps, _ = lk.last_run(log)
    return columns, rows, steps is not None


def per_atom(cmds):
    """The factor turning the thermo's TotEng into energy per atom: 1 with norm yes (lj's default), 1/N with no."""
    norm = [t for t in cmds if t[0] == "thermo_modify" and "norm" in t]
    return 1.0 / NATOMS if norm and norm[-1][norm[-1].index("norm") + 1] == "no" else 1.0


def drift(log):
    """Least-squares slope of TotEng per atom against Time over every row of the NVE run, or None if it stopped."""
    columns, rows, finished = nve_rows(log)
    if not finished:
        return None
    t = [r[columns.index("Time")] for r in rows]
    e = [r[columns.index("TotEng")] * per_atom(lk.echo_commands(log)) for r in rows]
    tm, em = sum(t) / len(t), sum(e) / len(e)
    return sum((a - tm) * (b - em) for a, b in zip(t, e)) / sum((a - tm) ** 2 for a in t)


def identity(log):
    """(dt, seed) of a log: the timestep of its last run and its velocity command's seed, from the echo."""
    cmds = lk.echo_commands(log)
    last = max(k for k, t in enumerate(cmds) if t[0] == "run")
    velocity = [t for t in cmds if t[0] == "velocity"]
    return timestep_at(cmds, last), int(velocity[-1][4])


def rerun(delivered, dt, seed, steps):
    """in.nve with dt and seed set as index variables (as -var sets them) and its last run cut to ``steps``, run in
    a fresh folder: the screen output."""
    cut = lk.cut_run(delivered, steps, "last")
    work = lk.fresh_folder("/tmp/rerun")
    head = [f"variable dt index {dt!r}", f"variable seed index {seed}"]
    return lk.run("\n".join(head) + "\n" + cut, cwd=work, timeout=RERUN_S)


def verify(checks):
    delivered, result, logs = "", {}, {}
    with checks.check("in.nve readable"):
        delivered = open(f"{OUT}/in.nve").read()
    with checks.check("result.json readable"):
        result = load_json(f"{OUT}/result.json")
    with checks.check("15 LAMMPS 29 Sep 2021 logs in logs/, each echoing in.nve's commands"):
        paths = sorted(glob.glob(f"{OUT}/logs/*.log"))
        for path in paths:
            text = open(path).read()
            assert lk.version(text) == "29 Sep 2021 - Update 2", f"{os.path.basename(path)}: not a LAMMPS log"
            assert lk.input_commands(text) == lk.commands(delivered), (
                f"{os.path.basename(path)}: its input echo is not in.nve's commands"
            )
            logs[path] = text
        assert len(paths) == 15, f"{len(paths)} logs in logs/"
    ids = {}
    with checks.check("the runs are dt 0.005-0.030 x seeds 1-3, each once (timestep and seed from the echo)"):
        for path, text in logs.items():
            ids[path] = identity(text)
        found = sorted(ids.values())
        want = sorted((dt, seed) for dt in CANDIDATES for seed in SEEDS)
        assert len(found) == 15 and all(abs(a[0] - b[0]) < 1e-12 and a[1] == b[1] for a, b in zip(found, want)), (
            f"runs (dt, seed): {found}"
        )
    with checks.check("system: lj units, 256 atoms on fcc 0.8442 (4x4x4), lj/cut 2.5 shifted, mass 1, skin 0.3"):
        assert logs, "no logs"
        for path, text in logs.items():
            cmds = lk.echo_commands(text)
            for name, want in SYSTEM.items():
                got = [numeric(t[1:]) for t in cmds if t[0] == name]
                assert got == [numeric(w) for w in want], f"{os.path.basename(path)}: {name} {got}"
            assert re.search(r"^Created 256 atoms$", text, re.M), f"{os.path.basename(path)}: not 256 atoms created"
            edits = [t[0] for t in cmds if t[0] in ("delete_atoms", "change_box", "read_data", "read_restart", "set")]
            assert not edits, f"{os.path.basename(path)}: atoms or box edited ({edits})"
            assert [t for t in cmds if t[0] == "create_atoms"] == [["create_atoms", "1", "box"]], "create_atoms"
    with checks.check("equilibration: velocities at T* 1.0 (seed), then 1000 steps of 0.005 tau under fix nvt 1.0 0.5"):
        assert logs, "no logs"
        for path, text in logs.items():
            name, cmds, found = os.path.basename(path), lk.echo_commands(text), lk.runs(text)
            velocity = [t for t in cmds if t[0] == "velocity"]
            assert len(velocity) == 1 and numeric(velocity[0][1:4]) == numeric(["all", "create", "1.0"]), name
            assert velocity[0][5:] == ["dist", "gaussian", "mom", "yes", "rot", "yes"], f"{name}: {velocity[0]}"
            assert len(found) == 2, f"{name}: {len(found)} runs (an equilibration and the NVE run)"
            command, fixes = found[0]
            first = next(k for k, t in enumerate(cmds) if t[0] == "run")
            assert lk.run_steps(command) == EQ_STEPS and abs(timestep_at(cmds, first) - EQ_DT) < 1e-12, (
                f"{name}: equilibration {command} at dt {timestep_at(cmds, first)}"
            )
            fix = list(fixes.values())
            assert len(fix) == 1 and fix[0][2:4] == ["all", "nvt"], f"{name}: equilibration fixes {fix}"
            assert numeric(fix[0][4:]) == numeric(["temp", "1.0", "1.0", "0.5"]), f"{name}: {fix[0]}"
    with checks.check("NVE: fix nve on all atoms the only fix of the last run, 24 tau from step 0, thermo 0.12 tau"):
        assert logs, "no logs"
        for path, text in logs.items():
            name, cmds, found = os.path.basename(path), lk.echo_commands(text), lk.runs(text)
            command, fixes = found[-1]
            assert [f[2:] for f in fixes.values()] == [["all", "nve"]], f"{name}: fixes {list(fixes.values())}"
            assert cmds[-1][0] == "run", f"{name}: the NVE run is not the input's last command"
            dt = timestep_at(cmds, len(cmds) - 1)
            assert abs(lk.run_steps(command) * dt - RUN_TAU) < 1e-9, f"{name}: {command} at dt {dt}"
            columns, rows, _ = nve_rows(text)
            assert {"Time", "TotEng"} <= set(columns), f"{name}: columns {columns}"
            assert rows[0][0] == 0, f"{name}: the NVE run starts at step {rows[0][0]:.0f}, not reset to 0"
            time = [r[columns.index("Time")] for r in rows]  # LAMMPS's Time goes on from the equilibration's 5 tau
            assert all(abs(b - a - THERMO_TAU) < 1e-6 for a, b in zip(time, time[1:])), f"{name}: rows not 0.12 tau"
            if nve_rows(text)[2]:
                assert abs(time[-1] - time[0] - RUN_TAU) < 1e-6, f"{name}: spans {time[-1] - time[0]} tau"
    with checks.check("each log comes from in.nve: a rerun at its dt and seed gives its first thermo rows (1e-6)"):
        assert logs and len(ids) == len(logs), "no identified logs"
        for path, text in logs.items():
            name, (dt, seed) = os.path.basename(path), ids[path]
            # a run that stopped (Lost atoms) is rerun to its last row only, which LAMMPS printed before the error
            reached = round(nve_rows(text)[1][-1][0])
            screen = rerun(delivered, dt, seed, min(RERUN_ROWS * round(THERMO_TAU / dt), reached))
            mine, theirs = lk.thermo_blocks(text), lk.thermo_blocks(screen)
            assert len(theirs) == 2 and len(mine) == 2, f"{name}: {len(mine)} thermo blocks, rerun {len(theirs)}"
            for (cols, rows), (again_cols, again) in zip(mine, theirs):
                assert cols == again_cols, f"{name}: columns {cols} vs {again_cols}"
                for a_row, b_row in zip(rows, again[: RERUN_ROWS + 1]):
                    for col, a, b in zip(cols, a_row, b_row, strict=True):
                        assert abs(a - b) <= 1e-6 * max(abs(a), abs(b)) + 1e-6, (
                            f"{name}: {col} at step {a_row[0]:.0f}: {a} in the log, {b} rerun"
                        )
    with checks.check("every run's drift is its log's: slope of TotEng per atom over Time (1e-3 relative)"):
        runs = result["runs"]
        assert isinstance(runs, list) and len(runs) == 15, "runs must list 15 objects"
        reported = {(float(r["dt"]), int(r["seed"])): r["drift"] for r in runs}
        assert len(reported) == 15 and ids, "runs repeat a (dt, seed) pair"
        for path, text in logs.items():
            key, value = ids[path], drift(text)
            assert key in reported, f"no run {key} in result.json"
            got = reported[key]
            if value is None:
                assert got is None, f"{key}: drift {got} for a run that stopped"
            else:
                assert got is not None and abs(float(got) - value) <= 1e-3 * abs(value) + 1e-10, (
                    f"{key}: drift {got}, the log's {value:.4g} per atom per tau"
                )
    with checks.check("timestep is the largest stable candidate by the logs' drifts (|drift| <= 5e-4, 3 seeds)"):
        drifts = {}
        for path, text in logs.items():
            drifts.setdefault(ids[path][0], []).append(drift(text))
        chosen = None
        for dt in CANDIDATES:
            values = [d for key, d in drifts.items() if abs(key - dt) < 1e-12 for d in d]
            if len(values) != 3 or any(d is None or abs(d) > THRESHOLD for d in values):
                break
            chosen = dt
        got = result["timestep"]
        assert chosen is not None, "no candidate is stable in these logs"
        assert got is not None and abs(float(got) - chosen) < 1e-12, f"timestep {got}, the logs give {chosen}"


sys.exit(main(verify))
