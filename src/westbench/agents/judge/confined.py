"""Reading files an agent made without reading anything outside the folder they are in.

An agent controls what it leaves in its log folder and in the files Harbor copies out of its container
(``docker cp`` keeps links). So every read here is confined (the file checks are
:mod:`westbench.agents.safe_files`', shared with every other host read of agent-made files):

* Every folder below the root is opened by name relative to its parent's descriptor with
  ``O_NOFOLLOW | O_DIRECTORY``, so no path component can be a link (no race between a check and the open).
* A file is read only if it is a regular file with one name (``st_nlink == 1``: a hard link to a file
  outside cannot be told apart from the file itself) on the root's filesystem. The check is made on a
  descriptor that opens nothing (``O_PATH | O_NOFOLLOW``), whose inode is then reopened for reading, and
  the read descriptor is checked again with ``fstat`` (same inode, still regular): a swap after the
  check is caught before any fifo, device or link is opened (elsewhere than Linux: ``O_NOFOLLOW |
  O_NONBLOCK`` and the ``fstat`` after). Symbolic links (chains included: none is followed), fifos, sockets and
  device nodes are never opened: they are :class:`Unread`, with the reason. A folder where a file must be
  (``files_only`` of :func:`read_tree`: Harbor's trajectory) is not entered: ``folder``.
* At most ``limit_bytes`` are read of a file; a larger file is not read (``too-large``). A file with a
  NUL byte is ``binary`` and one that is not UTF-8 is ``not-utf8``: described, never pasted.
* Names are the folder entries' own (odd bytes kept as Python's surrogate escapes, so two names never
  collide); a relative name with ``..``, ``.`` or an absolute path is refused (``outside``).

Examples
--------
>>> import os, tempfile
>>> root = Path(tempfile.mkdtemp())
>>> _ = (root / "log.txt").write_text("ran pdbfixer")
>>> os.symlink("/etc/hostname", root / "host.txt")
>>> _ = (root / "data.bin").write_bytes(b"\\x00\\x01")
>>> listing = read_tree(root, "", limit_bytes=1000)
>>> listing.parts["log.txt"], listing.parts["host.txt"].kind, listing.parts["data.bin"].describe()
('ran pdbfixer', 'link', 'binary file: not shown (2 bytes)')
>>> read_file(root, "../etc/passwd", limit_bytes=1000).kind
'outside'
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from westbench.agents.safe_files import REFUSALS, RefusedFile, read_regular_at, text_of

DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
#: Each reason a file is not shown, worded for the judge (neutral: no agent text in it): the refusals of
#: :mod:`westbench.agents.safe_files` and the judge's own limits.
REASONS = {
    **REFUSALS,
    "over-budget": "over the judge's evidence budget: not shown",
    "too-many": "more entries than the judge lists: not read",
    "too-deep": "folders nested too deep: not read",
}
#: The most entries listed of one tree, and the deepest folder read.
MAX_ENTRIES = 10_000
MAX_DEPTH = 32


@dataclass(frozen=True)
class Unread:
    """A file the judge is told about but not shown: ``kind`` (a key of :data:`REASONS`) and its size."""

    kind: str
    size: int | None = None

    def describe(self) -> str:
        """The reason in words, with the size when known.

        >>> Unread("too-large", 10**9).describe()
        'over the per-file read limit: not read (1000000000 bytes)'
        """
        reason = REASONS[self.kind]
        return reason if self.size is None else f"{reason} ({self.size} bytes)"


@dataclass
class Listing:
    """What :func:`read_tree` found: ``parts`` (relative name to text or :class:`Unread`), in order."""

    parts: dict[str, str | Unread] = field(default_factory=dict)
    omitted: int = 0  # set when the tree has more than MAX_ENTRIES entries: the rest is not listed
    listed: int = 0


def safe_parts(relative: str) -> tuple[str, ...] | None:
    """The components of a relative name, or None if it could leave its folder.

    >>> safe_parts("sub/report.md"), safe_parts("../x"), safe_parts("/etc/passwd"), safe_parts("a/./b")
    (('sub', 'report.md'), None, None, None)
    """
    parts = tuple(relative.split("/")) if relative else ()
    if relative.startswith("/") or any(part in ("", ".", "..") or "\0" in part for part in parts):
        return None
    return parts


@contextmanager
def open_folder(root: str | Path, relative_parts: tuple[str, ...] = ()):
    """A descriptor of ``root``/``relative_parts``, every component below ``root`` opened without following links.

    Yields None if a component is missing, a link or not a folder. ``root`` itself is trusted (the trial
    folder the workflow made); everything below it is not.
    """
    fds = []
    try:
        try:
            fds.append(os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC))
            for part in relative_parts:
                fds.append(os.open(part, DIR_FLAGS, dir_fd=fds[-1]))
        except OSError:
            yield None
            return
        yield fds[-1]
    finally:
        for fd in fds:
            os.close(fd)


def read_at(dir_fd: int, name: str, limit_bytes: int, device: int) -> str | Unread:
    """The text of the regular file ``name`` in the folder ``dir_fd``, or why it is not read (module docstring):
    :func:`westbench.agents.safe_files.read_regular_at`, its refusal as an :class:`Unread`."""
    try:
        return text_of(read_regular_at(dir_fd, name, limit_bytes, device))
    except RefusedFile as exc:
        return Unread(exc.kind, exc.size)


def read_file(root: str | Path, relative: str, limit_bytes: int, device: int | None = None) -> str | Unread:
    """The text of ``root``/``relative`` read confined to ``root`` (module docstring), or why it is not.

    ``device``: the filesystem the file must be on (default: its folder's).
    """
    parts = safe_parts(relative)
    if not parts:
        return Unread("outside")
    with open_folder(root, parts[:-1]) as dir_fd:
        if dir_fd is None:
            return Unread("not-produced")
        return read_at(dir_fd, parts[-1], limit_bytes, os.fstat(dir_fd).st_dev if device is None else device)


def read_tree(
    root: str | Path,
    relative: str,
    limit_bytes: int,
    total_bytes: int | None = None,
    first=lambda name: False,
    files_only=lambda name: False,
) -> Listing:
    """Every file under ``root``/``relative``, confined to it (module docstring), by name relative to ``root``.

    Files for which ``first(name)`` is true are read first, then the rest by name; a folder for which
    ``files_only(name)`` is true is not entered but listed by its name as ``folder``. Once ``total_bytes``
    have been read, later files are not read (``over-budget``). Links to folders are listed as links,
    never entered; folders on another filesystem or deeper than :data:`MAX_DEPTH` are not entered; past
    :data:`MAX_ENTRIES` entries nothing more is listed (``omitted`` counts them).
    """
    listing = Listing()
    parts = safe_parts(relative) if relative else ()
    if parts is None:
        return listing
    found: list[str] = []
    with open_folder(root, parts) as top:
        if top is None:
            return listing
        device = os.fstat(top).st_dev
        _list(top, relative, device, 0, found, listing, files_only)
    found.sort(key=lambda name: (not first(name), name))
    total = 0
    for name in found:
        if total_bytes is not None and total >= total_bytes:
            listing.parts[name] = Unread("over-budget")
            continue
        listing.parts[name] = text = read_file(root, name, limit_bytes, device)
        total += len(text.encode("utf-8", "surrogateescape")) if isinstance(text, str) else 0
    return listing


def _list(dir_fd: int, prefix: str, device: int, depth: int, found: list, listing: Listing, files_only) -> None:
    """Add the file names under ``dir_fd`` to ``found``, folders entered one descriptor at a time.

    Every entry (folders too) counts towards :data:`MAX_ENTRIES`; past it the listing stops (``omitted``).
    """
    entries = []
    with os.scandir(dir_fd) as scan:
        for entry in scan:
            listing.listed += 1
            if listing.listed > MAX_ENTRIES:
                listing.omitted += 1
                return
            entries.append(entry)
    for entry in sorted(entries, key=lambda e: e.name):
        name = f"{prefix}/{entry.name}" if prefix else entry.name
        try:
            is_folder = entry.is_dir(follow_symlinks=False)
        except OSError:
            is_folder = False
        if not is_folder:
            found.append(name)
            continue
        if files_only(name):  # a folder where a file must be: said, not entered
            listing.parts[name] = Unread("folder")
            continue
        if depth + 1 > MAX_DEPTH:
            listing.parts[name + "/"] = Unread("too-deep")
            continue
        try:
            child = os.open(entry.name, DIR_FLAGS, dir_fd=dir_fd)
        except OSError:
            listing.parts[name + "/"] = Unread("changed")
            continue
        try:
            if os.fstat(child).st_dev != device:
                listing.parts[name + "/"] = Unread("other-filesystem")
                continue
            _list(child, name, device, depth + 1, found, listing, files_only)
        finally:
            os.close(child)
