"""Check the Martini bilayer against insane itself (the same request rebuilt here: its lipid counts per leaflet,
water and ions) and read the structure with gmx check."""

import os
import re
import subprocess
import sys
import tempfile

from verifykit import gmx, load_json, main

OUT = "/app/output"
HEADS = {("POPC", "PO4"), ("POPS", "PO4"), ("CHOL", "ROH")}
LIPIDS = {"POPC", "POPS", "CHOL"}
CHARGE = {"POPS": -1, "NA+": 1, "CL-": -1}
REQUEST = [
    "-pbc",
    "rectangular",
    "-x",
    "10",
    "-y",
    "10",
    "-z",
    "10",
    "-u",
    "POPC:4",
    "-u",
    "CHOL:1",
    "-l",
    "POPC:3",
    "-l",
    "POPS:1",
    "-a",
    "0.6",
    "-sol",
    "W",
    "-salt",
    "0.15",
]
LIPID_TOL = 1  # lipids of each kind per leaflet against insane's own build (it places on a grid: exact)
WATER_TOL = 0.02  # relative, W beads (insane removes a few at random where they overlap)
ION_TOL = 2  # ions of each kind (they follow the water count)


def read_gro(path):
    lines = open(path).read().splitlines()
    n = int(lines[1])
    atoms = [(int(l[0:5]), l[5:10].strip(), l[10:15].strip(), float(l[36:44])) for l in lines[2 : 2 + n]]
    return atoms, [float(x) for x in lines[2 + n].split()]


def residues(atoms):
    seen = []
    for number, name, *_ in atoms:
        if not seen or seen[-1] != (number, name):
            seen.append((number, name))
    return [name for _, name in seen]


def leaflets(atoms):
    mid = sum(a[3] for a in atoms if a[1] in LIPIDS) / max(1, sum(1 for a in atoms if a[1] in LIPIDS))
    counts, z = {"upper": {}, "lower": {}}, {"upper": [], "lower": []}
    for _, name, bead, height in atoms:
        if (name, bead) in HEADS:
            side = "upper" if height > mid else "lower"
            counts[side][name] = counts[side].get(name, 0) + 1
            if bead == "PO4":
                z[side].append(height)
    return counts, z


def molecules(top):
    section, listed = None, []
    for line in open(top):
        text = line.split(";")[0].strip()
        if text.startswith("["):
            section = text.strip("[] ").lower()
        elif section == "molecules" and text:
            name, number = text.split()[:2]
            if listed and listed[-1][0] == name:
                listed[-1] = (name, listed[-1][1] + int(number))
            else:
                listed.append((name, int(number)))
    return listed


def runs(names):
    out = []
    for name in names:
        if out and out[-1][0] == name:
            out[-1] = (name, out[-1][1] + 1)
        else:
            out.append((name, 1))
    return out


def verify(checks):
    reference = tempfile.mkdtemp()
    result = subprocess.run(
        ["insane", "-o", "ref.gro", "-p", "ref.top", *REQUEST],
        cwd=reference,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, "reference insane failed: " + result.stderr[-400:]
    ref_atoms, _ = read_gro(os.path.join(reference, "ref.gro"))
    ref_counts, _ = leaflets(ref_atoms)
    ref_names = residues(ref_atoms)
    atoms, box, spec = [], [], {}
    with checks.check("bilayer.gro readable"):
        atoms, box = read_gro(f"{OUT}/bilayer.gro")
    with checks.check("gmx check reads bilayer.gro (every atom, the box)", kind="format"):
        code, log = gmx("check", "-f", f"{OUT}/bilayer.gro", timeout=120)
        assert code == 0 and re.search(rf"Atoms\s+{len(atoms)}\b", log), log[-300:]
    with checks.check("bilayer.json readable with the contracted keys"):
        spec = load_json(f"{OUT}/bilayer.json")
        assert {"upper", "lower", "water", "sodium", "chloride", "net_charge"} <= set(spec), f"keys {sorted(spec)}"
    counts, z = leaflets(atoms)
    names = residues(atoms)
    for side in ("upper", "lower"):
        expected = ref_counts[side]
        checks.require(
            f"{side} leaflet: lipids as insane builds them for the request (within {LIPID_TOL} of each kind)",
            set(counts[side]) == set(expected)
            and all(abs(counts[side][k] - expected[k]) <= LIPID_TOL for k in expected),
            f"{side} leaflet has {counts[side]}; insane builds {expected}",
        )
    checks.require(
        "a bilayer along z: the two phosphate (PO4) layers 3-5 nm apart",
        bool(z["upper"] and z["lower"])
        and 3.0 <= sum(z["upper"]) / len(z["upper"]) - sum(z["lower"]) / len(z["lower"]) <= 5.0,
        "no two leaflets of PO4 beads 3-5 nm apart along z",
    )
    checks.require(
        "box 10 x 10 x 10 nm (rectangular)",
        len(box) in (3, 9) and all(abs(b - 10.0) < 0.05 for b in box[:3]) and all(abs(b) < 1e-6 for b in box[3:]),
        f"box {box}",
    )
    water, sodium, chloride = names.count("W"), names.count("NA+"), names.count("CL-")
    ref_water = ref_names.count("W")
    checks.require(
        f"water beads within {WATER_TOL:.0%} of insane's",
        abs(water - ref_water) <= WATER_TOL * ref_water,
        f"{water} W; insane places {ref_water}",
    )
    charge = sum(CHARGE.get(n, 0) for n in names)
    checks.require("net charge zero (POPS neutralized)", charge == 0, f"net charge {charge} e")
    checks.require(
        f"Na+ and Cl- for 0.15 M NaCl as insane adds them (within {ION_TOL})",
        abs(sodium - ref_names.count("NA+")) <= ION_TOL and abs(chloride - ref_names.count("CL-")) <= ION_TOL,
        f"{sodium} NA+, {chloride} CL-; insane adds {ref_names.count('NA+')} and {ref_names.count('CL-')}",
    )
    with checks.check("topol.top's [ molecules ] list the molecules of bilayer.gro in order"):
        listed = molecules(f"{OUT}/topol.top")
        assert listed == runs(names), f"[ molecules ] {listed[:8]}; bilayer.gro {runs(names)[:8]}"
    with checks.check("bilayer.json matches the structure"):
        assert spec["upper"] == counts["upper"] and spec["lower"] == counts["lower"], (
            f"json {spec['upper']}/{spec['lower']}, gro {counts}"
        )
        assert (spec["water"], spec["sodium"], spec["chloride"]) == (water, sodium, chloride), (
            "water or ion counts differ"
        )
        assert abs(float(spec["net_charge"]) - charge) < 1e-6, f"net_charge {spec['net_charge']}, structure {charge}"


sys.exit(main(verify))
