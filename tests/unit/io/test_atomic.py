"""The one atomic-write helper: a failed write names the file, says what survives and keeps the old file."""

import errno
import os

import numpy as np
import pytest

from westbench.io import atomic
from westbench.io.frames import read_frames, write_frames


def full_disk(*args, **kwargs):
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_a_failed_write_keeps_the_previous_file_and_names_it(tmp_path, monkeypatch):
    path = tmp_path / "out.bin"
    atomic.write_bytes(path, b"previous")
    monkeypatch.setattr(os, "fsync", full_disk)  # the data cannot reach the disk
    with pytest.raises(atomic.AtomicWriteError) as caught:
        atomic.write_bytes(path, b"new")
    message = str(caught.value)
    assert str(path) in message and "No space left on device" in message
    assert "previous out.bin is intact" in message and "free space and rerun" in message
    assert caught.value.errno == errno.ENOSPC and isinstance(caught.value, OSError)
    assert path.read_bytes() == b"previous"
    assert os.listdir(tmp_path) == ["out.bin"]  # no temporary left behind


def test_a_failed_first_write_leaves_nothing_and_says_so(tmp_path, monkeypatch):
    monkeypatch.setattr(np, "savez", full_disk)
    with pytest.raises(atomic.AtomicWriteError, match=r"No chunk\.npz was written"):
        atomic.savez(tmp_path / "chunk.npz", x=np.zeros(3))
    assert os.listdir(tmp_path) == []


def test_frames_survive_a_full_disk(tmp_path, monkeypatch):
    """A real caller: the frames file written before stays readable when rewriting it fails."""
    import h5py

    path = tmp_path / "frames.h5"
    write_frames(path, np.ones((2, 3, 3)), [0.0, 1.0])

    def failing_file(name, mode="r", *args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(h5py, "File", failing_file)
    with pytest.raises(atomic.AtomicWriteError, match=str(path)):
        write_frames(path, np.zeros((5, 3, 3)), np.arange(5.0))
    monkeypatch.undo()
    assert read_frames(path)["ca"].shape == (2, 3, 3)


def test_errors_of_the_writer_pass_unchanged_and_leave_no_temporary(tmp_path):
    with pytest.raises(ValueError, match="rows"):
        write_frames(tmp_path / "frames.h5", np.ones((2, 3, 3)), [0.0])
    assert os.listdir(tmp_path) == []


def test_custom_survivors_are_reported(tmp_path, monkeypatch):
    monkeypatch.setattr(np, "savez", full_disk)
    with pytest.raises(atomic.AtomicWriteError, match="The previous checkpoint is intact"):
        atomic.savez(tmp_path / "c.npz", "the previous checkpoint is intact", x=np.zeros(1))
