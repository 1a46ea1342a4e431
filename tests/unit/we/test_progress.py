"""Progress a user can trust: one console line per iteration with a walker-aware ETA; WESTPA's
chatter in the job's log file only."""

import logging
import sys

import pytest

from westbench.we.plugin import eta_seconds, projected_walkers
from westbench.we.run import run_we

from .test_we_toy import CFG


def test_eta_counts_segments_not_iterations():
    # 0.1 s/segment measured; 10 walkers now, 40 next: growth x4 until every bin (capacity 147) is full.
    walkers = projected_walkers(10, 40, 4, 147)
    assert walkers == [40, 147, 147, 147]
    assert eta_seconds(0.1, walkers) == pytest.approx(48.1)  # 1 s/iteration x 4 iterations would say 4 s
    assert projected_walkers(130, 120, 2, 147) == [120, 120]  # a shrinking count is not extrapolated


@pytest.mark.slow
def test_console_gets_one_line_per_iteration_and_the_log_file_gets_westpa(tmp_path, capsys):
    log_file = tmp_path / "job.log"
    root = logging.getLogger()
    saved = root.handlers[:], root.level
    console, file = logging.StreamHandler(sys.stderr), logging.FileHandler(log_file)
    root.handlers[:] = [console, file]
    root.setLevel(logging.INFO)
    try:
        run_we(tmp_path / "run", cfg=CFG, segs_per_state=3, max_iterations=4)
    finally:
        root.handlers[:], _ = saved
        root.setLevel(saved[1])
        file.close()
    captured = capsys.readouterr()
    lines = [line for line in captured.err.splitlines() if line.strip()]
    progress = [line for line in lines if "ETA" in line]
    assert len(progress) == 4 and all("s/segment" in line and "walkers" in line for line in progress)
    assert len(lines) == 5, lines  # the progress lines and "initialized": nothing from WESTPA
    assert captured.out.strip() == ""
    text = log_file.read_text()
    assert "Iteration 2" in text  # WESTPA's status prints
    assert text.count("ETA") == 4
