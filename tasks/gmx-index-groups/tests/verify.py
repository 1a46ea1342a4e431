"""Read index.ndx and compare its first three groups with the atoms picked from conf.gro by name and residue."""

import sys

from verifykit import main


def read_ndx(path):
    groups, name = [], None
    for line in open(path):
        line = line.strip()
        if line.startswith("["):
            name = line.strip("[] ")
            groups.append((name, []))
        elif line and name is not None:
            groups[-1][1].extend(int(x) for x in line.split())
    return groups


def reference():
    lines = open("/app/inputs/conf.gro").read().splitlines()
    atoms = [(int(l[0:5]), l[5:10].strip(), l[10:15].strip()) for l in lines[2 : 2 + int(lines[1])]]
    pick = lambda keep: [i + 1 for i, atom in enumerate(atoms) if keep(*atom)]
    return {
        "Turn": pick(lambda r, res, name: 4 <= r <= 7),
        "Aromatic_SC": pick(
            lambda r, res, name: (
                res in ("TYR", "TRP") and name not in ("N", "CA", "C", "O") and not name.startswith("H")
            )
        ),
        "Carboxylate_O": pick(lambda r, res, name: name in ("OD1", "OD2", "OE1", "OE2", "OC1", "OC2")),
    }


def verify(checks):
    expected = reference()
    groups = []
    with checks.check("index.ndx readable with at least three groups"):
        groups = read_ndx("/app/output/index.ndx")
        assert len(groups) >= 3, f"{len(groups)} groups"
    checks.require(
        "the first three groups are Turn, Aromatic_SC, Carboxylate_O",
        [g[0] for g in groups[:3]] == list(expected),
        f"groups {[g[0] for g in groups[:3]]}",
    )
    for name, atoms in expected.items():
        got = dict(groups).get(name)
        checks.require(
            f"{name}: {len(atoms)} atoms, the right ones",
            got is not None and sorted(got) == atoms,
            f"{len(got) if got is not None else 'no'} atoms; missing {sorted(set(atoms) - set(got or []))[:5]}, "
            f"extra {sorted(set(got or []) - set(atoms))[:5]}",
        )


sys.exit(main(verify))
