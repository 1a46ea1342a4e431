"""Check the 13-state decoupling of ethanol with GROMACS itself: gmx dump of every state's tpr, grompp -maxwarn 0
rerun on every state's mdp, the test run's dhdl.xvg (its t = 0 row recomputed by a zero-step mdrun of lambda_05).

Tolerances: lambda values 1e-4; soft-core and temperature as contracted (1e-6 relative); the test run's t = 0 row
0.25 kJ/mol per column and its rows' coul-lambda identity 0.05 kJ/mol (see ROW0_TOL and IDENTITY_TOL).
"""

import os
import re
import subprocess
import sys
import tempfile

from verifykit import gmx, gmx_error, main

OUT = "/app/output"
N = 13
COUL = [0, 0.25, 0.5, 0.75, 1, 1, 1, 1, 1, 1, 1, 1, 1]
VDW = [0, 0, 0, 0, 0, 0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 0.875, 1]
ENV = dict(os.environ, OMP_NUM_THREADS="1")
# The test run's first dhdl row (t = 0: every dH/dl, every Delta H and pV) depends only on conf.gro and the state
# (no mass is perturbed, so the velocities do not enter): it must equal a zero-step mdrun of the delivered
# lambda_05/prod.tpr.
# Measured in the task image against the reference's 1000-step test run: 2.9e-4 kJ/mol at most over every column
# (-nt 1, -ntomp 4, -ntmpi 2 and 4, test.tpr or prod.tpr, -nsteps 0 or 1000); 0.12 kJ/mol when the test run skips the
# initial constraining (continuation = yes). ROW0_TOL = 0.25 kJ/mol; the smallest mistake it excludes is the dhdl of
# the neighbouring state 4 or 6 (Delta H columns shifted by 1.93 kJ/mol or more, dH/dl vdw by 4.4) or numbers written
# by hand (the near miss dhdl-hand-written: 8.4 kJ/mol off in Delta H to state 12, 4.8 in dH/dl coul).
ROW0_TOL = 0.25
# Every row of a state-5 run obeys the Hamiltonian's linearity in coul-lambda (no soft-core on the charges): dH/dl coul
# equals Delta H to state 4 minus Delta H to state 0, and Delta H to states 0-4 is linear in their coul lambdas.
# Measured over the reference's 11 rows: 2.7e-4 kJ/mol at most. IDENTITY_TOL = 0.05 kJ/mol; the smallest mistake it
# excludes is rows written by hand after a real first row (1 kJ/mol of noise: 0.75 kJ/mol off the linearity).
IDENTITY_TOL = 0.05


def dump(tpr):
    run = subprocess.run(["gmx", "-quiet", "dump", "-s", tpr], capture_output=True, text=True, env=ENV)
    assert run.returncode == 0, f"gmx dump {tpr} failed: {run.stderr[-300:]}"
    return run.stdout


def field(text, name):
    m = re.search(rf"^\s*{re.escape(name)}\s*=\s*(\S+)", text, re.M)
    assert m, f"{name} not in the tpr"
    return m.group(1)


def lambdas(text, name):
    m = re.search(rf"all-lambdas:.*?^\s*{name}-lambdas\s*=([^\n]*)", text, re.M | re.S)
    assert m, f"{name}-lambdas not in the tpr"
    return [float(x) for x in m.group(1).split()]


def mdp(path):
    values = {}
    for line in open(path):
        line = line.split(";")[0]
        if "=" in line:
            key, value = line.split("=", 1)
            values[key.strip().lower().replace("_", "-")] = value.strip()
    return values


def xvg_rows(text):
    return [[float(x) for x in line.split()] for line in text.splitlines() if line.strip() and line[0] not in "#@"]


def xvg_legends(text):
    return [
        legend
        for _, legend in sorted((int(n), legend) for n, legend in re.findall(r'^@ s(\d+) legend "(.*)"', text, re.M))
    ]


