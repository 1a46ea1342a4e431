"""The scripts' glue: logging to the rule's log file and stderr, a user error ending the job with its message
alone (status 1, no traceback), an unexpected one re-raised with its traceback logged, a stop signal ending the
job with 128 + its number after its clean-up ran, and SIGTERM taking Snakemake's Ctrl-C path once."""

import logging
import subprocess
import sys
import textwrap
from types import SimpleNamespace

import pytest

from westbench.errors import ConfigError
from westbench.workflow import run_script, setup_logging

from ..conftest import REPO, source_env


@pytest.fixture(autouse=True)
def root_logging():
    """The root logger as it was (pytest's capture handlers, the level), the handlers opened here closed."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    for handler in root.handlers:
        if handler not in handlers:
            handler.close()
    root.handlers[:], root.level = handlers, level


def job(log=(), rule="toy_rule"):
    """The part of Snakemake's ``snakemake`` object run_script reads."""
    return SimpleNamespace(log=list(map(str, log)), rule=rule)


def test_logging_goes_to_a_fresh_log_file_in_a_new_folder_and_to_stderr_one_line_a_record(tmp_path, capsys):
    log = tmp_path / "logs" / "rule" / "job.log"
    log.parent.mkdir(parents=True)
    log.write_text("an earlier attempt's log\n")
    setup_logging(log)
    logging.getLogger("westbench.test").info("frames: %d", 12)
    logging.getLogger("westbench.test").debug("not at INFO")
    for handler in logging.getLogger().handlers:
        handler.flush()
    lines = log.read_text().splitlines()
    assert len(lines) == 1 and lines[0].endswith(" INFO westbench.test: frames: 12")
    assert capsys.readouterr().err.splitlines()[-1] == lines[0]
    setup_logging(tmp_path / "new" / "folder" / "x.log", level=logging.DEBUG)
    logging.getLogger("westbench.test").debug("now at DEBUG")
    assert "DEBUG westbench.test: now at DEBUG" in (tmp_path / "new" / "folder" / "x.log").read_text()


def test_the_main_function_gets_the_snakemake_object_and_logs_to_the_rules_log(tmp_path):
    seen = []

    def main(snakemake):
        seen.append(snakemake)
        logging.getLogger("westbench.job").info("done with %s", snakemake.rule)

    snakemake = job([tmp_path / "job.log"])
    run_script(snakemake, main)
    assert seen == [snakemake]
    assert "INFO westbench.job: done with toy_rule" in (tmp_path / "job.log").read_text()


def test_a_user_error_ends_the_job_with_status_1_and_its_message_alone(tmp_path, capsys):
    message = "proteins.chignolin.pdb_id: '9ZZZ' is not an RCSB entry; set it to the entry's id"

    def main(snakemake):
        raise ConfigError(message)

    with pytest.raises(SystemExit) as stopped:
        run_script(job([tmp_path / "job.log"]), main)
    assert stopped.value.code == 1
    logged = (tmp_path / "job.log").read_text()
    assert logged.strip().endswith(f"ERROR westbench: {message}") and "Traceback" not in logged
    assert message in capsys.readouterr().err


def test_an_unexpected_error_is_raised_again_with_its_traceback_in_the_log_and_on_stderr(capsys):
    def main(snakemake):
        {}["missing key"]

    with pytest.raises(KeyError, match="missing key"):
        run_script(job(), main)  # no log file: stderr alone
    err = capsys.readouterr().err
    assert "ERROR westbench: rule toy_rule failed unexpectedly" in err
    assert "Traceback" in err and '{}["missing key"]' in err


def run_child(code: str, *args) -> subprocess.CompletedProcess:
    """``code`` in a fresh interpreter importing this checkout (a signal there reaches no test)."""
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code), *map(str, args)],
        cwd=REPO,
        env=source_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_stop_signal_runs_the_jobs_clean_up_and_ends_it_with_128_plus_the_signal(tmp_path):
    result = run_child(
        """
        import os, signal, sys, time
        from pathlib import Path
        from types import SimpleNamespace
        from westbench.workflow import run_script

        def main(snakemake):
            try:
                os.kill(os.getpid(), signal.SIGTERM)
                time.sleep(30)
                Path(sys.argv[2]).write_text("not interrupted")
            finally:
                Path(sys.argv[2]).write_text("cleaned up")

        run_script(SimpleNamespace(log=[sys.argv[1]], rule="we_run"), main)
        """,
        tmp_path / "job.log",
        tmp_path / "state.txt",
    )
    assert result.returncode == 128 + 15, result.stderr
    assert (tmp_path / "state.txt").read_text() == "cleaned up"
    logged = (tmp_path / "job.log").read_text()
    assert "rule we_run interrupted by SIGTERM: stopped; rerunning it resumes from the state kept" in logged


def test_sigterm_raises_keyboard_interrupt_once_then_is_ignored_and_an_ignored_one_stays_ignored():
    result = run_child(
        """
        import os, signal, time
        from westbench.workflow import sigterm_stops_like_ctrl_c

        sigterm_stops_like_ctrl_c()
        try:
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(30)
        except KeyboardInterrupt as exc:
            print("first:", exc)
        os.kill(os.getpid(), signal.SIGTERM)  # while stopping: ignored
        time.sleep(0.2)
        print("second ignored:", signal.getsignal(signal.SIGTERM) is signal.SIG_IGN)

        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # e.g. nohup: stays as it is
        sigterm_stops_like_ctrl_c()
        print("kept ignored:", signal.getsignal(signal.SIGTERM) is signal.SIG_IGN)
        """
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["first: SIGTERM received", "second ignored: True", "kept ignored: True"]
