"""Acquire one protein's input structure from its configured source.

Examples
--------
>>> import tempfile, os
>>> from westbench.config import ProteinSpec
>>> spec = ProteinSpec("ala3", "Ala3", None, "AAA", None, None, "sequence", None)
>>> out = os.path.join(tempfile.mkdtemp(), "structure.pdb")
>>> acquire_structure(spec, out)["observed_sequences"]
{'A': 'AAA'}
"""

from __future__ import annotations

import hashlib
import logging
import shutil
from pathlib import Path
from typing import Mapping

from openmm import app

from westbench.config import ProteinSpec
from westbench.errors import ConfigError, SequenceMismatchError, StructureError
from westbench.structures.inspect import read_structure, selected_sequences
from westbench.structures.peptide import write_extended_peptide
from westbench.structures.rcsb import download_pdb

log = logging.getLogger(__name__)

LOCAL_NAMES = ("{ID}.pdb", "{id}.pdb", "pdb{id}.ent", "{ID}.cif", "{id}.cif")


def _is_subsequence(short: str, long: str) -> bool:
    letters = iter(long)
    return all(letter in letters for letter in short)


def check_sequence(spec: ProteinSpec, path: Path, observed: Mapping[str, str]) -> None:
    """Compare the sequences in a structure with the configured ones.

    Residues may be missing from the file (PDBFixer rebuilds them, and the
    preparation step checks the completed sequence exactly), but every residue
    present must appear in order in the configured sequence.

    Raises
    ------
    SequenceMismatchError
    """
    expected = spec.chain_sequences
    got = list(observed.values())
    problem = None
    if len(got) != len(expected):
        problem = (
            f"the selection holds {len(got)} protein chain(s) {list(observed)}, the config expects {len(expected)}"
        )
    else:
        for (chain, seq), want in zip(observed.items(), expected):
            if not _is_subsequence(seq, want):
                problem = f"chain {chain} reads {seq}, the config expects {want}"
                break
    if problem:
        raise SequenceMismatchError(
            f"protein '{spec.id}': sequence mismatch in {path}: {problem}. Either fix `sequence` "
            f"(or `chains`/`residues`) in the config entry of '{spec.id}', or use a structure of the "
            "simulated sequence (the fast-folder variants differ from some wild-type entries)."
        )


def _copy_as_pdb(source: Path, destination: Path) -> None:
    """Copy a PDB file verbatim (keeping SEQRES for PDBFixer); convert PDBx/mmCIF to PDB."""
    if source.suffix.lower() in (".cif", ".mmcif"):
        fixer = read_structure(source)
        with open(destination, "w") as handle:
            for index, sequence in enumerate(fixer.sequences):
                names = list(sequence.residues)
                for line, start in enumerate(range(0, len(names), 13), start=1):
                    chunk = " ".join(f"{n:>3}" for n in names[start : start + 13])
                    handle.write(f"SEQRES {line:>3} {sequence.chainId:>1} {len(names):>4}  {chunk}\n")
            app.PDBFile.writeFile(fixer.topology, fixer.positions, handle, keepIds=True)
    else:
        shutil.copyfile(source, destination)


def _find_local(pdb_id: str, folders: list[Path]) -> Path | None:
    for folder in folders:
        for pattern in LOCAL_NAMES:
            candidate = folder / pattern.format(ID=pdb_id.upper(), id=pdb_id.lower())
            if candidate.is_file():
                return candidate
    return None


def acquire_structure(
    spec: ProteinSpec,
    output: str | Path,
    structures_dir: str | Path | None = None,
    cache_dir: str | Path = "resources/structures",
    download: Mapping | None = None,
) -> dict:
    """Write the input structure of ``spec`` to ``output`` (PDB) and return its provenance.

    Parameters
    ----------
    spec : ProteinSpec
    output : path
        The PDB file to write.
    structures_dir : path, optional
        Folder looked in first for ``<PDBID>.pdb`` (source rcsb).
    cache_dir : path
        Where downloads are kept between runs.
    download : mapping, optional
        ``url_template``, ``timeout_s``, ``retries``, ``backoff_s`` (config key ``download``).

    Returns
    -------
    dict
        Source, origin (file or URL), SHA-256, observed and expected sequences.
    """
    output = Path(output)
    output.parent.mkdir(parents=True, exist_ok=True)
    record: dict = {"protein": spec.id, "source": spec.source, "pdb_id": spec.pdb_id}
    if spec.source == "sequence":
        if len(spec.chain_sequences) != 1:
            raise ConfigError(f"protein '{spec.id}': source 'sequence' builds one chain; its sequence has several.")
        write_extended_peptide(spec.sequence, output)
        record["origin"] = "built from sequence (ideal extended backbone)"
    elif spec.source == "file":
        source = Path(spec.path)
        if not source.is_file():
            raise StructureError(
                f"protein '{spec.id}': structure file {source} does not exist; fix `path` in its config "
                "entry (relative paths are read from the working directory)."
            )
        read_structure(source)
        _copy_as_pdb(source, output)
        record["origin"] = str(source)
    elif spec.source == "rcsb":
        folders = [Path(structures_dir)] if structures_dir else []
        local = _find_local(spec.pdb_id, folders + [Path(cache_dir)])
        if local is None:
            local = Path(cache_dir) / f"{spec.pdb_id}.pdb"
            options = dict(download or {})
            record["origin"] = download_pdb(spec.pdb_id, local, validate=read_structure, **options)
        else:
            log.info("using local file %s for %s", local, spec.pdb_id)
            record["origin"] = str(local)
        read_structure(local)
        _copy_as_pdb(local, output)
    else:  # the schema rules this out; kept for library callers
        raise ConfigError(f"protein '{spec.id}': unknown structure source '{spec.source}'.")

    fixer = read_structure(output)
    try:
        observed = selected_sequences(fixer.topology, spec.chains, spec.residues, path=record["origin"])
    except StructureError as exc:
        raise StructureError(f"protein '{spec.id}': {exc}") from exc
    check_sequence(spec, Path(record["origin"]), observed)
    record.update(
        sha256=hashlib.sha256(output.read_bytes()).hexdigest(),
        observed_sequences=observed,
        expected_sequence=spec.sequence,
        complete=list(observed.values()) == list(spec.chain_sequences),
    )
    log.info("protein %s: structure from %s, chains %s", spec.id, record["origin"], observed)
    return record
