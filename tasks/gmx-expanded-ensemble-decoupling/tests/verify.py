"""Check the expanded-ensemble set-up with GROMACS itself: grompp -maxwarn 0 from ee.mdp (its processed mdp output
read back), gmx dump of which atoms are decoupled, and a short mdrun whose log shows the lambda-move table."""

import os
import re
import shutil
import sys
import tempfile
from functools import partial

from verifykit import gmx as run_gmx
from verifykit import gmx_error, load_json, main

OUT, INPUTS = "/app/output", "/app/inputs"
COUL = [0, 0.25, 0.5, 0.75, 1, 1, 1, 1, 1, 1, 1]
VDW = [0, 0, 0, 0, 0, 0.2, 0.4, 0.6, 0.8, 0.9, 1.0]
CANONICAL = {"v-rescale", "nose-hoover", "andersen", "andersen-massive"}
EXPECTED = {  # grompp's processed values (mdout.mdp), compared case-insensitively
    "free-energy": "expanded",
    "couple-moltype": "MOL",
    "couple-lambda0": "vdw-q",
    "couple-lambda1": "none",
    "couple-intramol": "no",
    "init-lambda-state": "0",
    "lmc-stats": "wang-landau",
    "lmc-move": "metropolized-gibbs",
    "nstexpanded": "100",
    "nstdhdl": "100",
    "calc-lambda-neighbors": "-1",
    "sc-power": "1",
    "sc-coul": "no",  # soft-core for the Lennard-Jones part only: Coulomb is switched off linearly
    "dhdl-derivatives": "yes",  # dH/dlambda written (with the energy differences, calc-lambda-neighbors = -1)
    "integrator": "md-vv",
}
NUMBERS = {
    "sc-alpha": 0.5,
    "sc-sigma": 0.3,
    "init-wl-delta": 1.0,
    "wl-scale": 0.8,
    "wl-ratio": 0.8,
    "dt": 0.002,
    "nsteps": 100000,
    "rvdw": 1.0,
    "rcoulomb": 1.0,
}


# verifykit.gmx with this verifier's time limit per command
gmx = partial(run_gmx, timeout=150)


def mdp_values(path):
    values = {}
    for line in open(path):
        text = line.split(";")[0].strip()
        if "=" in text:
            key, value = (s.strip() for s in text.split("=", 1))
            values[key.lower().replace("_", "-")] = value
    return values


def numbers(text):
    return [float(x) for x in text.split()]


def perturbed_atoms(tpr):
    """(index, q, qB, type, typeB) of the first molecule blocks' atoms in `gmx dump -s`."""
    code, text = gmx("dump", "-s", tpr)
    assert code == 0, text[-300:]
    rows = re.findall(r"atom\[\s*(\d+)\]=\{type=\s*(\d+), typeB=\s*(\d+),[^}]*q=\s*(\S+), mB=[^,]*, qB=\s*(\S+),", text)
    blocks, current = [], []
    for index, t, tb, q, qb in rows:
        if index == "0" and current:
            blocks.append(current)
            current = []
        current.append((int(index), int(t), int(tb), float(q.rstrip(",")), float(qb.rstrip(","))))
    blocks.append(current)
    return blocks


