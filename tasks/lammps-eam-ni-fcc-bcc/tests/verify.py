"""Tie the delivered LAMMPS log, eos.csv and result.json to 22 real run-0 points of Ni_u3 fcc and bcc crystals, and
recompute the Birch-Murnaghan fits twice: from the delivered table and from the verifier's own LAMMPS runs.

The model and every point's lattice, cell and atoms are read back from the log's input echo and thermo output
(lammpskit), never from the agent's input alone; the delivered in.eos is rerun in full (22 run 0s, about 2 s) and
must give the log's thermo rows; the verifier runs the same 22 perfect crystals itself and every energy must match.
"""

import csv
import os
import shutil
import sys

import lammpskit as lk
import numpy as np
from verifykit import load_json, main

OUT = "/app/output"
POTENTIAL = "/usr/share/lammps/potentials/Ni_u3.eam"  # the file /app/inputs/Ni_u3.eam copies
EV_A3_GPA = 160.21766
#: structure: (its lattice constants in A, supercell repeats, atoms of the supercell, atoms per cubic cell)
GRIDS = {
    "fcc": ([round(3.42 + 0.02 * k, 2) for k in range(11)], 3, 108, 4),
    "bcc": ([round(2.70 + 0.02 * k, 2) for k in range(11)], 4, 128, 2),
}
COLUMNS = ["structure", "a", "volume_per_atom", "energy_per_atom"]
#: eV per atom between a delivered energy and the verifier's (the log's default 8 digits of a -480 eV cell: 5e-8)
TOL_E = 1e-6
#: the fit's results against the verifier's own fit (8-digit energies move them by a0 4e-8 A, v0 4e-7 A^3,
#: e_coh 2e-8 eV, b0 2e-4 GPa; a plain cubic in V moves a0 1.4e-5, e_coh 8.8e-5, b0 3.1 GPa; Foiles' published
#: targets 3.52 A, 4.45 eV, 180.4 GPa lie 3.6e-6 A, 5.8e-6 eV and 5.6e-3 GPa from this model's fit)
TOL = {"a0": 1e-6, "v0": 1e-5, "e_coh": 1e-6, "b0_gpa": 1e-3}
TOL_DELTA = 2e-6
FIELDS = ("a0", "v0", "e_coh", "b0_gpa")
# commands that would move atoms or change the perfect cell between create_atoms and run 0
EDITS = ("displace_atoms", "delete_atoms", "change_box", "read_data", "read_restart", "set", "minimize")


def birch_murnaghan(volumes, energies, per_cell):
    """a0, V0, E_coh and B0 (GPa) of the linear third-order Birch-Murnaghan fit E = sum c_k x^k, x = V^(-2/3)."""
    x = np.asarray(volumes, float) ** (-2 / 3)
    c = np.polyfit(x, np.asarray(energies, float), 3)
    roots = np.roots(np.polyder(c))
    inside = [r.real for r in roots if abs(r.imag) < 1e-12 and x.min() < r.real < x.max()]
    assert len(inside) == 1, f"the fit has {len(inside)} stationary points inside the sampled volumes"
    v0 = inside[0] ** -1.5
    b0 = v0 * np.polyval(np.polyder(c, 2), inside[0]) * (2 / 3 * v0 ** (-5 / 3)) ** 2 * EV_A3_GPA
    return {"a0": (per_cell * v0) ** (1 / 3), "v0": v0, "e_coh": -np.polyval(c, inside[0]), "b0_gpa": b0}


def own_points():
    """The verifier's own (structure, a) -> (V per atom, E per atom) of the 22 perfect crystals, one LAMMPS run."""
    lines = []
    for structure, (grid, n, _, _) in GRIDS.items():
        for a in grid:
            lines += [
                "clear\nunits metal\natom_style atomic\nboundary p p p",
                f"lattice {structure} {a}\nregion box block 0 {n} 0 {n} 0 {n}\ncreate_box 1 box\ncreate_atoms 1 box",
                f"pair_style eam\npair_coeff * * {POTENTIAL}\nrun 0",
                f'print "POINT {structure} {a} $(vol/atoms:%.17g) $(pe/atoms:%.17g)"',
            ]
    screen = lk.run("\n".join(lines), timeout=120)
    found = {}
    for line in screen.splitlines():
        if line.startswith("POINT "):
            _, structure, a, v, e = line.split()
            found[(structure, float(a))] = (float(v), float(e))
    return found


