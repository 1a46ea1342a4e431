"""Reading and writing where an agent can write, following nothing it made (standard library only).

The agent writes its container's logs, artifacts and changed files, and Harbor copies them onto the host. Every
host read or write of such a path goes through here (the judge through :mod:`~westbench.agents.judge.confined`,
Harbor's plugin through ``harbor_plugins/westbench_safe_files.py``, which loads this file into Harbor's interpreter):

* **Folders** below a trusted root: each component opened relative to its parent's descriptor with
  ``O_NOFOLLOW | O_DIRECTORY`` (:func:`open_folders`), so none can be a link.
* **Reads** (:func:`read_regular_at`, :func:`read_regular_text`): ``lstat`` first; refused unless a regular file
  with one name (``st_nlink == 1``: a hard link cannot be told from the file it shares), so no fifo, socket,
  device, folder or link is ever opened; then opened ``O_NOFOLLOW | O_NONBLOCK`` (on Linux ``O_PATH`` first,
  which opens nothing) and checked again on the descriptor (same inode, still regular; else ``changed``). At most
  ``max_bytes`` are read; text is UTF-8 without NUL bytes.
* **Writes** (:func:`write_no_follow`): a new file made ``O_CREAT | O_EXCL | O_NOFOLLOW`` beside the name, renamed
  over it: a rename replaces a link, hard link or fifo, never writes through it; a folder there is refused.
  Without ``replace`` nothing is replaced (a download keeps what the host wrote first).

A refusal is a :class:`RefusedFile` naming the file and what is wrong (``kind``, a key of :data:`REFUSALS`).

Examples
--------
>>> import tempfile
>>> root = Path(tempfile.mkdtemp())
>>> os.symlink("/etc/hostname", root / "host.txt")
>>> read_regular_text(root / "host.txt", 100)
Traceback (most recent call last):
...
westbench.agents.safe_files.RefusedFile: host.txt: symbolic link: not followed
>>> write_no_follow(root / "host.txt", b"mine")  # the link is replaced, /etc/hostname untouched
>>> read_regular_text(root / "host.txt", 100)
'mine'
"""

from __future__ import annotations

import os
import secrets
import stat
from contextlib import contextmanager
from pathlib import Path

#: Each refusal, worded for a reader (neutral: no agent text in it).
REFUSALS = {
    "link": "symbolic link: not followed",
    "hard-link": "hard link (a file with more than one name): not read",
    "special": "not a regular file (fifo, socket or device): not read",
    "folder": "a folder, not a file: not read",
    "other-filesystem": "on another filesystem: not read",
    "binary": "binary file: not shown",
    "not-utf8": "not UTF-8 text: not shown",
    "too-large": "over the per-file read limit: not read",
    "not-produced": "not produced",
    "outside": "path outside its folder: not read",
    "changed": "changed while being read: not read",
    "unreadable": "unreadable",
    "exists": "already there: kept, not replaced",
}
DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
CREATE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
_PROC_FD = "/proc/self/fd"
SNIFF_BYTES = 65536


class RefusedFile(Exception):
    """A file not read or written: ``kind`` (a key of :data:`REFUSALS`), its ``name`` and ``size`` when known.

    >>> str(RefusedFile("hard-link", "agent/trajectory.json", 12))
    'agent/trajectory.json: hard link (a file with more than one name): not read (12 bytes)'
    """

    def __init__(self, kind: str, name: str = "", size: int | None = None):
        self.kind, self.name, self.size = kind, name, size
        reason = REFUSALS[kind] if size is None else f"{REFUSALS[kind]} ({size} bytes)"
        super().__init__(f"{name}: {reason}" if name else reason)


def refusal(info: os.stat_result, device: int | None = None) -> str | None:
    """Why an entry (its ``lstat``) is not read as a file, or None: a link, not regular, a hard link, elsewhere.

    >>> refusal(os.stat("/")), refusal(os.lstat(__file__))
    ('folder', None)
    """
    if stat.S_ISLNK(info.st_mode):
        return "link"
    if stat.S_ISDIR(info.st_mode):
        return "folder"
    if not stat.S_ISREG(info.st_mode):
        return "special"
    if info.st_nlink > 1:
        return "hard-link"
    if device is not None and info.st_dev != device:
        return "other-filesystem"
    return None