def verify(checks):
    spec, values = {}, {}
    with checks.check("ee.json readable with the contracted keys"):
        spec = load_json(f"{OUT}/ee.json")
        assert {"n_states", "coul_lambdas", "vdw_lambdas", "integrator", "thermostat"} <= set(spec), (
            f"keys {sorted(spec)}"
        )
    with checks.check("ee.tpr passes gmx check"):
        code, log = gmx("check", "-s1", f"{OUT}/ee.tpr")
        assert code == 0 and "Fatal error" not in log, log[-300:]
    work = tempfile.mkdtemp()
    with checks.check(
        "grompp -maxwarn 0 rebuilds ee.tpr from ee.mdp, and gmx check finds it equal to the delivered one"
    ):
        shutil.copy(f"{OUT}/ee.mdp", work)
        code, log = gmx(
            "grompp",
            "-f",
            "ee.mdp",
            "-c",
            f"{INPUTS}/conf.gro",
            "-p",
            f"{INPUTS}/topol.top",
            "-o",
            "re.tpr",
            "-po",
            "out.mdp",
            "-maxwarn",
            "0",
            cwd=work,
        )
        assert code == 0, gmx_error(log)
        values = mdp_values(os.path.join(work, "out.mdp"))
        code, diff = gmx("check", "-s1", f"{OUT}/ee.tpr", "-s2", os.path.join(work, "re.tpr"))
        differing = [l for l in diff.splitlines() if l.startswith("inputrec->") and "seed" not in l.lower()]
        assert code == 0 and not differing, "ee.tpr differs from grompp's ee.mdp: " + "; ".join(differing[:3])
    with checks.check("the 11-state path: Coulomb off first (coul-lambdas), then Lennard-Jones (vdw-lambdas)"):
        coul, vdw = numbers(values.get("coul-lambdas", "")), numbers(values.get("vdw-lambdas", ""))
        assert len(coul) == len(vdw) == 11, f"{len(coul)} coul and {len(vdw)} vdw lambdas"
        assert all(abs(a - b) < 1e-6 for a, b in zip(coul, COUL)) and all(
            abs(a - b) < 1e-6 for a, b in zip(vdw, VDW)
        ), f"coul {coul}, vdw {vdw}"
        assert all(c == 1 for c, v in zip(coul, vdw) if v > 0), "Lennard-Jones switched off while charges remain"
    for key, expected in EXPECTED.items():
        checks.require(
            f"{key} = {expected} (grompp's processed mdp)",
            values.get(key, "").lower() == expected.lower(),
            f"{key} = {values.get(key)!r}",
        )
    for key, expected in NUMBERS.items():
        checks.require(
            f"{key} = {expected} (grompp's processed mdp)",
            bool(values.get(key)) and abs(float(values[key]) - expected) < 1e-6,
            f"{key} = {values.get(key)!r}",
        )
    with checks.check(
        "otherwise md.mdp's settings (grompp's processed mdp): constraints, cut-offs, dispersion, output"
    ):
        # Expanded ensemble in GROMACS 2022 requires md-vv, hence a thermostat of its own; everything else stays.
        changed = []
        for key, value in mdp_values(f"{INPUTS}/md.mdp").items():
            if key in ("integrator", "tcoupl"):
                continue
            got = values.get(key, "")
            try:
                same = [float(x) for x in got.split()] == [float(x) for x in value.split()]
            except ValueError:
                same = got.lower() == value.lower()
            if not same:
                changed.append(f"{key} = {got!r} (md.mdp: {value!r})")
        assert not changed, "; ".join(changed)
    checks.require(
        "a canonical thermostat at 300 K",
        values.get("tcoupl", "").lower() in CANONICAL
        and abs(float((values.get("ref-t") or "0").split()[0]) - 300) < 1e-6,
        f"tcoupl {values.get('tcoupl')}, ref-t {values.get('ref-t')}",
    )
    with checks.check(
        "gmx dump: the solute's 3 atoms lose charge and Lennard-Jones type in state B, no solvent atom does"
    ):
        blocks = perturbed_atoms(os.path.join(work, "re.tpr"))
        solute, solvent = blocks[0], [a for b in blocks[1:] for a in b]
        assert len(solute) == 3 and all(qb == 0 and tb != t for _, t, tb, _, qb in solute), f"solute atoms {solute}"
        assert all(qb == q and tb == t for _, t, tb, q, qb in solvent), "solvent atoms are perturbed too"
    with checks.check("ee.json matches the run settings"):
        assert (
            int(spec["n_states"]) == 11
            and [float(x) for x in spec["coul_lambdas"]] == COUL
            and [float(x) for x in spec["vdw_lambdas"]] == VDW
        ), f"ee.json {spec}"
        assert (
            str(spec["integrator"]).lower() == values.get("integrator", "").lower()
            and str(spec["thermostat"]).lower() == values.get("tcoupl", "").lower()
        ), "integrator or thermostat differ from ee.mdp"
    with checks.check("gmx mdrun runs 300 steps of ee.tpr and its log shows the 11-state lambda-move table"):
        code, log = gmx("mdrun", "-s", f"{OUT}/ee.tpr", "-deffnm", "run", "-nsteps", "300", "-nt", "1", cwd=work)
        assert code == 0, log[-300:]
        text = open(os.path.join(work, "run.log")).read()
        table = text.split("MC-lambda information")[-1] if "MC-lambda information" in text else ""
        states = re.findall(r"^\s*(\d+)\s+[\d.]+\s+[\d.]+\s+\d+", table, re.M)
        assert "Wang-Landau" in table and len(set(states)) == 11, f"{len(set(states))} states in the log's lambda table"


sys.exit(main(verify))