def points_of(log):
    """Per finished run of the log: its structure and lattice constant (the last lattice command echoed before it),
    the edits made since the last create_box, and its last thermo row by column name."""
    blocks = lk.thermo_blocks(log)
    plan, lattice, edits = [], None, []
    for tokens in lk.echo_commands(log):
        if tokens[0] == "lattice":
            lattice = tokens[1:]
        elif tokens[0] == "create_box":
            edits = []
        elif tokens[0] in EDITS:
            edits.append(" ".join(tokens))
        elif tokens[0] == "run":
            plan.append((lattice, list(edits), tokens))
    assert len(plan) == len(blocks) == len(lk.loop_atoms(log)), (
        f"{len(plan)} runs echoed, {len(blocks)} thermo blocks, {len(lk.loop_atoms(log))} finished loops"
    )
    points = []
    for (lattice, edits, command), (head, rows) in zip(plan, blocks, strict=True):
        missing = {"Step", "Atoms", "Volume", "PotEng"} - set(head)
        assert not missing, f"a thermo block without {sorted(missing)}: {head} (thermo_style custom step atoms vol pe)"
        points.append((lattice, edits, command, dict(zip(head, rows[-1]))))
    return points


def verify(checks):
    for name in ("in.eos", "log.lammps", "eos.csv", "result.json"):
        checks.require(f"{name} exists", os.path.isfile(f"{OUT}/{name}"), f"{OUT}/{name} missing")
    log, delivered = lk.read_text(f"{OUT}/log.lammps"), lk.read_text(f"{OUT}/in.eos")
    cmds = lk.echo_commands(log)
    result, table, points = {}, [], []
    with checks.check("result.json readable"):
        result = load_json(f"{OUT}/result.json")
        for structure in GRIDS:
            for field in FIELDS:
                float(result[structure][field])
        float(result["delta_e_bcc_fcc"])
    with checks.check("eos.csv readable: the stated header and 22 rows"):
        with open(f"{OUT}/eos.csv") as handle:
            reader = csv.reader(handle)
            assert [h.strip() for h in next(reader)] == COLUMNS, "eos.csv's header"
            table = [[cell.strip() for cell in row] for row in reader if row]
        assert len(table) == 22, f"eos.csv has {len(table)} rows"
        table = [(row[0], float(row[1]), float(row[2]), float(row[3])) for row in table]
    with checks.check(
        "log.lammps is LAMMPS 29 Sep 2021's log of 22 finished run 0s, each thermo with step atoms vol pe"
    ):
        assert (lk.version(log) or "").startswith("29 Sep 2021"), f"first line {log.splitlines()[:1]}"
        assert "ERROR" not in log, "the log holds an ERROR"
        points = points_of(log)
        assert len(points) == 22, f"{len(points)} runs in the log, not 22"
        steps = [lk.run_steps(command) for _, _, command, _ in points]
        assert steps == [0] * 22, f"run lengths {steps} (run 0)"
    with checks.check("model: units metal, atom_style atomic, periodic, pair_style eam with Ni_u3.eam alone"):
        for name, allowed in (("units", [["metal"]]), ("atom_style", [["atomic"]]), ("boundary", [["p", "p", "p"]])):
            found = [t[1:] for t in cmds if t[0] == name]
            assert found and all(f in allowed for f in found) or (name != "units" and not found), f"{name} {found}"
        styles = [t for t in cmds if t[0] == "pair_style"]
        assert styles and all(t == ["pair_style", "eam"] for t in styles), f"{styles} (pair_style eam)"
        coeff = [t for t in cmds if t[0] == "pair_coeff"]
        assert coeff and all(t[1:3] == ["*", "*"] and len(t) == 4 for t in coeff), f"pair_coeff {coeff}"
        assert all(os.path.basename(t[3]) == "Ni_u3.eam" for t in coeff), f"potential files {coeff}"
        assert not [t for t in cmds if t[0] == "thermo_modify" and "norm" in t and "yes" in t], "thermo_modify norm yes"
    with checks.check(
        "points: 11 fcc runs of 108 atoms at a = 3.42-3.62 A, 11 bcc runs of 128 at 2.70-2.90 A, perfect cells"
    ):
        assert points, "no points read from the log"
        seen = {"fcc": [], "bcc": []}
        for lattice, edits, _, row in points:
            assert lattice and lattice[0] in GRIDS and len(lattice) == 2, f"lattice {lattice} (fcc or bcc a)"
            grid, n, atoms, _ = GRIDS[lattice[0]]
            a = float(lattice[1])
            assert row["Atoms"] == atoms, f"{lattice[0]} {a}: {row['Atoms']:g} atoms, not {atoms}"
            assert abs(row["Volume"] - (n * a) ** 3) <= 1e-6 * (n * a) ** 3, f"{lattice[0]} {a}: volume {row['Volume']}"
            assert not edits, f"{lattice[0]} {a}: {edits} before its run 0 (perfect crystals, atoms never moved)"
            seen[lattice[0]].append(a)
        for structure, (grid, _, _, _) in GRIDS.items():
            assert sorted(seen[structure]) == grid, f"{structure} lattice constants {seen[structure]}, not {grid}"
    with checks.check("the log comes from the delivered in.eos: rerun in full, its 22 thermo rows are the log's"):
        work = lk.fresh_folder("/tmp/rerun")
        for name in os.listdir(OUT):  # files the input may read (a copy of the potential)
            if os.path.isfile(f"{OUT}/{name}") and name not in ("log.lammps", "in.eos"):
                shutil.copy(f"{OUT}/{name}", work)
        again = lk.thermo_blocks(lk.run(delivered, cwd=work, timeout=120))
        mine = lk.thermo_blocks(log)
        assert len(again) == len(mine) == 22, f"the rerun ran {len(again)} runs, the log {len(mine)}"
        for block, rerun in zip(mine, again, strict=True):
            lk.same_first_rows(block, rerun, len(rerun[1]), tolerance=1e-9)
    own = own_points()
    with checks.check("every point's energy is the verifier's own Ni_u3 run 0 of that perfect cell (1e-6 eV per atom)"):
        assert points, "no points read from the log"
        for lattice, _, _, row in points:
            v, e = own[(lattice[0], float(lattice[1]))]
            assert abs(row["Volume"] / row["Atoms"] - v) <= 1e-6 * v, f"{lattice}: volume per atom"
            got = row["PotEng"] / row["Atoms"]
            assert abs(got - e) <= TOL_E, f"{' '.join(lattice)}: {got:.8f} eV per atom, the verifier's {e:.8f}"
    with checks.check("eos.csv: fcc then bcc by increasing a, each row the log's and the verifier's V and E (1e-6)"):
        assert table, "no rows"
        want = [(s, a) for s, (grid, _, _, _) in GRIDS.items() for a in grid]
        got = [(s, a) for s, a, _, _ in table]
        assert got == want, f"rows (structure, a) {got[:3]}..., not {want[:3]}..."
        for structure, a, v, e in table:
            v_own, e_own = own[(structure, a)]
            assert abs(v - v_own) <= 1e-6 * v_own, f"{structure} {a}: V {v}, the verifier's {v_own:.6f} A^3 per atom"
            assert abs(e - e_own) <= TOL_E, f"{structure} {a}: E {e}, the verifier's {e_own:.8f} eV per atom"
    fits = {}
    for structure, (_, _, _, per_cell) in GRIDS.items():
        keys = [k for k in own if k[0] == structure]
        fits[structure] = birch_murnaghan([own[k][0] for k in keys], [own[k][1] for k in keys], per_cell)
    for field, label in (
        ("a0", "a0 of fcc and bcc from the Birch-Murnaghan V0 (1e-6 A)"),
        ("v0", "v0 of fcc and bcc: the fit's stationary point (1e-5 A^3 per atom)"),
        ("e_coh", "e_coh of fcc and bcc: minus the fit's energy at V0 (1e-6 eV per atom)"),
        ("b0_gpa", "b0_gpa of fcc and bcc: V0 d2E/dV2 in GPa (1e-3 GPa)"),
    ):
        with checks.check(label):
            for structure in GRIDS:
                got, want = float(result[structure][field]), fits[structure][field]
                assert abs(got - want) <= TOL[field], f"{structure} {field} {got}, the verifier's fit {want:.8g}"
    with checks.check("delta_e_bcc_fcc = E0(bcc) - E0(fcc) of the two fits (2e-6 eV per atom)"):
        want = fits["fcc"]["e_coh"] - fits["bcc"]["e_coh"]
        got = float(result["delta_e_bcc_fcc"])
        assert abs(got - want) <= TOL_DELTA, f"delta_e_bcc_fcc {got}, the verifier's fits {want:.8f} eV per atom"


sys.exit(main(verify))
