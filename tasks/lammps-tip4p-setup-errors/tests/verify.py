"""Read the TIP4P/2005 model back from the fixed input's LAMMPS log and from LAMMPS itself (a rerun of the delivered
input's first steps), check that nothing else changed, recompute the density average and grade the causes."""

import re
import shutil
import sys

import lammpskit as lk
from verifykit import load_json, main

OUT = "/app/output"
INPUT = "/app/inputs/in.tip4p"
DATA = "/app/inputs/tip4p_216.data"
# The planted errors (tests only, never in the image): the H charge of TIP4P-Ew (0.5242; the molecule is not
# neutral), the O-M distance of TIP4P/Ice (0.1577 A), plain pppm where the M site needs pppm/tip4p (LAMMPS stops).
CAUSES = {"hydrogen_charge", "om_distance", "kspace_style"}
# The three wrong lines of the input, by their first tokens.
WRONG = (["set", "type", "2"], ["pair_style", "lj/cut/tip4p/long", "1"], ["kspace_style", "pppm", "1.0e-4"])
NMOL, NATOMS = 216, 648
STEPS, THERMO, WINDOW_START = 5000, 100, 2500
# TIP4P/2005 (Abascal and Vega 2005): q_H (e), q_M on the oxygen type, O-M (A), O-O Lennard-Jones (kcal/mol, A),
# rigid geometry (A, deg).
Q_H, Q_M, OM = 0.5564, -1.1128, 0.1546
EPS_OO, SIGMA_OO = 0.1852, 3.1589  # epsilon/k = 93.2 K = 0.18520 kcal/mol
R_OH, THETA_HOH = 0.9572, 104.52
CUTOFF, PPPM_ACCURACY = 8.5, 1.0e-4
# The density of the fixed input (contract.toml, item density-window: 3 velocity seeds in the task image).
DENSITY_WINDOW = (0.975, 1.030)
RERUN_STEPS, RERUN_S = 300, 120
MARK = "WESTBENCH-VALUE"


def through_run(cmds):
    """The commands up to and including the first ``run`` (LAMMPS's messages after it are not input)."""
    first = next((k for k, tokens in enumerate(cmds) if tokens[0] == "run"), len(cmds) - 1)
    return [tokens for tokens in cmds[: first + 1] if tokens[0] != "echo"]


def rerun(delivered):
    """Rerun the delivered input with its run cut to its first RERUN_STEPS steps, echoing its commands, then print
    the per-type charges LAMMPS holds: (screen output, values)."""
    cut = lk.cut_run(delivered, RERUN_STEPS, "last")
    prints = {
        "q_o": "charge(wb_o)/count(wb_o)", "q_h": "charge(wb_h)/count(wb_h)", "q_total": "charge(all)",
        "q_1": "q[1]", "q_2": "q[2]", "q_3": "q[3]", "q_last": f"q[{NATOMS}]", "n_o": "count(wb_o)",
        "n_h": "count(wb_h)",
    }  # fmt: skip
    tail = ["group wb_o type 1", "group wb_h type 2"]
    tail += [f'print "{MARK} {name} $({formula}:%.17g)"' for name, formula in prints.items()]
    work = "/tmp/rerun"
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(OUT, work)
    screen = lk.run("echo screen\n" + cut + "\n" + "\n".join(tail), cwd=work, timeout=RERUN_S)
    values = {name: float(v) for name, v in re.findall(rf"^{MARK} (\w+) (\S+)$", screen, re.M)}
    assert set(values) == set(prints), f"the rerun printed {sorted(values)}"
    return screen, values


