"""Read the SPC/E water model and the NPT protocol back from the LAMMPS log, rerun the delivered input's first steps,
and recompute the production means from the log's thermo rows."""

import re
import shutil
import sys

import lammpskit as lk
from verifykit import load_json, main

OUT = "/app/output"
DATA = "/app/inputs/spce_216.data"
NMOL, NATOMS, NBONDS, NANGLES = 216, 648, 432, 216
# The protocol: 10000 steps of 2 fs (20 ps), thermo every 100 steps; production = the rows at steps 5000-10000.
STEPS, THERMO, PRODUCTION_START, DT = 10000, 100, 5000, 2.0
# SPC/E (Berendsen, Grigera, Straatsma 1987): charges (e), O-O Lennard-Jones (kcal/mol, A), rigid geometry (A, deg).
Q_O, Q_H = -0.8476, 0.4238
EPS_OO, SIGMA_OO = 0.1553, 3.166  # 0.650 kJ/mol = 0.15535 kcal/mol; 3.166 A (3.1656 in some tables)
R_OH, THETA_HOH = 1.0, 109.47
MASS_O, MASS_H = 15.9994, 1.008
CUTOFF, PPPM_ACCURACY = 10.0, 1.0e-4
# The density the protocol gives (contract.toml, item density-window: 3 seeds of the reference in the task image).
DENSITY_WINDOW = (0.985, 1.015)
PE_WINDOW = (-11.35, -10.95)  # kcal/mol per molecule
# The first rows the verifier reruns (steps 0-300) and the time it allows that rerun.
RERUN_STEPS, RERUN_S = 300, 120
INTEGRATORS = re.compile(
    r"^(nve|nvt|npt|nph|langevin|temp/|rigid|viscous|press/|deform|nve/|gld|gle|dpd|spring|momentum|recenter|"
    r"setforce|addforce|efield|wall|ttm|heat|ehex|restrain|smd|move|box/relax)"
)
MARK = "WESTBENCH-VALUE"


def type_range(token, ntypes=2):
    """The atom types of a pair_coeff type argument: ``1``, ``*``, ``1*2``, ``*2``, ``1*``."""
    if "*" not in token:
        return [int(token)]
    lo, hi = token.split("*")
    return list(range(int(lo) if lo else 1, (int(hi) if hi else ntypes) + 1))


def lennard_jones(cmds):
    """{(i, j): (epsilon, sigma, cutoff or None)} after every pair_coeff the echo has, mixed where not set."""
    table = {}
    for tokens in cmds:
        if tokens[0] == "pair_coeff":
            args = tokens[1:]
            assert len(args) in (4, 5), f"pair_coeff {' '.join(args)}"
            for i in type_range(args[0]):
                for j in type_range(args[1]):
                    cut = float(args[4]) if len(args) == 5 else None
                    table[(min(i, j), max(i, j))] = (float(args[2]), float(args[3]), cut)
    mix = "geometric"
    for tokens in cmds:
        if tokens[0] == "pair_modify" and "mix" in tokens:
            mix = tokens[tokens.index("mix") + 1]
    if (1, 2) not in table and (1, 1) in table and (2, 2) in table:
        (e1, s1, _), (e2, s2, _) = table[(1, 1)], table[(2, 2)]
        sigma = (s1 * s2) ** 0.5 if mix == "geometric" else (s1 + s2) / 2
        table[(1, 2)] = ((e1 * e2) ** 0.5, sigma, None)
    return table


def shake_types(args):
    """{'b': [...], 'a': [...], ...} of a fix shake/rattle's arguments after tol, iter and N."""
    found, key = {}, None
    for token in args[3:]:
        if token in ("b", "a", "t", "m"):
            key = token
            found[key] = []
        elif token == "mol" or token == "kbond":
            key = None
        elif key is not None:
            found[key].append(token)
    return found


