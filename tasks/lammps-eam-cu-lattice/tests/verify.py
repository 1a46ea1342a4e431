"""Tie the delivered LAMMPS log, data file and result.json to one real box/relax run and recompute both numbers."""

import os
import sys

import lammpskit
from verifykit import load_json, main

OUT = "/app/output"
POTENTIAL = "/usr/share/lammps/potentials/Cu_u3.eam"  # the file /app/inputs/Cu_u3.eam copies
ATOMS = 256


def reference():
    """The verifier's own relaxation: a 4x4x4 fcc cell under Cu_u3.eam, box/relax iso 0 + cg to ftol 1e-10."""
    values = lammpskit.evaluate(
        f"""units metal
boundary p p p
atom_style atomic
lattice fcc 3.6
region box block 0 4 0 4 0 4
create_box 1 box
create_atoms 1 box
pair_style eam
pair_coeff * * {POTENTIAL}
fix relax all box/relax iso 0.0 vmax 0.001
minimize 0.0 1.0e-10 10000 100000
unfix relax
run 0""",
        lx="lx",
        pe="pe",
        atoms="atoms",
    )
    return values["lx"] / 4, values["pe"] / values["atoms"]


def read_data(path):
    """Atom count, box lengths and tilt of a LAMMPS data file."""
    text = open(path).read()
    natoms, _, lengths, tilts = lammpskit.data_box(text)
    return natoms, lengths, tilts, text


def verify(checks):
    result, log, data, state = {}, "", None, {}
    with checks.check("result.json readable"):
        result = load_json(f"{OUT}/result.json")
        float(result["lattice_constant_angstrom"]), float(result["cohesive_energy_ev_per_atom"])
    with checks.check("in.lattice exists"):
        assert os.path.isfile(f"{OUT}/in.lattice"), "in.lattice was not delivered"
    with checks.check("log.lammps readable: a LAMMPS log with thermo output"):
        log = open(f"{OUT}/log.lammps", errors="replace").read()
        assert lammpskit.version(log), "log.lammps does not start with LAMMPS's version header"
        state = lammpskit.final_thermo(log)
        missing = [c for c in ("pe", "poteng", "lx", "ly", "lz", "press") if c not in state]
        assert not [c for c in missing if c not in ("pe", "poteng")] and ("pe" in state or "poteng" in state), (
            f"the final thermo line lacks {missing} (thermo_style custom step pe lx ly lz press)"
        )
    with checks.check("relaxed.data readable: a LAMMPS data file"):
        data = read_data(f"{OUT}/relaxed.data")
    commands = lammpskit.echo_commands(log)

    def last(name):
        found = [c for c in commands if c[0] == name]
        return found[-1] if found else None

    with checks.check("log echo: units metal, atom_style atomic, periodic, pair_style eam with Cu_u3.eam"):
        assert last("units") == ["units", "metal"], f"units {last('units')}"
        assert last("atom_style") in (None, ["atom_style", "atomic"]), f"{last('atom_style')}"
        assert last("boundary") in (None, ["boundary", "p", "p", "p"]), f"{last('boundary')}"
        assert last("pair_style") == ["pair_style", "eam"], f"{last('pair_style')} (pair_style eam)"
        coeff = [c for c in commands if c[0] == "pair_coeff"]
        assert len(coeff) == 1 and coeff[0][1:3] == ["*", "*"], f"pair_coeff {coeff}"
        assert os.path.basename(coeff[0][3]) == "Cu_u3.eam", f"potential file {coeff[0][3]}"
    with checks.check("log echo: fix box/relax iso 0.0 and minimize with etol 0 and ftol <= 1e-10"):
        relax = [c for c in commands if c[0] == "fix" and len(c) > 3 and c[3] == "box/relax"]
        assert relax, "no fix box/relax in the log's input echo"
        fix = relax[-1]
        assert "iso" in fix and float(fix[fix.index("iso") + 1]) == 0.0, f"{' '.join(fix)} (iso 0.0)"
        assert not {"aniso", "tri", "x", "y", "z", "couple"} & set(fix), f"{' '.join(fix)} (iso only)"
        minimize = [c for c in commands if c[0] == "minimize"]
        assert minimize, "no minimize in the log's input echo"
        etol, ftol = float(minimize[-1][1]), float(minimize[-1][2])
        assert etol == 0.0 and ftol <= 1e-10, f"minimize etol {etol}, ftol {ftol} (0 and 1e-10)"
    with checks.check("256 atoms in the log's run and in relaxed.data"):
        counts = lammpskit.loop_atoms(log)
        assert counts and counts[-1] == ATOMS, f"the log's last run has {counts[-1:] or 'no'} atoms"
        assert data[0] == ATOMS, f"relaxed.data has {data[0]} atoms"
    with checks.check("final thermo state: cubic box, |pressure| < 0.1 bar"):
        lengths = [state["lx"], state["ly"], state["lz"]]
        assert max(lengths) - min(lengths) < 1e-6, f"box {lengths} A is not cubic"
        assert abs(state["press"]) < 0.1, f"final pressure {state['press']} bar"
    pe_log = state.get("pe", state.get("poteng"))
    with checks.check(
        "relaxed.data is the log's final state: same box (2e-6 A) and, rerun with Cu_u3.eam, the log's final pe"
    ):
        natoms, lengths, tilts, _ = data
        for axis, length in zip("xyz", lengths):
            logged = state[f"l{axis}"]
            assert abs(length - logged) <= 2e-6, f"relaxed.data's l{axis} {length} != the log's {logged}"
        assert max(abs(t) for t in tilts) < 1e-9, f"tilt {tilts}"
        rerun = lammpskit.evaluate(
            f"units metal\natom_style atomic\nboundary p p p\nread_data {OUT}/relaxed.data\n"
            f"pair_style eam\npair_coeff * * {POTENTIAL}\nrun 0",
            pe="pe",
            press="press",
        )
        pe, press = rerun["pe"], rerun["press"]
        # the log prints pe with its thermo format (8 digits by default: 1e-5 eV of -906)
        assert abs(pe - pe_log) <= 1e-4, f"relaxed.data rerun gives pe {pe:.8f} eV, the log's final pe {pe_log}"
        assert abs(press) < 0.1, f"relaxed.data rerun gives pressure {press:.4g} bar (not relaxed to zero pressure)"
    a_ref, e_ref = reference()
    with checks.check("lattice constant matches the verifier's own relaxation (1e-5 A) and relaxed.data's box / 4"):
        a = float(result["lattice_constant_angstrom"])
        assert abs(a - a_ref) <= 1e-5, f"lattice constant {a} A, the verifier's relaxation {a_ref:.8f} A"
        assert abs(a - data[1][0] / 4) <= 1e-5, f"lattice constant {a} A, relaxed.data's box / 4 {data[1][0] / 4}"
    with checks.check(
        "cohesive energy matches the verifier's own relaxation (1e-6 eV/atom) and the log's final pe / 256"
    ):
        e = float(result["cohesive_energy_ev_per_atom"])
        assert abs(e - e_ref) <= 1e-6, f"cohesive energy {e} eV/atom, the verifier's relaxation {e_ref:.9f}"
        per_atom = pe_log / ATOMS
        assert abs(e - per_atom) <= 1e-6, f"cohesive energy {e} eV/atom, the log's final pe / 256 {per_atom}"


sys.exit(main(verify))
