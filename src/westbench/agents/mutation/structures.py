"""Structure and index files: PDB/GRO coordinates in nm written as angstrom, GROMACS index atom numbers shifted."""

from __future__ import annotations

import re

from westbench.agents.mutation.catalogue import OPERATORS, Mutant


def coordinate_mutant(relative: str, text: str) -> Mutant | None:
    """Every position of a PDB or GRO file (and a GRO box) times 10: nm written as angstrom."""
    lines = text.splitlines(keepends=True)
    out, changed = [], False
    if relative.endswith(".pdb"):
        for line in lines:
            if line.startswith(("ATOM", "HETATM")) and len(line) >= 54:
                try:
                    xyz = [float(line[c : c + 8]) * 10 for c in (30, 38, 46)]
                except ValueError:
                    out.append(line)
                    continue
                line = line[:30] + "".join(f"{v:8.3f}"[-8:] for v in xyz) + line[54:]
                changed = True
            out.append(line)
    elif relative.endswith(".gro") and len(lines) >= 3:
        try:
            count = int(lines[1])
        except ValueError:
            return None
        out = lines[:2]
        for line in lines[2 : 2 + count]:
            try:
                xyz = [float(line[c : c + 8]) * 10 for c in (20, 28, 36)]
            except ValueError:
                return None
            out.append(line[:20] + "".join(f"{v:8.3f}"[-8:] for v in xyz) + line[44:])
        box = lines[2 + count :]
        if box:
            out.append(" ".join(f"{float(x) * 10:.5f}" for x in box[0].split()) + "\n")
            out += box[1:]
        changed = True
    if not changed:
        return None
    return Mutant(
        id=f"coords-x10:{relative}",
        operator="coords-x10",
        file=relative,
        description=f"{OPERATORS['coords-x10']}: {relative}",
        level="output",
        changes={relative: "".join(out)},
    )


def ndx_mutants(relative: str, text: str) -> list[Mutant]:
    """A GROMACS index file with every atom number one higher and one lower (0-based written as 1-based and back).

    >>> [m.changes["i.ndx"] for m in ndx_mutants("i.ndx", "[ A ]\\n1 2 3\\n")]
    ['[ A ]\\n2 3 4\\n', '[ A ]\\n0 1 2\\n']
    """
    mutants = []
    for operator, shift in (("index+1", 1), ("index-1", -1)):
        lines = [
            line if line.lstrip().startswith("[") else re.sub(r"\d+", lambda m: str(int(m.group()) + shift), line)
            for line in text.splitlines(keepends=True)
        ]
        mutated = "".join(lines)
        if mutated != text:
            mutants.append(
                Mutant(
                    id=f"{operator}:{relative}",
                    operator=operator,
                    file=relative,
                    description=f"{OPERATORS[operator]}: every atom number of {relative}",
                    level="output",
                    changes={relative: mutated},
                )
            )
    return mutants
