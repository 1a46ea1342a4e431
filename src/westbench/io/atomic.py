"""Write a file atomically: a temporary beside it, renamed over it only once complete.

The one owner of this policy: a failed write (a full disk, a quota, a crash) never
leaves a truncated file under the final name, and the previous file, if any, stays
intact. A failed write raises :class:`AtomicWriteError`, naming the file and saying
what survives, so that a full disk explains itself in the job's log.

Examples
--------
>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "out.bin")
>>> write_bytes(path, b"first"); write_bytes(path, b"second")
>>> open(path, "rb").read(), sorted(os.listdir(os.path.dirname(path)))
(b'second', ['out.bin'])
>>> with atomic_path(path) as temporary:
...     _ = temporary.write_bytes(b"third")
>>> open(path, "rb").read()
b'third'
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from westbench.errors import WestbenchError


class AtomicWriteError(WestbenchError, OSError):
    """A file could not be written; the message names it and what survives (still an OSError)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else super().__str__()


def temporary_path(path: str | Path, suffix: str = "") -> Path:
    """The hidden temporary beside ``path`` (``.<name>.part<suffix>``) that a write goes to first."""
    path = Path(path)
    return path.with_name(f".{path.name}.part{suffix}")


@contextmanager
def atomic_path(path: str | Path, suffix: str = "", survives: str | None = None) -> Iterator[Path]:
    """Yield a temporary path to write; on success it replaces ``path``, on failure it is removed.

    Parameters
    ----------
    path : str or Path
        The final file; its folder is created.
    suffix : str
        Ending the temporary needs (e.g. ``".npz"``: :func:`numpy.savez` appends it otherwise).
    survives : str, optional
        What is intact after a failure, for the message; by default the previous ``path``
        (or that none was written).

    Raises
    ------
    AtomicWriteError
        For an :class:`OSError` while writing or renaming, naming ``path``. Other errors
        (e.g. a ``ValueError`` of the writer) pass unchanged; the temporary is removed either way.
    """
    path = Path(path)
    temporary = temporary_path(path, suffix)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        yield temporary
        os.replace(temporary, path)
    except OSError as exc:
        if survives is None:
            survives = f"the previous {path.name} is intact" if path.exists() else f"no {path.name} was written"
        error = AtomicWriteError(
            f"could not write {path} ({exc.strerror or exc}). "
            f"{survives[:1].upper()}{survives[1:]}: free space and rerun."
        )
        error.errno, error.filename = exc.errno, str(path)
        raise error from exc
    finally:
        temporary.unlink(missing_ok=True)


def write_bytes(path: str | Path, data: bytes, survives: str | None = None) -> None:
    """Write ``data`` to ``path`` atomically, flushed to disk before the rename."""
    with atomic_path(path, survives=survives) as temporary:
        with open(temporary, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())


def write_text(path: str | Path, text: str, survives: str | None = None) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically."""
    write_bytes(path, text.encode(), survives)


def savez(path: str | Path, survives: str | None = None, **arrays) -> None:
    """:func:`numpy.savez` of ``arrays`` to ``path`` atomically."""
    import numpy as np

    with atomic_path(path, ".npz", survives) as temporary:
        np.savez(temporary, **arrays)