def verify(checks):
    log = ""
    with checks.check("log.lammps readable"):
        log = open(f"{OUT}/log.lammps").read()
        assert log.startswith("LAMMPS (29 Sep 2021"), f"not a LAMMPS 29 Sep 2021 log: {log[:40]!r}"
    delivered = ""
    with checks.check("in.tip4p readable"):
        delivered = open(f"{OUT}/in.tip4p").read()
    result = {}
    with checks.check("result.json readable"):
        result = load_json(f"{OUT}/result.json")
    cmds = lk.echo_commands(log)
    with checks.check("nothing else changed: every other line of the input is in the log's echo, in place"):
        shipped = through_run(lk.echo_commands(open(INPUT).read()))
        ran = through_run(cmds)
        assert len(ran) == len(shipped), f"{len(ran)} commands ran for the input's {len(shipped)}"
        wrong = [k for k, tokens in enumerate(shipped) if tokens[:3] in WRONG]
        changed = [k for k, (a, b) in enumerate(zip(shipped, ran)) if a != b]
        head = [len(WRONG[0]) + 1 if shipped[k][0] == "set" else 1 for k in range(len(shipped))]  # set type 2 charge
        others = [" ".join(shipped[k]) for k in changed if k not in wrong or ran[k][: head[k]] != shipped[k][: head[k]]]
        assert not others, f"lines changed beyond the model's: {others}"
    with checks.check("the M site: pair_style lj/cut/tip4p/long 1 2 1 1 with O-M 0.1546 A and an 8.5 A cutoff"):
        style = lk.only(cmds, "pair_style")
        assert style[0] == "lj/cut/tip4p/long" and style[1:5] == ["1", "2", "1", "1"], f"pair_style {' '.join(style)}"
        assert abs(float(style[5]) - OM) <= 1e-9, f"O-M distance {style[5]} A (TIP4P/2005: {OM})"
        assert [float(v) for v in style[6:]] in ([CUTOFF], [CUTOFF, CUTOFF]), f"cutoff {style[6:]}"
    with checks.check("kspace pppm/tip4p with relative accuracy 1e-4"):
        kspace = lk.only(cmds, "kspace_style")
        assert kspace[0] == "pppm/tip4p" and len(kspace) == 2, f"kspace_style {' '.join(kspace)}"
        assert abs(float(kspace[1]) - PPPM_ACCURACY) <= 1e-12, f"accuracy {kspace[1]}"
    fixes = {}
    with checks.check("one run of 5000 steps with 648 atoms, thermo every 100 steps"):
        found = lk.runs(log)
        assert [command for command, _ in found] == [["run", str(STEPS)]], f"runs {[c for c, _ in found]}"
        fixes = found[0][1]
        assert lk.loop_atoms(log) == [NATOMS], f"Loop lines {lk.loop_atoms(log)}"
    with checks.check("TIP4P/2005 Lennard-Jones and rigid geometry: O-O 0.1852, 3.1589 A; SHAKE b 1 a 1, 0.9572 A"):
        coeffs = {(t[1], t[2]): [float(v) for v in t[3:]] for t in cmds if t[0] == "pair_coeff"}
        assert coeffs.get(("1", "1")) == [EPS_OO, SIGMA_OO], f"O-O {coeffs.get(('1', '1'))}"
        assert coeffs.get(("1", "2"), [0])[0] == 0 and coeffs.get(("2", "2"), [0])[0] == 0, f"H LJ {coeffs}"
        shake = [f for f in fixes.values() if len(f) > 3 and f[3] in ("shake", "rattle")]
        assert len(shake) == 1 and shake[0][2] == "all", f"SHAKE fixes active in the run: {shake}"
        assert shake[0][7:] == ["b", "1", "a", "1"], f"SHAKE constrains {shake[0][7:]}"
        bond, angle = lk.only(cmds, "bond_coeff"), lk.only(cmds, "angle_coeff")
        assert bond[0] == "1" and float(bond[2]) == R_OH, f"bond_coeff {' '.join(bond)}"
        assert angle[0] == "1" and float(angle[2]) == THETA_HOH, f"angle_coeff {' '.join(angle)}"
        assert lk.only(cmds, "read_data") == [DATA], f"read_data {lk.only(cmds, 'read_data')}"
    columns, rows = [], []
    with checks.check("thermo rows every 100 steps from 0 to 5000 with Density"):
        blocks = lk.thermo_blocks(log)
        assert len(blocks) == 1, f"{len(blocks)} thermo blocks"
        columns, rows = blocks[0]
        assert "Density" in columns, f"columns {columns}"
        steps = [r[columns.index("Step")] for r in rows]
        assert steps == [float(THERMO * k) for k in range(STEPS // THERMO + 1)], f"rows at {steps[:3]}...{steps[-1:]}"
    values = {}
    with checks.check("the log comes from the delivered in.tip4p: a rerun echoes its commands and gives rows 0-300"):
        screen, values = rerun(delivered)
        assert through_run(lk.echo_commands(screen))[:-1] == through_run(cmds)[:-1], "the rerun's commands differ"
        again_columns, again = lk.thermo_blocks(screen)[0]
        assert again_columns == columns, f"rerun columns {again_columns}"
        assert len(again) == RERUN_STEPS // THERMO + 1, f"{len(again)} rerun rows"
        for mine, theirs in zip(rows, again):
            for name, a, b in zip(columns, mine, theirs, strict=True):
                assert abs(a - b) <= 1e-6 * max(abs(a), abs(b)) + 1e-6, f"{name} at step {mine[0]:.0f}: {a} vs {b}"
    with checks.check("TIP4P/2005 charges as LAMMPS holds them: M (oxygen type) -1.1128 e, H +0.5564 e, neutral"):
        assert values, "the rerun gave no values"
        assert values["n_o"] == NMOL and values["n_h"] == 2 * NMOL, f"{values['n_o']} O, {values['n_h']} H"
        for name, want in (("q_o", Q_M), ("q_1", Q_M), ("q_h", Q_H), ("q_2", Q_H), ("q_3", Q_H), ("q_last", Q_H)):
            assert abs(values[name] - want) <= 1e-6, f"{name} {values[name]} e (TIP4P/2005 {want})"
        assert abs(values["q_total"]) <= 1e-6, f"net charge {values['q_total']}"
    density = float("nan")
    with checks.check("mean density over the rows at steps 2500-5000 matches the log (1e-4 g/cm3)"):
        window = [r[columns.index("Density")] for r in rows if r[0] >= WINDOW_START]
        density = sum(window) / len(window)
        got = float(result["mean_density_g_cm3"])
        assert abs(got - density) <= 1e-4, f"{got} vs {density:.5f} g/cm3"
    with checks.check("the density is TIP4P/2005's at 300 K and 1 atm (0.975-1.030 g/cm3, 3 seeds)"):
        assert DENSITY_WINDOW[0] <= density <= DENSITY_WINDOW[1], f"{density:.4f} g/cm3"
    with checks.check("causes are exactly the planted errors (compared as a set)"):
        got = result["causes"]
        assert isinstance(got, list) and len(set(got)) == len(got), "causes must be a list without repeats"
        missing, extra = CAUSES - set(got), set(got) - CAUSES
        assert not missing and not extra, f"{len(missing)} causes missing, {len(extra)} not causes"


sys.exit(main(verify))
