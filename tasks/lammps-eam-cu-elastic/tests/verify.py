"""Recompute C11, C12, C44 of Cu_u3.eam by centred finite strains and tie every delivered log to a real LAMMPS state.

Each log's last thermo line must be a minimization at the stated strain of the zero-pressure cell, and its pressure
tensor LAMMPS's own at that box (recomputed here); the constants are then recomputed from the logs' own stresses
and from the verifier's own runs, and result.json must equal both.
"""

import os
import re
import sys

import lammpskit
from verifykit import load_json, main

OUT = "/app/output"
POTENTIAL = "/usr/share/lammps/potentials/Cu_u3.eam"  # the file /app/inputs/Cu_u3.eam copies
ATOMS = 256
STRAIN = 1e-3
BAR_PER_GPA = 1e4
# (name, strained component, sign)
RUNS = (("xx_plus", "xx", 1), ("xx_minus", "xx", -1), ("xy_plus", "xy", 1), ("xy_minus", "xy", -1))
COLUMNS = ("lx", "ly", "lz", "xy", "xz", "yz", "pxx", "pyy", "pzz", "pxy", "pxz", "pyz")


CRYSTAL = f"""units metal
boundary p p p
atom_style atomic
lattice fcc 3.6
region box prism 0 4 0 4 0 4 0 0 0
create_box 1 box
create_atoms 1 box
pair_style eam
pair_coeff * * {POTENTIAL}
thermo_style custom step pe lx ly lz xy xz yz pxx pyy pzz pxy pxz pyz
"""


def zero_pressure_length():
    """The box length of the relaxed (zero-pressure) 4x4x4 cell: box/relax iso 0 + cg to ftol 1e-10."""
    commands = CRYSTAL + "fix relax all box/relax iso 0.0 vmax 0.001\nminimize 0.0 1.0e-10 10000 100000\n"
    return lammpskit.evaluate(commands, lx="lx")["lx"]


def state_at(lx, ly, lz, xy, xz, yz, minimize=True):
    """LAMMPS's pressure tensor (bar) of the fcc crystal mapped affinely onto the given box, atoms minimized."""
    return lammpskit.evaluate(
        CRYSTAL
        + f"change_box all x final 0 {lx!r} y final 0 {ly!r} z final 0 {lz!r} remap units box\n"
        + f"change_box all xy final {xy!r} xz final {xz!r} yz final {yz!r} remap units box\n"
        + ("minimize 0.0 1.0e-10 10000 100000\n" if minimize else "run 0\n"),
        **{c: c for c in COLUMNS},
    )


def constants(states, length):
    """C11, C12, C44 (GPa) by centred differences of the stress (-pressure) over the strains of the given states."""

    def strain(s, component):
        return s["lx"] / length - 1 if component == "xx" else s["xy"] / s["ly"]

    sxx = strain(states["xx_plus"], "xx") - strain(states["xx_minus"], "xx")
    sxy = strain(states["xy_plus"], "xy") - strain(states["xy_minus"], "xy")
    c11 = -(states["xx_plus"]["pxx"] - states["xx_minus"]["pxx"]) / sxx / BAR_PER_GPA
    c12 = -(states["xx_plus"]["pyy"] - states["xx_minus"]["pyy"]) / sxx / BAR_PER_GPA
    c44 = -(states["xy_plus"]["pxy"] - states["xy_minus"]["pxy"]) / sxy / BAR_PER_GPA
    return {"c11_gpa": c11, "c12_gpa": c12, "c44_gpa": c44}


def last_block(log):
    """The last thermo block's final row by lower-case column name, and the log's text from that block on."""
    lines = log.splitlines()
    starts = [i for i, line in enumerate(lines) if line.split()[:1] == ["Step"]]
    assert starts, "the log has no thermo output"
    tail = "\n".join(lines[starts[-1] :])
    assert lammpskit.thermo_blocks(tail), "the last thermo block has no rows"
    return lammpskit.final_thermo(tail), tail


def stated_box(component, sign, length):
    box = {"lx": length, "ly": length, "lz": length, "xy": 0.0, "xz": 0.0, "yz": 0.0}
    if component == "xx":
        box["lx"] = length * (1 + sign * STRAIN)
    else:
        box["xy"] = sign * STRAIN * length
    return box


