"""westbench's no-follow file helpers for Harbor's interpreter: ``src/westbench/agents/safe_files.py`` itself,
and the writing of a container's tar stream on the host with them (standard library only).

Harbor runs in its own environment (``.venv-harbor``) without westbench installed, so this module loads that
one file from the checkout this folder is in: the judge and Harbor's plugin share one implementation of
"never follow, never open a special file, never write through a link".

Examples
--------
>>> import io, tempfile
>>> stream = io.BytesIO()
>>> with tarfile.open(fileobj=stream, mode="w") as out:
...     folder = tarfile.TarInfo("agent"); folder.type = tarfile.DIRTYPE; out.addfile(folder)
...     link = tarfile.TarInfo("agent/trajectory.json"); link.type = tarfile.SYMTYPE; link.linkname = "/etc/passwd"
...     out.addfile(link)
...     log = tarfile.TarInfo("agent/log.txt"); log.size = 2; out.addfile(log, io.BytesIO(b"ok"))
>>> _ = stream.seek(0)
>>> target = Path(tempfile.mkdtemp()) / "agent"
>>> place_stream(stream, target)
['trajectory.json: symbolic link: not followed']
>>> sorted(path.name for path in target.iterdir()), (target / "log.txt").read_text()
(['log.txt'], 'ok')
"""

from __future__ import annotations

import importlib.util
import sys
import tarfile
from pathlib import Path

SOURCE = Path(__file__).resolve().parents[1] / "src" / "westbench" / "agents" / "safe_files.py"

_spec = importlib.util.spec_from_file_location("westbench_safe_files_impl", SOURCE)
_module = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = _module
_spec.loader.exec_module(_module)

REFUSALS = _module.REFUSALS
RefusedFile = _module.RefusedFile
open_folders = _module.open_folders
read_regular_text = _module.read_regular_text
remove_unsafe = _module.remove_unsafe
write_no_follow = _module.write_no_follow


def place_member(
    tar: tarfile.TarFile, member: tarfile.TarInfo, target: Path, relative: str, replace: bool = False, handle=None
) -> None:
    """Write a regular file or folder of a container's tar stream at ``target``/``relative`` on the host.

    Nothing is followed: ``target``'s folder is the host's own, everything below it is opened ``O_NOFOLLOW``;
    an entry already there is kept (:class:`RefusedFile` ``exists``: the host wrote it first), or with
    ``replace`` replaced (a link by the file, never written through). Links, hard links, fifos and devices of
    the stream, and names leaving ``target``, are refused, never written. ``handle``: the member's reader
    when the caller has opened it already (a stream is read once).
    """
    parts = tuple(part for part in relative.split("/") if part)
    if not (member.isreg() or member.isdir()):
        raise RefusedFile("link" if member.issym() else "hard-link" if member.islnk() else "special", relative)
    if not parts or any(part in (".", "..") for part in parts):
        raise RefusedFile("outside", relative)
    if member.isdir():
        with open_folders(target.parent, (target.name, *parts), create=True):
            return
    data = handle if handle is not None else tar.extractfile(member)
    write_no_follow(target.joinpath(*parts), data, target.parent, replace, mode=member.mode)


def place_stream(stream, target: Path, name: str | None = None) -> list[str]:
    """A container's tar stream (``docker cp container:folder -``) written under ``target`` by :func:`place_member`:
    the stream's first path component is the folder itself. With ``name``, the stream is one file
    (``docker cp container:file -``) written as ``target``/``name``, replacing the entry there. Then any link,
    special file or file with two names found in ``target`` (none is made here; one could only have been
    planted) is removed, so no later host write by name lands outside it. Returns the entries not written or
    removed, with why (a :class:`tarfile.ReadError` when the stream is empty)."""
    skipped = []
    with tarfile.open(fileobj=stream, mode="r|") as tar:
        for member in tar:
            parts = member.name.removeprefix("./").strip("/").split("/")
            relative = name if name is not None else "/".join(parts[1:])
            if not relative or (name is not None and len(parts) > 1):
                continue
            try:
                place_member(tar, member, target, relative, replace=name is not None)
            except RefusedFile as exc:
                skipped.append(str(exc))
    return skipped + [
        f"{removed}: removed (a link, special file or hard link on the host)" for removed in remove_unsafe(target)
    ]