def verify(checks):
    dirs = [f"{OUT}/lambda_{i:02d}" for i in range(N)]
    with checks.check("13 state folders lambda_00..lambda_12 with prod.mdp and prod.tpr present"):
        missing = [f"{d}/{f}" for d in dirs for f in ("prod.mdp", "prod.tpr") if not os.path.isfile(f"{d}/{f}")]
        assert not missing, f"missing {missing[:4]}"
    xvgs = []
    with checks.check("test_run/ has the test run's dhdl file present", kind="format"):
        xvgs = (
            [f for f in os.listdir(f"{OUT}/test_run") if f.endswith(".xvg")] if os.path.isdir(f"{OUT}/test_run") else []
        )
        assert xvgs, "no .xvg in test_run/"

    def read_all(name, reader):
        missing = [f"{d}/{name}" for d in dirs if not os.path.isfile(f"{d}/{name}")]
        if missing:
            raise FileNotFoundError(
                f"{missing[0]} missing" + (f" (and {len(missing) - 1} more)" if len(missing) > 1 else "")
            )
        return [reader(f"{d}/{name}") for d in dirs]

    # Every check below reads all 13 states' tpr (gmx dump) or mdp: a missing or unreadable one fails each check that
    # needs it, with the reason naming the file (so a trial that delivers nothing records the full list of checks).
    dumps, mdps, errors = [], [], {}
    with checks.check("gmx dump reads every state's tpr"):
        try:
            dumps = read_all("prod.tpr", dump)
        except Exception as exc:
            errors["tpr"] = f"{type(exc).__name__}: {exc}"
            raise
    try:
        mdps = read_all("prod.mdp", mdp)
    except Exception as exc:
        errors["mdp"] = f"{type(exc).__name__}: {exc}"

    def need(*kinds):
        for kind in kinds:
            assert kind not in errors, errors[kind]

    with checks.check("every tpr has free-energy on and its own init-lambda-state (0..12) of 13 states"):
        need("tpr")
        for i, text in enumerate(dumps):
            assert field(text, "free-energy") == "yes", f"state {i}: free-energy {field(text, 'free-energy')}"
            assert int(field(text, "init-lambda-state")) == i, (
                f"lambda_{i:02d}: init-lambda-state {field(text, 'init-lambda-state')}"
            )
            assert int(field(text, "n-lambdas")) == N, f"state {i}: n-lambdas {field(text, 'n-lambdas')}"
    with checks.check(
        "schedule: charges off in states 0-4, then Lennard-Jones in 5-12 (coul/vdw lambdas of every tpr)"
    ):
        need("tpr")
        for i, text in enumerate(dumps):
            coul, vdw = lambdas(text, "coul"), lambdas(text, "vdw")
            assert len(coul) == N and max(abs(a - b) for a, b in zip(coul, COUL)) <= 1e-4, (
                f"state {i}: coul-lambdas {coul}"
            )
            assert len(vdw) == N and max(abs(a - b) for a, b in zip(vdw, VDW)) <= 1e-4, f"state {i}: vdw-lambdas {vdw}"
    with checks.check("ethanol is the decoupled molecule: full charges in A, none in B, only ETH perturbed (tpr)"):
        need("tpr")
        atoms = re.findall(r"atom\[\s*\d+\]=\{type=\s*(\d+), typeB=\s*(\d+),.*?q=\s*(\S+),.*?qB=\s*(\S+),", dumps[0])
        eth = atoms[:9]
        assert len(eth) == 9 and all(float(q.rstrip(",")) != 0 and float(qb.rstrip(",")) == 0 for _, _, q, qb in eth), (
            "ethanol's B-state charges are not zero"
        )
        rest = atoms[9:]
        assert all(t == tb and q == qb for t, tb, q, qb in rest), "a water atom is perturbed"
    with checks.check("decoupling from vdw-q (A) to none (B) of moltype ETH (mdp)"):
        need("mdp")
        for i, values in enumerate(mdps):
            got = (
                values.get("couple-moltype"),
                values.get("couple-lambda0", "").lower(),
                values.get("couple-lambda1", "").lower(),
            )
            assert got == ("ETH", "vdw-q", "none"), f"state {i}: couple-moltype/lambda0/lambda1 {got}"
    with checks.check("intramolecular interactions kept at full strength (couple-intramol = no: LJC pairs in the tpr)"):
        need("tpr", "mdp")
        for i, values in enumerate(mdps):
            assert values.get("couple-intramol", "no").lower() == "no", (
                f"state {i}: couple-intramol {values.get('couple-intramol')}"
            )
        assert "LJC Pairs NB:" in dumps[0] and re.search(r"type=\d+ \(LJC_NB\)", dumps[0]), "no LJC_NB pairs in the tpr"
    with checks.check("soft-core on the LJ decoupling: sc-alpha 0.5, sc-power 1, sc-sigma 0.3, sc-coul off (tpr)"):
        need("tpr")
        for i, text in enumerate(dumps):
            got = (
                float(field(text, "sc-alpha")),
                int(field(text, "sc-power")),
                float(field(text, "sc-sigma")),
                field(text, "sc-coul"),
            )
            assert got[:3] == (0.5, 1, 0.3) and got[3] in ("false", "no"), f"state {i}: sc-alpha/power/sigma/coul {got}"
    with checks.check(
        "every state's energy in the dhdl output, for MBAR: calc-lambda-neighbors -1, nstdhdl > 0, dH/dl, own file"
    ):
        need("tpr")
        for i, text in enumerate(dumps):
            got = (
                int(field(text, "calc-lambda-neighbors")),
                int(field(text, "nstdhdl")),
                field(text, "dhdl-derivatives"),
                field(text, "separate-dhdl-file"),
            )
            assert got[0] == -1 and got[1] > 0 and got[2] == "yes" and got[3] == "yes", f"state {i}: {got}"
    with checks.check("production settings: sd at 298.15 K, 500 ps, the same run in every state"):
        need("tpr")
        runs = {(field(t, "integrator"), field(t, "nsteps"), field(t, "dt")) for t in dumps}
        assert len(runs) == 1 and next(iter(runs))[0] == "sd", f"{runs}"
        _, nsteps, dt = next(iter(runs))
        assert abs(int(nsteps) * float(dt) - 500.0) <= 1e-6, f"{nsteps} steps of {dt} ps, not 500 ps"
        assert all(re.search(r"ref-t:\s+298\.15\s*$", t, re.M) for t in dumps), "ref-t not 298.15"
    processed = []
    with checks.check("grompp -maxwarn 0 accepts every state's mdp with the shipped conf.gro and topol.top"):
        need("mdp")
        with tempfile.TemporaryDirectory() as tmp:
            for i, d in enumerate(dirs):
                run = subprocess.run(
                    ["gmx", "-quiet", "grompp", "-f", f"{d}/prod.mdp", "-c", "/app/inputs/conf.gro",
                     "-p", "/app/inputs/topol.top", "-o", f"{tmp}/s{i}.tpr", "-po", f"{tmp}/out{i}.mdp",
                     "-maxwarn", "0"],
                    capture_output=True, text=True, cwd=tmp, env=ENV,
                )  # fmt: skip
                assert run.returncode == 0, f"state {i}: {run.stderr.strip().splitlines()[-3:]}"
                processed.append(mdp(f"{tmp}/out{i}.mdp"))
                # the delivered run input is grompp's of the delivered mdp (what the windows would run)
                check = subprocess.run(
                    ["gmx", "-quiet", "check", "-s1", f"{d}/prod.tpr", "-s2", f"{tmp}/s{i}.tpr"],
                    capture_output=True, text=True, cwd=tmp, env=ENV,
                )  # fmt: skip
                differing = [
                    line
                    for line in check.stdout.splitlines()
                    if line.startswith("inputrec->") and "seed" not in line.lower()
                ]
                assert not differing, f"state {i}: prod.tpr is not grompp's of prod.mdp: {differing[:2]}"

    def number(values, key):
        return [float(x) for x in values.get(key, "nan").split()]

    with checks.check(
        "production settings of every state (grompp's processed mdp): sd, 2 fs x 250000 steps, 298.15 K, "
        "1 bar, h-bond constraints, PME and 1.0 nm cut-offs, dH/dl every 100 steps"
    ):
        assert len(processed) == N, "no processed mdp for every state"
        for i, values in enumerate(processed):
            wrong = []
            for key, want in (("integrator", "sd"), ("constraints", "h-bonds"), ("coulombtype", "pme")):
                if values.get(key, "").lower() != want:
                    wrong.append(f"{key} {values.get(key)}")
            if values.get("pcoupl", "no").lower() in ("no", ""):
                wrong.append("no pressure coupling")
            for key, want in (("dt", [0.002]), ("nsteps", [250000]), ("ref-t", [298.15]), ("ref-p", [1.0]),
                              ("rcoulomb", [1.0]), ("rvdw", [1.0]), ("nstdhdl", [100])):  # fmt: skip
                if number(values, key) != want:
                    wrong.append(f"{key} {values.get(key)}")
            assert not wrong, f"state {i}: " + ", ".join(wrong)
    with checks.check("every state's run is identical except its state (grompp's processed mdp)"):
        assert len(processed) == N, "no processed mdp for every state"
        reference = {k: v for k, v in processed[0].items() if k != "init-lambda-state"}
        for i, values in enumerate(processed[1:], 1):
            differing = sorted(
                k
                for k in set(reference) | set(values)
                if k != "init-lambda-state" and values.get(k) != reference.get(k)
            )
            assert not differing, f"state {i} differs from state 0 in {differing[:5]}"
    with checks.check("test run's dhdl.xvg: dH/dl and the energy difference to all 13 states, at least 10 samples"):
        assert xvgs, f"no .xvg in {OUT}/test_run/ (the test run's dhdl file)"
        xvg = open(f"{OUT}/test_run/{sorted(xvgs)[0]}").read()
        targets = re.findall(r'legend ".*?to \(', xvg)
        rows = [l for l in xvg.splitlines() if l and l[0] not in "#@"]
        assert len(targets) == N and "dH/d" in xvg and len(rows) >= 10, (
            f"{len(targets)} foreign states, {len(rows)} samples"
        )
    with checks.check("the test run is state 5 (the first Lennard-Jones state) over 1000 steps (2 ps)"):
        assert xvgs, f"no .xvg in {OUT}/test_run/ (the test run's dhdl file)"
        xvg = open(f"{OUT}/test_run/{sorted(xvgs)[0]}").read()
        state = re.search(r"state\s+(\d+)\s*:", xvg)
        assert state and int(state.group(1)) == 5, f"the dhdl file is of state {state.group(1) if state else '?'}"
        times = [float(l.split()[0]) for l in xvg.splitlines() if l.strip() and l[0] not in "#@"]
        assert times and abs(times[-1] - 2.0) < 1e-6, f"the test run ends at {times[-1] if times else '?'} ps"
    with checks.check(
        "the test run's dhdl.xvg is mdrun's of state 5: its t = 0 row equals a zero-step mdrun of lambda_05/prod.tpr, "
        "every row obeys the coul-lambda linearity"
    ):
        assert xvgs, f"no .xvg in {OUT}/test_run/ (the test run's dhdl file)"
        xvg = open(f"{OUT}/test_run/{sorted(xvgs)[0]}").read()
        rows = xvg_rows(xvg)
        assert rows, "the dhdl file has no data rows"
        with tempfile.TemporaryDirectory() as tmp:
            code, log = gmx(
                "mdrun", "-s", f"{OUT}/lambda_05/prod.tpr", "-nsteps", "0", "-deffnm", "zero", "-dhdl", "zero.xvg",
                "-nt", "1", cwd=tmp, timeout=120,
            )  # fmt: skip
            assert code == 0 and os.path.isfile(f"{tmp}/zero.xvg"), f"zero-step mdrun of lambda_05: {gmx_error(log)}"
            zero = open(f"{tmp}/zero.xvg").read()
        legends, want = xvg_legends(xvg), xvg_rows(zero)[0]
        assert legends == xvg_legends(zero), f"the dhdl file's columns are not mdrun's of lambda_05: {legends[:3]}..."
        got = rows[0]
        assert len(got) == len(want) and abs(got[0]) < 1e-6, f"first row {got[:3]}..., mdrun's t = 0 row {want[:3]}..."
        off = max(range(1, len(want)), key=lambda k: abs(got[k] - want[k]))
        assert abs(got[off] - want[off]) <= ROW0_TOL, (
            f"t = 0 row is not mdrun's: {legends[off - 1]} {got[off]:.4f} in the file, {want[off]:.4f} by a zero-step"
            f" mdrun of lambda_05/prod.tpr (tolerance {ROW0_TOL} kJ/mol)"
        )
        coul = next((k for k, legend in enumerate(legends, 1) if "dH/d" in legend and "coul-lambda" in legend), None)
        first = next((k for k, legend in enumerate(legends, 1) if "to (" in legend), None)  # Delta H to state 0, 1, ...
        assert coul and first, "no dH/dl coul-lambda or Delta H column in the dhdl file"
        for row in rows:
            dh = row[first : first + 5]  # states 0-4: coul lambda 0, 0.25, ..., 1 at vdw lambda 0
            worst = max(
                [abs(row[coul] - (dh[4] - dh[0]))] + [abs(dh[k] - dh[0] - k / 4 * (dh[4] - dh[0])) for k in range(5)]
            )
            assert worst <= IDENTITY_TOL, (
                f"t = {row[0]} ps: dH/dl coul {row[coul]:.4f} and Delta H to states 0-4 {dh} are not linear in "
                f"coul-lambda ({worst:.3f} kJ/mol off; tolerance {IDENTITY_TOL})"
            )
        assert len({row[coul] for row in rows}) > 1, "dH/dl coul is the same in every row: no dynamics"


sys.exit(main(verify))