def _open_regular(dir_fd: int, name: str, device: int | None) -> tuple[int, os.stat_result]:
    """A read descriptor of the regular file ``name`` and its ``fstat``, nothing else ever opened."""
    try:
        before = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except OSError as exc:
        raise RefusedFile("not-produced" if isinstance(exc, FileNotFoundError) else "unreadable", name) from None
    kind = refusal(before, device)
    if kind:
        raise RefusedFile(kind, name, before.st_size if kind in ("hard-link", "other-filesystem") else None)
    fd = _open_checked(dir_fd, name, before, device)
    return fd, os.fstat(fd)


def _open_checked(dir_fd: int, name: str, before: os.stat_result, device: int | None) -> int:
    """A read descriptor of ``name`` if it is still the checked regular file ``before``, else ``changed``."""

    def same(found):
        return (found.st_dev, found.st_ino) == (before.st_dev, before.st_ino) and not refusal(found, device)

    fd = None
    try:
        if hasattr(os, "O_PATH") and os.path.isdir(_PROC_FD):  # O_PATH opens nothing: no fifo blocks, no driver runs
            path_fd = os.open(name, os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dir_fd)
            try:
                if same(os.fstat(path_fd)):
                    fd = os.open(f"{_PROC_FD}/{path_fd}", READ_FLAGS & ~os.O_NOFOLLOW)
            finally:
                os.close(path_fd)
        else:
            fd = os.open(name, READ_FLAGS, dir_fd=dir_fd)
    except OSError:
        pass  # a link or special file swapped in after the check (ELOOP, ENXIO, ...)
    if fd is not None and same(os.fstat(fd)):
        return fd
    if fd is not None:
        os.close(fd)
    raise RefusedFile("changed", name)


def read_regular_at(dir_fd: int, name: str, max_bytes: int, device: int | None = None) -> bytes:
    """The bytes of the regular file ``name`` in ``dir_fd`` (module docstring), at most ``max_bytes``.

    ``device``: the filesystem it must be on. A larger file is ``too-large`` (``binary`` when its first bytes
    hold a NUL); only its first :data:`SNIFF_BYTES` are read (a sparse terabyte costs nothing).
    """
    fd, opened = _open_regular(dir_fd, name, device)
    try:
        data = _read_at_most(fd, SNIFF_BYTES if opened.st_size > max_bytes else max_bytes + 1)
    except OSError:
        raise RefusedFile("unreadable", name, opened.st_size) from None
    finally:
        os.close(fd)
    size = max(opened.st_size, len(data))
    if size > max_bytes:
        raise RefusedFile("binary" if b"\0" in data[:SNIFF_BYTES] else "too-large", name, size)
    return data


def text_of(data: bytes, name: str = "") -> str:
    """``data`` as text: UTF-8 without NUL bytes, else :class:`RefusedFile` (``binary``, ``not-utf8``).

    >>> text_of(b"ok"), str(RefusedFile("not-utf8", "a.txt", 8))
    ('ok', 'a.txt: not UTF-8 text: not shown (8 bytes)')
    """
    if b"\0" in data:
        raise RefusedFile("binary", name, len(data))
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise RefusedFile("not-utf8", name, len(data)) from None


def _read_at_most(fd: int, count: int) -> bytes:
    chunks, left = [], count
    while left > 0:
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _parts(path: str | Path, root: str | Path | None) -> tuple[Path, tuple[str, ...]]:
    """(trusted folder, components below it) of ``path``: below ``root`` when given, else below its parent."""
    path = Path(path)
    if root is None:
        return path.parent, (path.name,)
    parts = path.relative_to(root).parts if path.is_relative_to(root) else () if path.is_absolute() else path.parts
    if not parts or any(part in ("", ".", "..") for part in parts):
        raise RefusedFile("outside", str(path))
    return Path(root), parts