def verify(checks):
    result = {}
    with checks.check("result.json readable"):
        result = load_json(f"{OUT}/result.json")
        for key in ("c11_gpa", "c12_gpa", "c44_gpa", "bulk_modulus_gpa"):
            float(result[key])
    length = zero_pressure_length()
    logged = {}
    for name, component, sign in RUNS:
        log, state, after = "", {}, ""
        with checks.check(f"{name}.in and {name}.log readable: a LAMMPS log with the box and pressure tensor"):
            assert os.path.isfile(f"{OUT}/{name}.in"), f"{name}.in was not delivered"
            log = open(f"{OUT}/{name}.log", errors="replace").read()
            assert lammpskit.version(log), f"{name}.log does not start with LAMMPS's version header"
            state, after = last_block(log)
            missing = [c for c in COLUMNS if c not in state]
            assert not missing, f"{name}.log's last thermo line lacks {missing}"
        commands = lammpskit.echo_commands(log)
        with checks.check(f"{name}.log echo: units metal, pair_style eam with Cu_u3.eam, 256 atoms"):
            units = [c for c in commands if c[0] == "units"]
            assert units and units[-1] == ["units", "metal"], f"units {units[-1:]}"
            styles = [c for c in commands if c[0] == "pair_style"]
            assert styles and styles[-1] == ["pair_style", "eam"], f"{styles[-1:]} (pair_style eam)"
            coeff = [c for c in commands if c[0] == "pair_coeff"]
            assert len(coeff) == 1 and coeff[0][1:3] == ["*", "*"], f"pair_coeff {coeff}"
            assert os.path.basename(coeff[0][3]) == "Cu_u3.eam", f"potential file {coeff[0][3]}"
            counts = lammpskit.loop_atoms(log)
            assert counts and counts[-1] == ATOMS, f"the last run has {counts[-1:] or 'no'} atoms"
        with checks.check(f"{name}.log ends with a minimization of the atoms at a fixed box"):
            assert "Minimization stats:" in after, f"{name}.log's last thermo block is not a minimization"
            stopping = re.search(r"Stopping criterion = (.*)", after)
            assert stopping and ("force tolerance" in stopping.group(1) or "energy tolerance" in stopping.group(1)
                                 or "linesearch alpha is zero" in stopping.group(1)), (
                f"the minimization stopped on {stopping.group(1) if stopping else 'nothing'}"
            )  # fmt: skip
            minimize = [c for c in commands if c[0] == "minimize"]
            assert minimize and float(minimize[-1][2]) <= 1e-10, f"minimize {minimize[-1:]} (force tolerance 1e-10)"
        box = stated_box(component, sign, length)
        with checks.check(f"{name}.log's final box is the stated strain of the zero-pressure cell (1e-7)"):
            for key in ("lx", "ly", "lz"):
                assert abs(state[key] / box[key] - 1) <= 1e-7, f"{key} {state[key]} A, stated {box[key]:.10f} A"
            for key in ("xy", "xz", "yz"):
                assert abs(state[key] - box[key]) <= 1e-7 * length, f"{key} {state[key]} A, stated {box[key]:.10f} A"
        with checks.check(f"{name}.log's pressure tensor is LAMMPS's own at its box (recomputed, 0.5 bar)"):
            recomputed = state_at(*(state[k] for k in COLUMNS[:6]), minimize=False)
            worst = max(COLUMNS[6:], key=lambda k: abs(state[k] - recomputed[k]))
            assert abs(state[worst] - recomputed[worst]) <= 0.5, (
                f"{worst} {state[worst]} bar in the log, {recomputed[worst]:.4f} bar recomputed at its box"
            )
            logged[name] = state
    mine = constants({name: state_at(*stated_box(c, s, length).values()) for name, c, s in RUNS}, length)
    from_logs = {}
    with checks.check("C11, C12, C44 from the delivered logs' own stresses equal result.json (0.01 GPa)"):
        assert len(logged) == len(RUNS), f"only {sorted(logged)} of the four logs hold a verified state"
        from_logs = constants(logged, length)
        for key, value in from_logs.items():
            assert abs(float(result[key]) - value) <= 0.01, f"{key} {result[key]}, the logs give {value:.4f} GPa"
    with checks.check("C11, C12, C44 equal the verifier's own finite-strain calculation (0.01 GPa)"):
        for key, value in mine.items():
            assert abs(float(result[key]) - value) <= 0.01, f"{key} {result[key]}, the verifier's {value:.4f} GPa"
    with checks.check("bulk modulus is (C11 + 2 C12)/3 of the reported constants and of the verifier's (0.01 GPa)"):
        bulk = float(result["bulk_modulus_gpa"])
        own = (float(result["c11_gpa"]) + 2 * float(result["c12_gpa"])) / 3
        ref = (mine["c11_gpa"] + 2 * mine["c12_gpa"]) / 3
        assert abs(bulk - own) <= 0.01, f"bulk modulus {bulk}, (C11 + 2 C12)/3 of result.json {own:.4f} GPa"
        assert abs(bulk - ref) <= 0.01, f"bulk modulus {bulk}, the verifier's {ref:.4f} GPa"


sys.exit(main(verify))
