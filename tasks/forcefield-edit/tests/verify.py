"""Build methanol with the original and the edited force field in OpenMM and compare every parameter."""

import sys

from openmm import app, unit
from verifykit import close, main


def parameters(path):
    pdb = app.PDBFile("/app/inputs/methanol.pdb")
    system = app.ForceField(path).createSystem(pdb.topology, nonbondedMethod=app.NoCutoff)
    names = [a.name for a in pdb.topology.atoms()]
    forces = {type(f).__name__: f for f in system.getForces()}
    nonbonded = forces["NonbondedForce"]
    particles = {}
    for i, name in enumerate(names):
        q, sigma, epsilon = nonbonded.getParticleParameters(i)
        particles[name] = (
            q.value_in_unit(unit.elementary_charge),
            sigma.value_in_unit(unit.nanometer),
            epsilon.value_in_unit(unit.kilojoule_per_mole),
        )
    bonded = []
    for kind, noun in (
        ("HarmonicBondForce", "Bond"),
        ("HarmonicAngleForce", "Angle"),
        ("PeriodicTorsionForce", "Torsion"),
    ):
        force = forces[kind]
        get = getattr(force, f"get{noun}Parameters")
        bonded += [str(get(i)) for i in range(getattr(force, f"getNum{noun}s")())]
    return particles, bonded


# What the task edits: the oxygen's epsilon and charge, the hydroxyl hydrogen's charge (NonbondedForce atoms).
EDITED = {("Atom", "MOH-O", "epsilon"), ("Atom", "MOH-O", "charge"), ("Atom", "MOH-HO", "charge")}


def xml_changes(before_path, after_path):
    """Every element or attribute of the force-field XML that differs, outside the edits the task asks for."""
    import xml.etree.ElementTree as ET

    def rows(path):
        return [(e.tag, dict(e.attrib)) for e in ET.parse(path).getroot().iter()]

    before, after = rows(before_path), rows(after_path)
    if [t for t, _ in before] != [t for t, _ in after]:
        return ["the XML's elements differ (added, removed or reordered)"]
    changed = []
    for (tag, a), (_, b) in zip(before, after):
        for key in sorted(set(a) | set(b)):
            if (tag, a.get("type") or a.get("name"), key) in EDITED:
                continue
            x, y = a.get(key), b.get(key)
            try:
                same = x is not None and y is not None and abs(float(x) - float(y)) <= 1e-9 * max(1.0, abs(float(x)))
            except ValueError:
                same = x == y
            if not same:
                changed.append(f"<{tag} {a.get('type') or a.get('name') or ''}> {key}: {x} -> {y}")
    return changed


def verify(checks):
    before, bonded_before = parameters("/app/inputs/methanol.xml")
    after = bonded_after = None
    with checks.check("edited XML loads and builds methanol in OpenMM"):
        after, bonded_after = parameters("/app/output/methanol.xml")
    if after is None:
        for name in (
            "oxygen epsilon converted to kJ/mol",
            "hydroxyl hydrogen charge +0.4180",
            "oxygen charge compensates",
            "molecule neutral",
            "other atoms unchanged",
            "bonded terms unchanged",
            "nothing else in the XML changed (every element and attribute, masses and 1-4 scales included)",
        ):
            checks.require(name, False, "no loadable methanol.xml")
        return
    checks.require(
        "oxygen epsilon converted to kJ/mol",
        close(after["O"][2], before["O"][2] * 4.184, rel=1e-4),
        f"epsilon {after['O'][2]} kJ/mol",
    )
    checks.require(
        "hydroxyl hydrogen charge +0.4180", close(after["HO"][0], 0.418, rel=0, abs_=1e-6), f"charge {after['HO'][0]}"
    )
    checks.require(
        "oxygen charge compensates",
        close(after["O"][0], before["O"][0] - (0.418 - before["HO"][0]), rel=0, abs_=1e-6),
        f"oxygen charge {after['O'][0]}",
    )
    checks.require(
        "molecule neutral",
        abs(sum(p[0] for p in after.values())) < 1e-6,
        f"net charge {sum(p[0] for p in after.values())}",
    )
    others = [n for n in before if n not in ("O", "HO")]
    checks.require(
        "other atoms unchanged",
        all(after[n] == before[n] for n in others)
        and after["O"][1] == before["O"][1]
        and after["HO"][1:] == before["HO"][1:],
        "other nonbonded parameters changed",
    )
    checks.require("bonded terms unchanged", bonded_after == bonded_before, "bonds, angles or torsions changed")
    with checks.check("nothing else in the XML changed (every element and attribute, masses and 1-4 scales included)"):
        changed = xml_changes("/app/inputs/methanol.xml", "/app/output/methanol.xml")
        assert not changed, "; ".join(changed[:4])


sys.exit(main(verify))
