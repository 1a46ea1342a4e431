"""Glue between Snakemake ``script:`` entry points and the library.

A script calls :func:`run_script` with its ``snakemake`` object and a main
function; logging goes to the rule's ``log:`` file and to stderr, and a
:class:`~westbench.errors.WestbenchError` ends the job with its message alone
(no traceback), so the Snakemake error names the cause and the fix. An interrupt (Ctrl-C, SIGTERM)
stops the job within seconds and keeps its resumable state (:mod:`westbench.runtime.interrupt`).

This is the scripts' glue: the library never imports it. Scripts also take
:func:`~westbench.io.records.write_json` from here (their import line stays as it is: editing a script reruns
its rule on every finished run).
"""

from __future__ import annotations

import logging
import signal
import sys
from pathlib import Path
from typing import Callable

from westbench.errors import WestbenchError
from westbench.io.records import write_json  # noqa: F401  (the scripts import it from here)
from westbench.runtime.interrupt import STOP_DEADLINE_S, Interrupted, stop_on_signals


def setup_logging(log_file: str | Path | None = None, level: int = logging.INFO) -> None:
    """Send log records to ``log_file`` (if any) and stderr, one line each."""
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr)]
    if log_file:
        Path(log_file).parent.mkdir(parents=True, exist_ok=True)
        handlers.append(logging.FileHandler(log_file, mode="w"))
    logging.basicConfig(
        level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s", handlers=handlers, force=True
    )


def run_script(snakemake, main: Callable[[object], None]) -> None:
    """Run ``main(snakemake)`` with logging set up and user errors reported cleanly.

    SIGINT, SIGTERM and SIGHUP raise :class:`~westbench.runtime.interrupt.Interrupted` inside ``main``, so its
    context managers close their files and stop their worker processes; the job then exits with status
    128 + the signal number, leaving what a rerun resumes from (MD checkpoints, ``west.h5``), at the
    latest :data:`~westbench.runtime.interrupt.STOP_DEADLINE_S` seconds after the signal.
    """
    setup_logging(snakemake.log[0] if len(snakemake.log) else None)
    try:
        with stop_on_signals(deadline_s=STOP_DEADLINE_S):
            main(snakemake)
    except Interrupted as exc:
        logging.getLogger("westbench").warning(
            "rule %s %s: stopped; rerunning it resumes from the state kept", snakemake.rule, exc
        )
        sys.exit(exc.exit_code)
    except WestbenchError as exc:
        logging.getLogger("westbench").error("%s", exc)
        sys.exit(1)
    except Exception:
        logging.getLogger("westbench").exception("rule %s failed unexpectedly", snakemake.rule)
        raise


def sigterm_stops_like_ctrl_c() -> None:
    """Make SIGTERM stop this Snakemake process the way Ctrl-C does (the Snakefile's ``onstart`` calls it).

    Snakemake's own SIGTERM handler (9.x, ``JobScheduler.exit_gracefully``) takes the scheduler's lock,
    which the main thread it interrupts may be holding while it records a finished job: Snakemake then
    hangs for good (measured in docs/cluster.md, "Killed runs"). Raising ``KeyboardInterrupt`` instead
    takes Snakemake's Ctrl-C path, which holds no lock: it starts no new job, waits for the running
    ones (signalled too when the signal went to the process group, they stop within seconds, see
    :func:`run_script`) and exits. Further SIGTERMs while it stops are ignored; SIGKILL still works.
    """

    def handler(signum, frame):
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        raise KeyboardInterrupt(f"{signal.Signals(signum).name} received")

    if signal.getsignal(signal.SIGTERM) is not signal.SIG_IGN:
        signal.signal(signal.SIGTERM, handler)