def rerun(delivered):
    """Rerun the delivered input with its run cut to the first RERUN_STEPS steps, echoing its commands, then print
    the per-type charges and masses LAMMPS holds. (screen output, values) or raise LammpsError."""
    cut = lk.cut_run(delivered, RERUN_STEPS, "last")
    prints = {
        "q_o": "charge(wb_o)/count(wb_o)", "q_h": "charge(wb_h)/count(wb_h)", "q_total": "charge(all)",
        "q_1": "q[1]", "q_2": "q[2]", "q_3": "q[3]", "q_last": f"q[{NATOMS}]",
        "m_o": "mass(wb_o)/count(wb_o)", "m_h": "mass(wb_h)/count(wb_h)", "n_o": "count(wb_o)", "n_h": "count(wb_h)",
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


def before_last_run(cmds):
    last = max((k for k, tokens in enumerate(cmds) if tokens[0] == "run"), default=len(cmds))
    return [tokens for tokens in cmds[:last] if tokens[0] != "echo"]


def verify(checks):
    log = ""
    with checks.check("log.lammps readable"):
        log = open(f"{OUT}/log.lammps").read()
        assert log.startswith("LAMMPS (29 Sep 2021"), f"not a LAMMPS 29 Sep 2021 log: {log[:40]!r}"
    delivered = ""
    with checks.check("in.spce readable"):
        delivered = open(f"{OUT}/in.spce").read()
    result = {}
    with checks.check("result.json readable"):
        result = load_json(f"{OUT}/result.json")
    cmds = lk.echo_commands(log)
    with checks.check("real units, the shipped data file read as is: 648 atoms, 432 bonds, 216 angles"):
        assert lk.only(cmds, "units") == ["real"], f"units {lk.only(cmds, 'units')}"
        assert lk.only(cmds, "atom_style") == ["full"], f"atom_style {lk.only(cmds, 'atom_style')}"
        assert lk.only(cmds, "read_data") == [DATA], f"read_data {lk.only(cmds, 'read_data')}"
        edits = [
            t[0]
            for t in cmds
            if t[0]
            in (
                "create_atoms",
                "delete_atoms",
                "delete_bonds",
                "change_box",
                "displace_atoms",
                "read_restart",
                "replicate",
                "create_bonds",
            )
        ]
        assert not edits, f"the system was edited: {edits}"  # fmt: skip
        for count, what in ((NATOMS, "atoms"), (NBONDS, "bonds"), (NANGLES, "angles")):
            assert re.search(rf"^\s+{count} {what}$", log, re.M), f"the log does not read {count} {what}"
    with checks.check("SPC/E Lennard-Jones: O-O 0.1553 kcal/mol and 3.166 A, none on H; lj/cut/coul/long 10 A, tail"):
        style = lk.only(cmds, "pair_style")
        assert style[0] == "lj/cut/coul/long" and [float(v) for v in style[1:]] in ([CUTOFF], [CUTOFF, CUTOFF]), (
            f"pair_style {' '.join(style)}"
        )
        table = lennard_jones(cmds)
        assert set(table) == {(1, 1), (1, 2), (2, 2)}, f"pair coefficients set for {sorted(table)}"
        eps, sigma, cut = table[(1, 1)]
        assert abs(eps - 0.15535) <= 5e-4 and abs(sigma - SIGMA_OO) <= 1e-3, f"O-O epsilon {eps}, sigma {sigma}"
        assert table[(1, 2)][0] == 0 and table[(2, 2)][0] == 0, f"H Lennard-Jones {table[(1, 2)]} {table[(2, 2)]}"
        assert all(c is None or c == CUTOFF for _, _, c in table.values()), "a pair cutoff other than 10 A"
        tail = [t[t.index("tail") + 1] for t in cmds if t[0] == "pair_modify" and "tail" in t[:-1]]
        assert tail[-1:] == ["yes"], f"pair_modify tail {tail[-1:]}"
        special = [t for t in cmds if t[0] == "special_bonds"]
        assert all(t[1:] in (["lj/coul", "0.0", "0.0", "0.0"], ["lj/coul", "0", "0", "0"]) for t in special), (
            f"special_bonds {special}"
        )
    with checks.check("kspace pppm with relative accuracy 1e-4"):
        kspace = lk.only(cmds, "kspace_style")
        assert kspace[0] == "pppm" and len(kspace) == 2, f"kspace_style {' '.join(kspace)}"
        assert abs(float(kspace[1]) - PPPM_ACCURACY) <= 1e-12, f"accuracy {kspace[1]}"
    fixes = {}
    with checks.check("one run of 10000 steps (no minimization), 648 atoms on its Loop line"):
        found = lk.runs(log)
        assert [command for command, _ in found] == [["run", str(STEPS)]], f"runs {[c for c, _ in found]}"
        fixes = found[0][1]
        assert lk.loop_atoms(log) == [NATOMS], f"Loop lines {lk.loop_atoms(log)}"
    with checks.check("rigid SPC/E geometry: fix shake on bond type 1 and angle type 1 (1.0 A, 109.47 deg)"):
        shake = [f for f in fixes.values() if len(f) > 3 and f[3] in ("shake", "rattle")]
        assert len(shake) == 1 and shake[0][2] == "all", f"SHAKE fixes active in the run: {shake}"
        types = shake_types(shake[0][4:])
        assert "1" in types.get("b", []) and "1" in types.get("a", []), f"SHAKE constrains {types}"
        assert lk.only(cmds, "bond_style") == ["harmonic"] and lk.only(cmds, "angle_style") == ["harmonic"], "styles"
        bond, angle = lk.only(cmds, "bond_coeff"), lk.only(cmds, "angle_coeff")
        assert bond[0] == "1" and abs(float(bond[2]) - R_OH) <= 1e-6, f"bond_coeff {' '.join(bond)}"
        assert angle[0] == "1" and abs(float(angle[2]) - THETA_HOH) <= 1e-3, f"angle_coeff {' '.join(angle)}"
    with checks.check("Nose-Hoover NPT of all atoms: 300 K (100 fs), isotropic 1 atm (1000 fs), 2 fs steps"):
        integrating = [f for f in fixes.values() if len(f) > 3 and INTEGRATORS.match(f[3])]
        assert [f[2:4] for f in integrating] == [["all", "npt"]], (
            f"integrating fixes in the run: {[' '.join(f) for f in integrating]}"
        )
        keys = lk.keyword_triples(integrating[0][4:])
        assert keys.get("temp") == [300.0, 300.0, 100.0], f"temp {keys.get('temp')}"
        assert keys.get("iso") == [1.0, 1.0, 1000.0], f"iso {keys.get('iso')} (atm in real units)"
        shape = set(keys) & {"aniso", "tri", "x", "y", "z", "xy", "yz", "xz", "couple"}
        assert not shape, f"pressure coupling beyond iso: {shape}"
        assert float(lk.only(cmds, "timestep")[0]) == DT, f"timestep {lk.only(cmds, 'timestep')}"
        velocity = [t for t in cmds if t[0] == "velocity"]
        assert len(velocity) == 1 and velocity[0][1:3] == ["all", "create"] and float(velocity[0][3]) == 300.0, (
            f"velocity {velocity}"
        )
    columns, rows = [], []
    with checks.check("thermo every 100 steps from 0 to 10000 with Density and PotEng (not normalized)"):
        blocks = lk.thermo_blocks(log)
        assert len(blocks) == 1, f"{len(blocks)} thermo blocks"
        columns, rows = blocks[0]
        assert {"Step", "PotEng", "Density"} <= set(columns), f"columns {columns}"
        steps = [r[columns.index("Step")] for r in rows]
        assert steps == [float(THERMO * k) for k in range(STEPS // THERMO + 1)], f"rows at {steps[:3]}...{steps[-1:]}"
        norm = [t for t in cmds if t[0] == "thermo_modify" and "norm" in t]
        assert not norm or norm[-1][norm[-1].index("norm") + 1] == "no", "thermo_modify norm yes"
    values = {}
    with checks.check("the log comes from the delivered in.spce: a rerun echoes its commands and gives rows 0-300"):
        screen, values = rerun(delivered)
        assert before_last_run(lk.echo_commands(screen)) == before_last_run(cmds), "the rerun's commands differ"
        again_columns, again = lk.thermo_blocks(screen)[0]
        assert again_columns == columns, f"rerun columns {again_columns}"
        assert len(again) == RERUN_STEPS // THERMO + 1, f"{len(again)} rerun rows"
        for mine, theirs in zip(rows, again):
            for name, a, b in zip(columns, mine, theirs, strict=True):
                assert abs(a - b) <= 1e-6 * max(abs(a), abs(b)) + 1e-6, f"{name} at step {mine[0]:.0f}: {a} vs {b}"
    with checks.check("SPC/E charges O -0.8476 e, H +0.4238 e and masses, as LAMMPS holds them (rerun)"):
        assert values, "the rerun gave no values"
        assert values["n_o"] == NMOL and values["n_h"] == 2 * NMOL, f"{values['n_o']} O, {values['n_h']} H"
        for name, want in (("q_o", Q_O), ("q_1", Q_O), ("q_h", Q_H), ("q_2", Q_H), ("q_3", Q_H), ("q_last", Q_H)):
            assert abs(values[name] - want) <= 1e-6, f"{name} {values[name]} e (SPC/E {want})"
        assert abs(values["q_total"]) <= 1e-6, f"net charge {values['q_total']}"
        assert abs(values["m_o"] - MASS_O) <= 0.01 and abs(values["m_h"] - MASS_H) <= 0.01, "masses"
    production = [r for r in rows if r[0] >= PRODUCTION_START]
    density = pe = float("nan")
    with checks.check("mean density over the production rows (steps 5000-10000) matches the log (1e-4 g/cm3)"):
        density = sum(r[columns.index("Density")] for r in production) / len(production)
        got = float(result["mean_density_g_cm3"])
        assert abs(got - density) <= 1e-4, f"{got} vs {density:.5f} g/cm3"
    with checks.check("mean potential energy per molecule over the production rows matches the log (1e-3 kcal/mol)"):
        pe = sum(r[columns.index("PotEng")] for r in production) / len(production) / NMOL
        got = float(result["mean_pe_kcal_mol_per_molecule"])
        assert abs(got - pe) <= 1e-3, f"{got} vs {pe:.4f} kcal/mol"
    with checks.check("the density is SPC/E's at 300 K and 1 atm (0.985-1.015 g/cm3, 3 seeds)"):
        assert DENSITY_WINDOW[0] <= density <= DENSITY_WINDOW[1], f"{density:.4f} g/cm3"
    with checks.check("the potential energy is SPC/E's at 300 K (-11.35 to -10.95 kcal/mol per molecule, 3 seeds)"):
        assert PE_WINDOW[0] <= pe <= PE_WINDOW[1], f"{pe:.3f} kcal/mol"


sys.exit(main(verify))
