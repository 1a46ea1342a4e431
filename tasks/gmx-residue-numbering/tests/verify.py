"""Check the renumbering, the map and the index group against the PDB and conf.gro."""

import csv
import os
import sys
import tempfile

from verifykit import gmx, main


def pdb2gmx_reference():
    """pdb2gmx's own build of the protein (AMBER99SB-ILDN, TIP3P, pH 7 default states, renumbered): atoms, positions."""
    work = tempfile.mkdtemp()
    with open(os.path.join(work, "protein.pdb"), "w") as handle:
        handle.writelines(line for line in open("/app/inputs/1ENH.pdb") if "HOH" not in line)
    code, log = gmx(
        "pdb2gmx", "-f", "protein.pdb", "-o", "ref.gro", "-p", "ref.top", "-i", "ref_posre.itp",
        "-ff", "amber99sb-ildn", "-water", "tip3p", "-ignh", "-renum", cwd=work, timeout=120,
    )  # fmt: skip
    assert code == 0, log[-400:]
    return read_gro(os.path.join(work, "ref.gro"))


def read_gro(path):
    lines = open(path).read().splitlines()
    rows = lines[2 : 2 + int(lines[1])]
    atoms = [(int(l[0:5]), l[5:10].strip(), l[10:15].strip()) for l in rows]
    xyz = [tuple(float(l[c : c + 8]) for c in (20, 28, 36)) for l in rows]
    return atoms, xyz


def verify(checks):
    pdb = []
    for line in open("/app/inputs/1ENH.pdb"):
        if line.startswith("ATOM") and (not pdb or pdb[-1][0] != int(line[22:26])):
            pdb.append((int(line[22:26]), line[17:20]))
    atoms = []
    with checks.check("conf.gro: the protein only, residues numbered 1..N"):
        lines = open("/app/output/conf.gro").read().splitlines()
        atoms = [(int(l[0:5]), l[5:10].strip(), l[10:15].strip()) for l in lines[2 : 2 + int(lines[1])]]
        numbers = list(dict.fromkeys(a[0] for a in atoms))
        assert numbers == list(range(1, len(pdb) + 1)), (
            f"residues {numbers[:3]}...{numbers[-3:]}, expected 1..{len(pdb)}"
        )
        assert not {"HOH", "SOL"} & {a[1] for a in atoms}, "waters kept"
        assert any(a[2].startswith("H") for a in atoms), "no hydrogens"
    with checks.check(
        "conf.gro is pdb2gmx's build (AMBER99SB-ILDN, pH 7 hydrogens): the same atoms at the PDB's positions (0.002 nm)"
    ):
        ref_atoms, ref_xyz = pdb2gmx_reference()
        got_atoms, got_xyz = read_gro("/app/output/conf.gro")
        assert got_atoms == ref_atoms, f"{len(got_atoms)} atoms; pdb2gmx builds {len(ref_atoms)} (names differ)"
        worst = max(max(abs(a - b) for a, b in zip(p, q)) for p, q in zip(got_xyz, ref_xyz))
        assert worst <= 0.002, f"an atom is {worst:.3f} nm from where pdb2gmx puts it (nm, not angstrom?)"
    with checks.check("topol.top is pdb2gmx's AMBER99SB-ILDN topology with its posre.itp"):
        text = open("/app/output/topol.top").read()
        assert "amber99sb-ildn.ff/forcefield.itp" in text, "force field"
        assert "amber99sb-ildn.ff/tip3p.itp" in text, "water model (TIP3P)"
        assert '#include "posre.itp"' not in text or open("/app/output/posre.itp").read(), "posre.itp missing"
    rows = []
    with checks.check("residue_map.csv maps every PDB residue to its GRO number"):
        with open("/app/output/residue_map.csv") as handle:
            reader = csv.DictReader(handle)
            assert reader.fieldnames == ["pdb_resid", "gro_resid", "resname"], f"header {reader.fieldnames}"
            rows = list(reader)
        assert [(int(r["pdb_resid"]), int(r["gro_resid"]), r["resname"]) for r in rows] == [
            (p, i + 1, name) for i, (p, name) in enumerate(pdb)
        ], "the map differs"
    with checks.check("Helix3_backbone: N, CA, C, O of PDB residues 42-56"):
        groups, name = {}, None
        for line in open("/app/output/index.ndx"):
            line = line.strip()
            if line.startswith("["):
                name = line.strip("[] ")
                groups[name] = []
            elif line and name:
                groups[name] += [int(x) for x in line.split()]
        gro = {p: i + 1 for i, (p, _) in enumerate(pdb)}
        expected = [k + 1 for k, a in enumerate(atoms) if gro[42] <= a[0] <= gro[56] and a[2] in ("N", "CA", "C", "O")]
        assert "Helix3_backbone" in groups, f"groups {list(groups)}"
        assert sorted(groups["Helix3_backbone"]) == expected, (
            f"{len(groups['Helix3_backbone'])} atoms, expected {len(expected)}"
        )


sys.exit(main(verify))