@contextmanager
def open_folders(root: str | Path, parts: tuple[str, ...] = (), create: bool = False):
    """A descriptor of ``root``/``parts``, every component below ``root`` opened without following a link.

    ``root`` is trusted (a folder the host made); below it a link or a non-folder is a :class:`RefusedFile`
    and a missing component is ``not-produced``, or made (``create``).
    """
    try:
        fds = [os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)]
    except FileNotFoundError:
        raise RefusedFile("not-produced", str(root)) from None
    try:
        for index, part in enumerate(parts):
            name = "/".join(parts[: index + 1])
            if create:
                try:
                    os.mkdir(part, 0o755, dir_fd=fds[-1])
                except FileExistsError:
                    pass
            try:
                fds.append(os.open(part, DIR_FLAGS, dir_fd=fds[-1]))
            except FileNotFoundError:
                raise RefusedFile("not-produced", name) from None
            except OSError:
                raise RefusedFile(_kind_at(fds[-1], part), name) from None
        yield fds[-1]
    finally:
        for fd in fds:
            os.close(fd)


def _kind_at(dir_fd: int, name: str) -> str:
    """What the entry ``name`` that did not open as a folder is: a link, a special file, else gone or changed."""
    try:
        kind = refusal(os.stat(name, dir_fd=dir_fd, follow_symlinks=False))
    except OSError:
        return "changed"
    return kind if kind in ("link", "special") else "changed"


def read_regular_text(path: str | Path, max_bytes: int, root: str | Path | None = None) -> str:
    """The UTF-8 text of the regular file ``path`` (module docstring), or :class:`RefusedFile`.

    ``root``: a trusted folder above ``path``; every component between them is opened without following a
    link (default: ``path``'s own folder is trusted, only its last component is not). The refusal names
    ``path`` relative to ``root`` (default: its name).
    """
    top, parts = _parts(path, root)
    name = "/".join(parts)
    try:
        with open_folders(top, parts[:-1]) as dir_fd:
            return text_of(read_regular_at(dir_fd, parts[-1], max_bytes), name)
    except RefusedFile as exc:
        raise RefusedFile(exc.kind, name, exc.size) from None


def _write_new(dir_fd: int, name: str, data, mode: int) -> None:
    """Write ``data`` (bytes or a readable binary file) into a new file ``name`` of ``dir_fd``."""
    fd = os.open(name, CREATE_FLAGS, mode & 0o755, dir_fd=dir_fd)  # no set-id bits, no write for others
    try:
        with os.fdopen(fd, "wb", closefd=False) as handle:
            if isinstance(data, (bytes, bytearray)):
                handle.write(data)
            else:
                while chunk := data.read(1 << 20):
                    handle.write(chunk)
    finally:
        os.close(fd)


def write_no_follow(path: str | Path, data, root: str | Path | None = None, replace: bool = True, mode: int = 0o644):
    """Write ``data`` (bytes or a binary file) to ``path``, replacing the entry there, never writing through it.

    ``root`` as for :func:`read_regular_text`; folders are made on the way, none followed; ``mode`` less set-id
    bits. A folder at ``path`` is a :class:`RefusedFile` (``folder``); without ``replace`` any entry is kept.
    """
    top, parts = _parts(path, root)
    with open_folders(top, parts[:-1], create=True) as dir_fd:
        partial = f".{parts[-1][:64]}.{secrets.token_hex(8)}.partial" if replace else parts[-1]  # unguessable
        try:
            _write_new(dir_fd, partial, data, mode)
        except FileExistsError:
            raise RefusedFile("exists", "/".join(parts)) from None
        if not replace:
            return
        try:
            os.replace(partial, parts[-1], src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        except OSError as exc:
            os.unlink(partial, dir_fd=dir_fd)
            if isinstance(exc, IsADirectoryError):
                raise RefusedFile("folder", "/".join(parts)) from None
            raise


def remove_unsafe(root: str | Path) -> list[str]:
    """Remove every link, special file and file with more than one name below ``root``, none followed
    (:func:`os.fwalk`), so no later write by name lands outside; the names removed. The other names of a
    hard-linked file keep their content."""
    removed = []
    for folder, folders, names, dir_fd in os.fwalk(root, follow_symlinks=False):
        for name in names + folders:  # a link to a folder is listed among the folders (never entered)
            try:
                info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
                if stat.S_ISDIR(info.st_mode) or stat.S_ISREG(info.st_mode) and info.st_nlink == 1:
                    continue
                os.unlink(name, dir_fd=dir_fd)
            except FileNotFoundError:
                continue
            removed.append(os.path.relpath(os.path.join(folder, name), root))
    return sorted(removed)
