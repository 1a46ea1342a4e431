"""No host process follows a link the agent made: every path the host reads or writes in an agent-writable folder.

Issue 52 (item 5). Each path westbench (the judge, the trajectory reader, the failure analysis, the trial record)
reads, and each path Harbor's plugin writes (downloads of the agent's and the verifier's logs, the artifacts, the
changed files, their manifest), gets a planted symbolic link and a planted hard link to a host file: the host
file is never read (its canary reaches no result) and never changed.
"""

import importlib.util
import io
import json
import os
import socket
import tarfile
import threading

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from westbench.agents.atif import read_trajectory
from westbench.agents.failures.breaches import read_checks
from westbench.agents.harbor import failed_checks, verifier_detail, verifier_elapsed
from westbench.agents.judge import deliverable_texts, trajectory_parts
from westbench.agents.safe_files import (
    RefusedFile,
    open_folders,
    read_regular_text,
    remove_unsafe,
    write_no_follow,
)

from ...conftest import REPO

CANARY = "HOST-CANARY-3141"
CHECKS = {"checks": [], "elapsed_s": 1.5}


def plugin():
    """harbor_plugins/westbench_safe_files.py as Harbor loads it (it loads src/westbench/agents/safe_files.py)."""
    spec = importlib.util.spec_from_file_location(
        "westbench_safe_files", REPO / "harbor_plugins" / "westbench_safe_files.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def host(tmp_path):
    """A host file outside the trial (same filesystem, so a hard link to it can be made) and a trial folder."""
    (tmp_path / "host").mkdir()
    secret = tmp_path / "host" / "secret.txt"
    secret.write_text(json.dumps({"elapsed_s": 99.0, "note": CANARY, "steps": [{"message": CANARY}]}))
    trial = tmp_path / "trial"
    for folder in ("agent/episode-0", "verifier", "artifacts/app/output", "artifacts/.westbench-changes/app"):
        (trial / folder).mkdir(parents=True)
    return secret, trial


def plant(kind, path, secret):
    if path.exists() or path.is_symlink():
        path.unlink()
    (os.symlink if kind == "symlink" else os.link)(secret, path)


#: Each host read of an agent-writable path: (the path, what reads it and returns what was read).
READS = {
    "agent/trajectory.json (judge)": ("agent/trajectory.json", lambda t: repr(trajectory_parts(t, 10_000))),
    "agent/trajectory.json (trajectory reader)": ("agent/trajectory.json", lambda t: repr(read_trajectory(t))),
    "agent/episode-0/response.txt (judge)": ("agent/episode-0/response.txt", lambda t: repr(trajectory_parts(t))),
    "artifacts/app/output (judge)": (
        "artifacts/app/output/report.txt",
        lambda t: repr(deliverable_texts(t, ["report.txt"])),
    ),
    "artifacts/.westbench-changes (judge)": (
        "artifacts/.westbench-changes/app/report.txt",
        lambda t: repr(deliverable_texts(t, ["report.txt"], roots=("artifacts/.westbench-changes/app",))),
    ),
    "verifier/checks.json (trial record)": (
        "verifier/checks.json",
        lambda t: repr((verifier_detail(t), verifier_elapsed(verifier_detail(t)), failed_checks(verifier_detail(t)))),
    ),
    "verifier/checks.json (failure analysis)": ("verifier/checks.json", lambda t: repr(read_checks(t))),
}


@pytest.mark.parametrize("kind", ["symlink", "hard link"])
@pytest.mark.parametrize("read", list(READS))
def test_no_host_read_follows_a_planted_link(read, kind, host):
    secret, trial = host
    relative, reader = READS[read]
    (trial / relative).write_text(json.dumps(CHECKS))
    honest = reader(trial)
    plant(kind, trial / relative, secret)
    before = secret.read_text()
    found = reader(trial)
    assert CANARY not in found and "99.0" not in found  # the host file was not read
    assert found != honest or "None" in found  # and the planted entry was not taken for the honest file
    assert secret.read_text() == before


def stream(*members):
    """A tar stream as ``docker cp container:folder -`` sends it: (name, bytes, or a tar type for links/fifos)."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w") as tar:
        for name, data in members:
            info = tarfile.TarInfo(name)
            if data not in (tarfile.SYMTYPE, tarfile.LNKTYPE, tarfile.FIFOTYPE):
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
            else:
                info.type, info.linkname = data, "/etc/passwd" if data == tarfile.SYMTYPE else "agent/log.txt"
                tar.addfile(info)
    out.seek(0)
    return out


#: Each host write of an agent-writable path by Harbor's plugin: (the path, how it is written).
WRITES = {
    "agent log download": (
        "agent/trajectory.json",
        lambda t, p: p.place_stream(stream(("agent/trajectory.json", b"{}")), t / "agent"),
    ),
    "verifier log download": (
        "verifier/reward.txt",
        lambda t, p: p.place_stream(stream(("verifier/reward.txt", b"1")), t / "verifier"),
    ),
    "artifact file download": (
        "artifacts/app/output/result.csv",
        lambda t, p: p.place_stream(stream(("result.csv", b"a,b")), t / "artifacts/app/output", "result.csv"),
    ),
    "changed files": (
        "artifacts/.westbench-changes/app/x.txt",
        lambda t, p: p.place_stream(stream(("c/app/x.txt", b"x")), t / "artifacts/.westbench-changes"),
    ),
    "changes manifest": (
        "artifacts/westbench-changes.json",
        lambda t, p: p.write_no_follow(t / "artifacts/westbench-changes.json", b"{}"),
    ),
}


@pytest.mark.parametrize("kind", ["symlink", "hard link"])
@pytest.mark.parametrize("write", list(WRITES))
def test_no_host_write_goes_through_a_planted_link(write, kind, host):
    secret, trial = host
    relative, writer = WRITES[write]
    (trial / relative).parent.mkdir(parents=True, exist_ok=True)
    (trial / relative).write_text("old")
    plant(kind, trial / relative, secret)
    before = secret.read_text()
    writer(trial, plugin())
    assert secret.read_text() == before and os.stat(secret).st_nlink == 1  # untouched, its planted name gone
    path = trial / relative
    assert not path.is_symlink() and (not path.exists() or os.stat(path).st_nlink == 1)


def test_a_download_keeps_regular_files_only_and_what_the_host_wrote_first(host):
    _, trial = host
    (trial / "agent" / "trajectory.json").write_text("harbor's own")
    skipped = plugin().place_stream(
        stream(
            ("agent/trajectory.json", b"forged"),
            ("agent/log.txt", b"ran it"),
            ("agent/link", tarfile.SYMTYPE),
            ("agent/hard", tarfile.LNKTYPE),
            ("agent/pipe", tarfile.FIFOTYPE),
            ("agent/../../escape.txt", b"out"),
        ),
        trial / "agent",
    )
    assert (trial / "agent" / "trajectory.json").read_text() == "harbor's own"
    assert (trial / "agent" / "log.txt").read_text() == "ran it"
    assert sorted(os.listdir(trial / "agent")) == ["episode-0", "log.txt", "trajectory.json"]
    assert not (trial.parent / "escape.txt").exists()
    assert any("already there" in s for s in skipped) and any("symbolic link" in s for s in skipped)
    assert any("hard link" in s for s in skipped) and any("fifo" in s for s in skipped)
    assert any("outside" in s for s in skipped)
    with pytest.raises(tarfile.ReadError):  # nothing came from the engine: a failure, not an empty success
        plugin().place_stream(io.BytesIO(b""), trial / "agent")


BAD_KINDS = ["symlink", "hard link", "fifo", "socket", "folder", "binary", "not UTF-8", "too large"]


def make_bad(kind, path, secret):
    if kind in ("symlink", "hard link"):
        plant(kind, path, secret)
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "socket":
        with socket.socket(socket.AF_UNIX) as server:
            server.bind(str(path))
    elif kind == "folder":
        path.mkdir()
    else:
        path.write_bytes({"binary": b"ok\0", "not UTF-8": b"r\xe9sultat", "too large": b"x" * 200}[kind])


@pytest.mark.timeout(30)  # a fifo opened for reading would block: it must not be opened
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(kind=st.sampled_from(BAD_KINDS), name=st.sampled_from(["trajectory.json", "trajectory.cont-1.json", "x.log"]))
def test_every_bad_file_is_refused_by_kind_and_name_without_blocking(kind, name, tmp_path_factory):
    root = tmp_path_factory.mktemp("r")
    (root / "host.txt").write_text(CANARY)
    make_bad(kind, root / name, root / "host.txt")
    with pytest.raises(RefusedFile) as refused:
        read_regular_text(root / name, 100)
    words = {"symlink": "symbolic link", "fifo": "fifo", "socket": "fifo, socket", "too large": "over the"}
    assert str(refused.value).startswith(f"{name}: ") and words.get(kind, kind) in str(refused.value)
    assert CANARY not in str(refused.value)


def test_a_fifo_read_returns_at_once_even_with_a_writer_waiting(tmp_path):
    os.mkfifo(tmp_path / "pipe")
    done = threading.Event()

    def read():
        with pytest.raises(RefusedFile, match="fifo"):
            read_regular_text(tmp_path / "pipe", 100)
        done.set()

    threading.Thread(target=read, daemon=True).start()
    assert done.wait(5)


def test_folders_on_the_way_are_never_links(host):
    secret, trial = host
    os.symlink(secret.parent, trial / "agent" / "linked")
    with pytest.raises(RefusedFile, match="linked/secret.txt: symbolic link"):
        read_regular_text(trial / "agent" / "linked" / "secret.txt", 1000, root=trial / "agent")
    with pytest.raises(RefusedFile, match="symbolic link"):
        write_no_follow(trial / "agent" / "linked" / "new.txt", b"x", root=trial / "agent")
    assert sorted(os.listdir(secret.parent)) == ["secret.txt"]  # nothing written through the link
    with pytest.raises(RefusedFile, match="outside"):
        read_regular_text(trial / ".." / "host" / "secret.txt", 1000, root=trial)
    with open_folders(trial, ("agent", "new", "deeper"), create=True) as fd:
        assert os.fstat(fd).st_ino == os.stat(trial / "agent" / "new" / "deeper").st_ino


def test_write_replaces_the_entry_or_keeps_it_and_refuses_a_folder(tmp_path):
    (tmp_path / "other.txt").write_text("the other name's content")
    os.link(tmp_path / "other.txt", tmp_path / "out.txt")
    write_no_follow(tmp_path / "out.txt", b"new")
    assert (tmp_path / "out.txt").read_text() == "new" and (
        tmp_path / "other.txt"
    ).read_text() == "the other name's content"
    with pytest.raises(RefusedFile, match="already there"):
        write_no_follow(tmp_path / "out.txt", b"again", replace=False)
    (tmp_path / "folder").mkdir()
    with pytest.raises(RefusedFile, match="a folder"):
        write_no_follow(tmp_path / "folder", b"x")
    assert sorted(os.listdir(tmp_path)) == ["folder", "other.txt", "out.txt"]  # no partial file left behind
    write_no_follow(tmp_path / "run.sh", b"echo", mode=0o4777)
    assert oct(os.stat(tmp_path / "run.sh").st_mode & 0o7777) == oct(0o755 & ~_umask())


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_remove_unsafe_removes_links_special_files_and_second_names_never_following(host):
    secret, trial = host
    agent = trial / "agent"
    (agent / "log.txt").write_text("kept")
    os.symlink(secret.parent, agent / "folder-link")
    os.symlink(secret, agent / "episode-0" / "file-link")
    os.link(secret, agent / "hard.txt")
    os.mkfifo(agent / "pipe")
    removed = remove_unsafe(trial)
    assert removed == ["agent/episode-0/file-link", "agent/folder-link", "agent/hard.txt", "agent/pipe"]
    assert (agent / "log.txt").read_text() == "kept" and os.listdir(secret.parent) == ["secret.txt"]
    assert os.stat(secret).st_nlink == 1 and CANARY in secret.read_text()
