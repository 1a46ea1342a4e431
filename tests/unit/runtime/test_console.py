"""Console filtering (westbench.runtime.console): a logger's owner declares it chatty; its INFO records then stay off
the console under quiet_console, its warnings do not, and file handlers keep everything."""

import io
import logging
import sys

from westbench.runtime.console import declare_chatty, is_chatty, quiet_console


def test_the_sampling_modules_declare_their_own_chatter():
    import westbench.cg.engine  # noqa: F401
    import westbench.engines  # noqa: F401
    import westbench.we.propagator  # noqa: F401
    import westbench.we.run  # noqa: F401  (the WESTPA session declares WESTPA's loggers)

    for name in (
        "westpa",
        "westpa.core.sim_manager",
        "west",
        "work_managers.zeromq",
        "westtools",
        "westext",
        "westpa.status",
        "numexpr.utils",
        "westbench.engines.openmm_engine",
        "westbench.cg.engine",
        "westbench.we.propagator",
    ):
        assert is_chatty(name), name
    for name in ("westbench.we", "westbench.we.run", "westbench.we.plugin", "westbench.cg", "westbench.runtime.resume"):
        assert not is_chatty(name), name


def test_quiet_console_keeps_chatter_in_the_log_file(monkeypatch, tmp_path):
    console, logfile = io.StringIO(), tmp_path / "job.log"
    monkeypatch.setattr(sys, "stderr", console)
    root = logging.getLogger()
    to_console, to_file = logging.StreamHandler(sys.stderr), logging.FileHandler(logfile)
    monkeypatch.setattr(root, "handlers", [to_console, to_file])
    monkeypatch.setattr(root, "level", logging.INFO)
    declare_chatty("tests.chatty")
    with quiet_console("tests.chatty.status"):
        logging.getLogger("tests.chatty.engine").info("engine set up")
        logging.getLogger("tests.chatty.engine").warning("engine warning")
        logging.getLogger("tests.progress").info("iteration 1")
        print("a status line")
    logging.getLogger("tests.chatty").info("after the run")
    to_file.flush()
    assert console.getvalue().splitlines() == ["engine warning", "iteration 1", "after the run"]
    assert logfile.read_text().splitlines() == [
        "engine set up",
        "engine warning",
        "iteration 1",
        "a status line",
        "after the run",
    ]
