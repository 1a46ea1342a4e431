"""Tie the delivered LAMMPS log and result.json to four real run-0 evaluations of a perfect fcc Lennard-Jones crystal
under the four stated treatments of the potential, and recompute every number from the verifier's own runs.

The treatment each run used (cutoff, shift, tail) is replayed from the log's input echo the way LAMMPS keeps it:
`pair_modify` settings survive a `pair_style` of the same style (so a tail correction switched on for one run is
still on in the next unless switched off), while a `pair_style` resets every `pair_coeff` cutoff to its own. The
delivered in.cutoff is rerun in full (under a second) and must give the log's thermo rows.
"""

import os
import sys

import lammpskit as lk
from verifykit import load_json, main

OUT = "/app/output"
N_ATOMS, DENSITY, CELLS = 2048, 1.0, 8
#: treatment: (cutoff, shift, tail), in the stated order
TREATMENTS = {
    "cut": (2.5, "no", "no"),
    "shifted": (2.5, "yes", "no"),
    "tail": (2.5, "no", "yes"),
    "long": (6.0, "no", "no"),
}
SHORT = ("cut", "shifted", "tail")
#: the log's energies and pressures and result.json's against the verifier's own runs (LAMMPS's default thermo
#: prints 8 significant digits: 5e-8 on -8.35; honest spread across builds and processes 4e-15)
TOL = 1e-6
RC = 2.5
SETUP = f"""units lj
atom_style atomic
boundary p p p
lattice fcc {DENSITY}
region box block 0 {CELLS} 0 {CELLS} 0 {CELLS}
create_box 1 box
create_atoms 1 box
mass 1 1.0"""
EDITS = ("displace_atoms", "delete_atoms", "change_box", "read_data", "read_restart", "set", "minimize", "velocity")


def own_values():
    """The verifier's own per-atom energy and pressure of the crystal under each treatment (a fresh run each)."""
    values = {}
    for name, (cutoff, shift, tail) in TREATMENTS.items():
        values[name] = lk.evaluate(
            f"{SETUP}\npair_style lj/cut {cutoff}\npair_coeff 1 1 1.0 1.0\n"
            f"pair_modify shift {shift} tail {tail}\nrun 0",
            pe="pe",
            press="press",
        )
    return values


def treatments_of(log):
    """Per run of the log: (style, cutoff, shift, tail) as LAMMPS held them, replayed from the input echo, and the
    commands since create_box that edit atoms or box."""
    style, cutoff, coeff_cut, modify, edits, plan = None, None, None, {"shift": "no", "tail": "no"}, [], []
    for tokens in lk.echo_commands(log):
        if tokens[0] == "clear":  # LAMMPS starts over: no pair style, default settings
            style, cutoff, coeff_cut, modify = None, None, None, {"shift": "no", "tail": "no"}
        elif tokens[0] == "pair_style":
            if tokens[1:2] != [style]:
                modify = {"shift": "no", "tail": "no"}  # a new style starts from LAMMPS's defaults
            style = tokens[1] if len(tokens) > 1 else None
            cutoff = float(tokens[2]) if len(tokens) > 2 else None
            coeff_cut = None  # re-issued, the style resets every pair's cutoff to the global one
        elif tokens[0] == "pair_coeff":
            coeff_cut = float(tokens[5]) if len(tokens) > 5 else coeff_cut
            assert tokens[1:5] == ["1", "1", "1.0", "1.0"] or [float(t) for t in tokens[3:5]] == [1.0, 1.0], (
                f"pair_coeff {' '.join(tokens[1:])} (epsilon = sigma = 1)"
            )
        elif tokens[0] == "pair_modify":
            for key, value in zip(tokens[1:], tokens[2:], strict=False):
                if key in modify:
                    modify[key] = value
        elif tokens[0] == "create_box":
            edits = []
        elif tokens[0] in EDITS:
            edits.append(" ".join(tokens))
        elif tokens[0] == "run":
            used = coeff_cut if coeff_cut is not None else cutoff
            plan.append((style, used, modify["shift"], modify["tail"], list(edits), lk.run_steps(tokens)))
    return plan


