"""Write the PDB entries some agent tasks start from into their inputs/ folders (never committed).

The entries are the benchmark's raw RCSB files: read from a local folder of PDB files (default
``../shared/structures`` beside the checkout, or ``--structures-dir``) and, where an entry is not
there, downloaded once from the RCSB with westbench's own downloader (the URL of the config schema's
``download.url_template``). Each is written with its coordinates and quirks kept (models, crystal waters,
residue numbering) and annotation records dropped. Run by ``tools/setup-agents.sh`` and
``tools/test.sh``; a file already up to date is left alone. With ``--optional`` (the fast lane, which runs no
container), an entry that is neither in the folder nor downloadable is reported and skipped instead of failing.

    python tools/task_structures.py [--structures-dir DIR] [--optional]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TASKS = ROOT / "tasks"
DEFAULT_STRUCTURES = ROOT.parent / "shared" / "structures"
PDB_RECORDS = ("HEADER", "TITLE", "EXPDTA", "CRYST1", "MODEL", "ATOM", "HETATM", "TER", "ENDMDL", "END")
#: (task, PDB id, models kept: None = all)
ENTRIES = (
    ("underspecified-protonation", "1PRB", None),
    ("propka-pka-shifts", "1PRB", None),
    ("gmx-crystal-waters", "1PGA", None),
    ("gmx-residue-numbering", "1ENH", None),
    ("mdtraj-dssp-nmr-ensemble", "1L2Y", 7),
    ("long-horizon-trpcage-nmr", "1L2Y", 7),
)


def task_entry(raw: str, models: int | None = None) -> str:
    """The records of a raw PDB entry a task ships: the first ``models`` models (all when None).

    >>> raw = ("HEADER x\\nREMARK 2\\nCRYST1    1.000    1.000\\n"
    ...        "MODEL 1\\nATOM  1\\nENDMDL\\nMODEL 2\\nATOM  2\\nENDMDL\\n")
    >>> task_entry(raw, 1)
    'HEADER x\\nMODEL 1\\nATOM  1\\nENDMDL\\nEND\\n'
    """
    out, model = [], 0
    for line in raw.splitlines():
        if line.startswith("MODEL"):
            model += 1
        if models is not None and model > models:
            break
        if line.startswith("CRYST1") and line[6:15].strip() == "1.000":
            continue  # the 1 A placeholder cell of NMR entries: tools would apply it as a real periodic box
        if line.startswith(PDB_RECORDS):
            out.append(line)
    if not out or out[-1].strip() != "END":
        out.append("END")
    return "\n".join(out) + "\n"


class EntryUnavailable(SystemExit):
    """An entry is neither in the structures folder nor downloadable; the message says which file to provide."""


def raw_entry(pdb_id: str, structures_dir: Path, download_dir: Path) -> str:
    """The raw entry from ``structures_dir``, else downloaded from the RCSB into ``download_dir``."""
    local = structures_dir / f"{pdb_id}.pdb"
    if local.is_file():
        return local.read_text()
    from westbench.config import section_defaults
    from westbench.structures.rcsb import download_pdb

    target = download_dir / f"{pdb_id}.pdb"
    if not target.is_file():
        try:
            download_pdb(pdb_id, target, section_defaults("download")["url_template"])
        except Exception as error:  # offline and no local copy: say which file to provide
            raise EntryUnavailable(
                f"task_structures: {local} is missing and {pdb_id} could not be downloaded ({error}); "
                f"put the RCSB file there or pass --structures-dir"
            ) from error
    return target.read_text()


def write_entries(structures_dir: Path = DEFAULT_STRUCTURES, optional: bool = False) -> list[Path]:
    """Write every task's PDB entry; returns the files written or rewritten. ``optional``: an entry that cannot be
    had is reported on stderr (with the tasks that lack it) and skipped, instead of ending the run."""
    written, unavailable = [], {}
    with tempfile.TemporaryDirectory() as download_dir:
        for task, pdb_id, models in ENTRIES:
            path = TASKS / task / "environment" / "inputs" / f"{pdb_id}.pdb"
            try:
                if pdb_id in unavailable:  # one failed download per entry, however many tasks use it
                    raise unavailable[pdb_id]
                raw = raw_entry(pdb_id, Path(structures_dir), Path(download_dir))
            except EntryUnavailable as error:
                if not optional:
                    raise
                unavailable[pdb_id] = error
                print(f"{error}; task {task} lacks it (its container tests need it)", file=sys.stderr)
                continue
            text = task_entry(raw, models)
            if not path.is_file() or path.read_text() != text:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text)
                written.append(path)
    return written


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--structures-dir", type=Path, default=DEFAULT_STRUCTURES)
    parser.add_argument("--optional", action="store_true", help="report and skip entries that cannot be had")
    args = parser.parse_args()
    changed = write_entries(args.structures_dir, args.optional)
    ready = sum((TASKS / task / "environment" / "inputs" / f"{pdb_id}.pdb").is_file() for task, pdb_id, _ in ENTRIES)
    print(f"task_structures: {ready} of {len(ENTRIES)} task PDB entries ready ({len(changed)} written)")
