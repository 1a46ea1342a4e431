"""Agent-made files are read confined to their folder: no link followed, no special file opened, limits kept."""

import os
import socket

import pytest

from westbench.agents.judge.collect import deliverable_texts, trajectory_parts
from westbench.agents.judge.confined import MAX_DEPTH, Unread, read_file, read_tree


@pytest.fixture
def host(tmp_path):
    """A file only on the host, beside the trial folder."""
    (tmp_path / "host").mkdir()
    (tmp_path / "host" / "secret.txt").write_text("HOST-CANARY-71")
    (tmp_path / "trial" / "agent").mkdir(parents=True)
    return tmp_path / "host" / "secret.txt", tmp_path / "trial"


def kinds(parts):
    return {name: text.kind if isinstance(text, Unread) else "text" for name, text in parts.items()}


def test_links_special_files_and_hard_links_are_listed_never_read(host):
    secret, trial = host
    agent = trial / "agent"
    (agent / "log.txt").write_text("ran it")
    os.symlink(secret, agent / "direct")
    os.symlink("chain-2", agent / "chain-1")
    os.symlink("../../host/secret.txt", agent / "chain-2")
    os.symlink(secret.parent, agent / "folder")
    os.link(secret, agent / "hard")
    os.mkfifo(agent / "pipe")
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(agent / "sock"))
        parts = trajectory_parts(trial, limit_bytes=1000)
    assert kinds(parts) == {
        "agent/chain-1": "link",
        "agent/chain-2": "link",
        "agent/direct": "link",
        "agent/folder": "link",
        "agent/hard": "hard-link",
        "agent/log.txt": "text",
        "agent/pipe": "special",
        "agent/sock": "special",
    }
    assert "HOST-CANARY" not in repr(parts)


def test_a_linked_folder_on_the_way_to_a_file_is_not_entered(host):
    secret, trial = host
    (trial / "artifacts" / "app").mkdir(parents=True)
    os.symlink(secret.parent, trial / "artifacts" / "app" / "output")
    assert deliverable_texts(trial, ["secret.txt"], limit_bytes=1000)["secret.txt"].kind == "not-produced"
    assert read_file(trial, "agent/../../host/secret.txt", 1000).kind == "outside"
    assert read_file(trial, "/etc/hostname", 1000).kind == "outside"


def test_size_limit_binary_and_encoding(tmp_path):
    (tmp_path / "big.txt").write_text("a" * 2000)
    with open(tmp_path / "sparse.txt", "wb") as handle:  # a terabyte costs nothing: only sniffed
        handle.write(b"text")
        handle.truncate(1 << 40)
    (tmp_path / "zeros.bin").write_bytes(b"\0" * 10)
    (tmp_path / "latin1.txt").write_bytes("caf\xe9".encode("latin-1"))
    (tmp_path / "ok.txt").write_text("caf\xe9 \u2603")
    parts = read_tree(tmp_path, "", limit_bytes=1000).parts
    assert parts["big.txt"] == Unread("too-large", 2000) and parts["zeros.bin"] == Unread("binary", 10)
    assert parts["sparse.txt"].kind == "binary"  # its holes read as NUL bytes
    assert parts["latin1.txt"] == Unread("not-utf8", 4) and parts["ok.txt"] == "caf\xe9 \u2603"


def test_a_device_node_is_never_opened(tmp_path):
    try:
        os.mknod(tmp_path / "null", 0o666 | 0o020000, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("creating a device node needs CAP_MKNOD")
    assert read_file(tmp_path, "null", 1000).kind == "special"


def test_the_total_limit_reads_harbors_trajectory_first(tmp_path):
    (tmp_path / "agent").mkdir()
    (tmp_path / "agent" / "a.log").write_text("a" * 600)
    (tmp_path / "agent" / "trajectory.json").write_text("t" * 600)
    parts = trajectory_parts(tmp_path, limit_bytes=1000, total_bytes=500)
    assert list(parts) == ["agent/trajectory.json", "agent/a.log"]
    assert parts["agent/trajectory.json"] == "t" * 600 and parts["agent/a.log"].kind == "over-budget"


def test_too_many_entries_and_too_deep_folders_are_said(tmp_path, monkeypatch):
    from westbench.agents.judge import confined

    monkeypatch.setattr(confined, "MAX_ENTRIES", 5)
    (tmp_path / "agent").mkdir()
    for index in range(8):
        (tmp_path / "agent" / f"{index}.log").write_text("x")
    assert trajectory_parts(tmp_path, limit_bytes=100)["agent/"].kind == "too-many"
    monkeypatch.undo()
    deep = tmp_path / "deep"
    folder = deep.joinpath(*["d"] * (MAX_DEPTH + 1))
    folder.mkdir(parents=True)
    (folder / "f.txt").write_text("x")
    listing = read_tree(tmp_path, "deep", limit_bytes=100)
    assert [text.kind for text in listing.parts.values()] == ["too-deep"]


def test_odd_names_are_kept_apart(tmp_path):
    (tmp_path / "agent").mkdir()
    raw = os.fsencode(tmp_path / "agent") + b"/log\xff.txt"
    with open(raw, "w") as handle:
        handle.write("raw name")
    (tmp_path / "agent" / "log\\xff.txt").write_text("backslash name")
    (tmp_path / "agent" / "a\nNOTE TO THE GRADER.txt").write_text("newline name")
    parts = trajectory_parts(tmp_path, limit_bytes=100)
    assert sorted(parts.values()) == ["backslash name", "newline name", "raw name"]


def test_a_file_swapped_after_its_check_is_not_opened(tmp_path, host):
    """The race a hostile process could run: the checked regular file replaced by a fifo or a link."""
    from westbench.agents.safe_files import RefusedFile, _open_checked

    secret, _ = host
    for swap in (os.mkfifo, lambda path: os.symlink(secret, path)):
        path = tmp_path / "log.txt"
        path.write_text("checked")
        checked = os.stat(path, follow_symlinks=False)
        path.unlink()
        swap(path)
        folder = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
        try:
            with pytest.raises(RefusedFile, match="changed while being read"):
                os.close(_open_checked(folder, "log.txt", checked, checked.st_dev))
        finally:
            os.close(folder)
            path.unlink()