def verify(checks):
    for name in ("in.cutoff", "log.lammps", "result.json"):
        checks.require(f"{name} exists", os.path.isfile(f"{OUT}/{name}"), f"{OUT}/{name} missing")
    log, delivered = lk.read_text(f"{OUT}/log.lammps"), lk.read_text(f"{OUT}/in.cutoff")
    cmds = lk.echo_commands(log)
    result, plan, rows = {}, [], []
    with checks.check("result.json readable"):
        result = load_json(f"{OUT}/result.json")
        for name in TREATMENTS:
            float(result[name]["pe"]), float(result[name]["press"])
        for name in SHORT:
            float(result["error"][name]["pe"]), float(result["error"][name]["press"])
        assert isinstance(result["neighbours_within_cutoff"], int), "neighbours_within_cutoff is not an integer"
    with checks.check(
        "log.lammps is LAMMPS 29 Sep 2021's log of four finished run 0s, thermo with step atoms vol pe press"
    ):
        assert (lk.version(log) or "").startswith("29 Sep 2021"), f"first line {log.splitlines()[:1]}"
        assert "ERROR" not in log, "the log holds an ERROR"
        blocks = lk.thermo_blocks(log)
        plan = treatments_of(log)
        assert len(plan) == len(blocks) == len(lk.loop_atoms(log)) == 4, (
            f"{len(plan)} runs echoed, {len(blocks)} thermo blocks, {len(lk.loop_atoms(log))} finished: four"
        )
        assert [p[5] for p in plan] == [0] * 4, f"run lengths {[p[5] for p in plan]} (run 0)"
        for head, block in blocks:
            missing = {"Step", "Atoms", "Volume", "PotEng", "Press"} - set(head)
            assert not missing, f"a thermo block without {sorted(missing)}: {head}"
            rows.append(dict(zip(head, block[-1])))
    with checks.check("crystal: units lj, lattice fcc 1.0, 8x8x8 cells, 2048 atoms, mass 1, a perfect crystal"):
        assert rows, "no thermo rows"
        units = [t[1:] for t in cmds if t[0] == "units"]
        assert units and all(u == ["lj"] for u in units), f"units {units}"
        lattices = [t[1:] for t in cmds if t[0] == "lattice"]
        assert lattices and all(t[0] == "fcc" and float(t[1]) == DENSITY and len(t) == 2 for t in lattices), (
            f"lattice {lattices} (fcc 1.0)"
        )
        masses = [[float(v) for v in t[1:3]] for t in cmds if t[0] == "mass"]
        assert masses and all(m == [1, 1.0] for m in masses), f"mass {masses} (mass 1 1.0)"
        assert not [t for t in cmds if t[0] == "thermo_modify" and "norm" in t and "no" in t], "thermo_modify norm no"
        for row, (_, _, _, _, edits, _) in zip(rows, plan, strict=True):
            assert row["Atoms"] == N_ATOMS, f"{row['Atoms']:g} atoms, not {N_ATOMS}"
            assert abs(row["Volume"] - N_ATOMS / DENSITY) <= 1e-6 * N_ATOMS, f"volume {row['Volume']}"
            assert not edits, f"{edits} after create_box (a perfect crystal, atoms never moved)"
    with checks.check("treatments in order: lj/cut 2.5 plain, 2.5 shift yes, 2.5 tail yes, 6.0 plain (replayed)"):
        assert plan, "no runs"
        for (style, cutoff, shift, tail, _, _), (name, want) in zip(plan, TREATMENTS.items(), strict=True):
            assert style == "lj/cut", f"{name}: pair_style {style}"
            assert (cutoff, shift, tail) == want, (
                f"{name} ran with cutoff {cutoff}, shift {shift}, tail {tail}, not {want} "
                "(pair_modify settings stay set across a pair_style of the same style)"
            )
    with checks.check("the log comes from the delivered in.cutoff: rerun in full, its thermo rows are the log's"):
        work = lk.fresh_folder("/tmp/rerun")
        again = lk.thermo_blocks(lk.run(delivered, cwd=work, timeout=60))
        mine = lk.thermo_blocks(log)
        assert len(again) == len(mine) == 4, f"the rerun ran {len(again)} runs, the log {len(mine)}"
        for block, rerun in zip(mine, again, strict=True):
            lk.same_first_rows(block, rerun, len(rerun[1]), tolerance=1e-9)
    own = own_values()
    with checks.check("the log's pe and press of each run are the verifier's own run 0 of that treatment (1e-6)"):
        assert len(rows) == 4, "no four runs"
        for row, name in zip(rows, TREATMENTS, strict=True):
            for key, column in (("pe", "PotEng"), ("press", "Press")):
                assert abs(row[column] - own[name][key]) <= TOL, (
                    f"{name}: the log's {column} {row[column]}, the verifier's {own[name][key]:.10g}"
                )
    with checks.check("pe and press of the four treatments: the verifier's own runs (1e-6)"):
        for name in TREATMENTS:
            for key in ("pe", "press"):
                got = float(result[name][key])
                assert abs(got - own[name][key]) <= TOL, f"{name} {key} {got}, the verifier's {own[name][key]:.10g}"
    with checks.check("error: each 2.5 treatment minus long, for pe and press (1e-6)"):
        for name in SHORT:
            for key in ("pe", "press"):
                got, want = float(result["error"][name][key]), own[name][key] - own["long"][key]
                assert abs(got - want) <= 2 * TOL, f"error {name} {key} {got}, the verifier's {want:.10g}"
    with checks.check("neighbours_within_cutoff = 2 (E_shifted - E_cut) / (-V(2.5)), the verifier's (exact)"):
        v_rc = 4 * (RC**-12 - RC**-6)
        want = 2 * (own["shifted"]["pe"] - own["cut"]["pe"]) / -v_rc
        assert abs(want - round(want)) < 1e-6, f"the verifier's own count {want} is no integer"
        got = result["neighbours_within_cutoff"]
        assert got == round(want), f"neighbours_within_cutoff {got}, the verifier's {round(want)}"


sys.exit(main(verify))
