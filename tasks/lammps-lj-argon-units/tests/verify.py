"""Read the lj and real runs of the same argon state back from their logs, tie each log to a rerun of its input,
recompute the means and every conversion between reduced and real units, and check the two runs are one state."""

import math
import sys

import lammpskit as lk
from verifykit import load_json, main

OUT = "/app/output"
KB, NA, CAL, ATM, BAR = 1.380649e-23, 6.02214076e23, 4.184, 101325.0, 1e5
EPS_K, SIGMA_A, MASS = 119.8, 3.405, 39.948
EPS = EPS_K * KB  # J per atom
SIGMA = SIGMA_A * 1e-10  # m
M_ATOM = MASS * 1e-3 / NA  # kg
TAU_FS = SIGMA * math.sqrt(M_ATOM / EPS) * 1e15  # 2156.35 fs
EPS_KCAL = EPS * NA / CAL / 1000  # 0.238067 kcal/mol
RHO, TSTAR, CUT, DT, TDAMP = 0.8, 1.0, 2.5, 0.005, 0.5
NATOMS, EQ, PROD, THERMO = 500, 2000, 10000, 100
RHO_G_CM3 = RHO * M_ATOM * 1e3 / (SIGMA * 100) ** 3  # 1.344258 g/cm3
# Statistical agreement of the two runs in reduced units (3 seed pairs: |dP*| <= 0.065, |dU*| <= 0.015).
P_TOL, U_TOL = 0.2, 0.05
RERUN_STEPS, RERUN_S = 200, 60


def rel(a, b, tol):
    return abs(float(a) - b) <= tol * abs(b)


def one(cmds, name):
    found = [t[1:] for t in cmds if t[0] == name]
    assert len(found) == 1, f"{name}: {found}"
    return found[0]


def model(log, units):
    """Check one log's echo against the stated model in its units; the expected numbers for units lj and real."""
    cmds = lk.echo_commands(log)
    real = units == "real"
    eps, sigma = (EPS_KCAL, SIGMA_A) if real else (1.0, 1.0)
    tau = TAU_FS if real else 1.0
    assert one(cmds, "units") == [units], f"units {one(cmds, 'units')}"
    assert one(cmds, "atom_style") == ["atomic"], "atom_style"
    lattice = one(cmds, "lattice")
    assert lattice[0] == "fcc", f"lattice {lattice}"
    assert lk.loop_atoms(log) == [NATOMS, NATOMS], f"loops with {lk.loop_atoms(log)} atoms (two runs of 500)"
    mass = one(cmds, "mass")
    assert mass[0] == "1" and rel(mass[1], MASS if real else 1.0, 1e-9), f"mass {mass}"
    style, coeff = one(cmds, "pair_style"), one(cmds, "pair_coeff")
    assert style[0] == "lj/cut" and rel(style[1], CUT * sigma, 1e-6), f"pair_style {style}"
    assert coeff[:2] == ["1", "1"] and rel(coeff[2], eps, 1e-5) and rel(coeff[3], sigma, 1e-9), f"pair_coeff {coeff}"
    assert len(coeff) == 4 or rel(coeff[4], CUT * sigma, 1e-6), f"pair_coeff cutoff {coeff}"
    modify = [t for t in cmds if t[0] == "pair_modify"]
    assert all("shift" not in t or t[t.index("shift") + 1] == "no" for t in modify), f"pair_modify {modify}"
    assert all("tail" not in t or t[t.index("tail") + 1] == "no" for t in modify), f"pair_modify {modify}"
    velocity = [t for t in cmds if t[0] == "velocity"]
    assert len(velocity) == 1 and velocity[0][1:3] == ["all", "create"], f"velocity {velocity}"
    assert rel(velocity[0][3], TSTAR * (EPS_K if real else 1.0), 1e-9), f"velocity {velocity[0]}"
    runs = lk.runs(log)
    assert [lk.run_steps(c) for c, _ in runs] == [EQ, PROD], f"runs {[c for c, _ in runs]}"
    for _, fixes in runs:
        fix = list(fixes.values())
        assert len(fix) == 1 and fix[0][2:5] == ["all", "nvt", "temp"], f"fixes {fix}"
        t1, t2, damp = (float(x) for x in fix[0][5:8])
        target = TSTAR * (EPS_K if real else 1.0)
        assert len(fix[0]) == 8 and rel(t1, target, 1e-9) and rel(t2, target, 1e-9), f"fix {fix[0]}"
        assert rel(damp, TDAMP * tau, 1e-4), f"Tdamp {damp} for {TDAMP * tau:.6g}"
    dts = [t[1] for t in cmds if t[0] == "timestep"]
    assert len(dts) == 1 and rel(dts[0], DT * tau, 1e-4), f"timestep {dts} for {DT * tau:.6g}"
    columns, rows = lk.thermo_blocks(log)[-1]
    assert {"Press", "PotEng", "Density", "Temp"} <= set(columns), f"columns {columns}"
    steps = [r[0] for r in rows]
    assert steps == [EQ + THERMO * k for k in range(PROD // THERMO + 1)], f"production rows {steps[:2]}..{steps[-1:]}"


def means(log):
    """Means of every column over the production run's rows (its first included); PotEng per atom."""
    cmds = lk.echo_commands(log)
    columns, rows = lk.thermo_blocks(log)[-1]
    norm = [t for t in cmds if t[0] == "thermo_modify" and "norm" in t]
    default = "yes" if one(cmds, "units") == ["lj"] else "no"
    per_atom = (norm[-1][norm[-1].index("norm") + 1] if norm else default) == "yes"
    out = {c: sum(r[k] for r in rows) / len(rows) for k, c in enumerate(columns)}
    out["PotEng"] /= 1 if per_atom else NATOMS
    return out


def rerun(name, log):
    """The delivered input with its first run cut to RERUN_STEPS and nothing after it: its first thermo block must
    be the log's first rows."""
    first = lk.cut_run(open(f"{OUT}/{name}").read(), RERUN_STEPS, name=f"the delivered {name}")
    work = lk.fresh_folder("/tmp/rerun")
    screen = lk.run(first, cwd=work, timeout=RERUN_S)
    (cols, mine), (again_cols, again) = lk.thermo_blocks(log)[0], lk.thermo_blocks(screen)[0]
    assert cols == again_cols and len(again) == RERUN_STEPS // THERMO + 1, f"rerun {again_cols}, {len(again)} rows"
    for a_row, b_row in zip(mine, again):
        for col, a, b in zip(cols, a_row, b_row, strict=True):
            assert abs(a - b) <= 1e-6 * max(abs(a), abs(b)) + 1e-6, f"{col} at step {a_row[0]:.0f}: {a} vs {b}"


def close(got, want, tol=1e-4, name=""):
    assert got is not None and abs(float(got) - want) <= tol * abs(want), f"{name} {got}, recomputed {want:.6g}"


def verify(checks):
    logs, result = {}, {}
    for name in ("in.lj", "in.real", "log.lj", "log.real"):
        with checks.check(f"{name} readable"):
            logs[name] = open(f"{OUT}/{name}").read()
            if name.startswith("log"):
                assert lk.version(logs[name]) == "29 Sep 2021 - Update 2", f"{name} is not a LAMMPS log"
                prefix = "in" + name[3:]
                assert lk.input_commands(logs[name]) == lk.commands(logs.get(prefix, "")), f"not {prefix}'s log"
    with checks.check("result.json readable"):
        result = load_json(f"{OUT}/result.json")
    lj_log, real_log = logs.get("log.lj", ""), logs.get("log.real", "")
    with checks.check("log.lj: units lj, 500 atoms fcc, lj/cut 2.5 (1, 1), mass 1, NVT T* 1.0 Tdamp 0.5, dt 0.005"):
        model(lj_log, "lj")
        assert rel(one(lk.echo_commands(lj_log), "lattice")[1], RHO, 1e-9), "lattice density"
    with checks.check("log.real: units real, argon's epsilon, sigma, mass, 119.8 K, and tau in fs for dt and Tdamp"):
        model(real_log, "real")
    with checks.check("the same state: the real run's density is rho* 0.8 in g/cm3 (1e-5) at 119.8 K"):
        real, lj = means(real_log), means(lj_log)
        assert rel(lj["Density"], RHO, 1e-6), f"lj density {lj['Density']}"
        assert rel(real["Density"], RHO_G_CM3, 1e-5), f"real density {real['Density']} g/cm3 for {RHO_G_CM3:.7g}"
    for name in ("in.lj", "in.real"):
        log = "log" + name[2:]
        with checks.check(f"{log} comes from {name}: a rerun gives its first 200 steps (1e-6)"):
            rerun(name, logs[log])
    with checks.check("lj and real means recomputed from the production rows (1e-4), PE per atom"):
        lj, real = means(lj_log), means(real_log)
        close(result["lj"]["pressure"], lj["Press"], name="lj pressure")
        close(result["lj"]["pe"], lj["PotEng"], name="lj pe")
        close(result["real"]["density_g_cm3"], real["Density"], name="real density")
        close(result["real"]["pressure_atm"], real["Press"], name="real pressure")
        close(result["real"]["pe_kcal_mol"], real["PotEng"], name="real pe per atom")
    with checks.check("lj_converted: density g/cm3, pressure bar, PE kJ/mol, timestep fs (1e-4)"):
        lj, got = means(lj_log), result["lj_converted"]
        close(got["density_g_cm3"], lj["Density"] * M_ATOM * 1e3 / (SIGMA * 100) ** 3, name="density")
        close(got["pressure_bar"], lj["Press"] * EPS / SIGMA**3 / BAR, name="pressure bar")
        close(got["pe_kj_mol"], lj["PotEng"] * EPS * NA / 1000, name="pe kJ/mol")
        close(got["timestep_fs"], DT * TAU_FS, name="timestep fs")
    with checks.check("real_reduced: the real run's pressure and PE per atom in reduced units (1e-4)"):
        real, got = means(real_log), result["real_reduced"]
        close(got["pressure"], real["Press"] * ATM * SIGMA**3 / EPS, name="pressure")
        close(got["pe"], real["PotEng"] / EPS_KCAL, name="pe")
    with checks.check("the two runs are one state: reduced pressure within 0.2, PE within 0.05 per atom"):
        lj, real = means(lj_log), means(real_log)
        p, u = real["Press"] * ATM * SIGMA**3 / EPS, real["PotEng"] / EPS_KCAL
        assert abs(p - lj["Press"]) <= P_TOL, f"P* {p:.4f} (real) vs {lj['Press']:.4f} (lj)"
        assert abs(u - lj["PotEng"]) <= U_TOL, f"U* {u:.4f} (real) vs {lj['PotEng']:.4f} (lj)"


sys.exit(main(verify))
