"""Glue between Snakemake ``script:`` entry points and the library.

A script calls :func:`run_script` with its ``snakemake`` object and a main
function; logging goes to the rule's ``log:`` file and to stderr, and a
:class:`~westbench.errors.WestbenchError` ends the job with its message alone
(no traceback), so the Snakemake error names the cause and the fix.
"""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path
from typing import Callable

from westbench.errors import WestbenchError


def setup_logging(log_file: str | Path | None = None, level: int = logging.INFO) -> None:
    """Send log records to ``log_file`` (if any) and stderr, one line each."""
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr)]
    if log_file:
        Path(log_file).parent.mkdir(parents=True, exist_ok=True)
        handlers.append(logging.FileHandler(log_file, mode="w"))
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s", handlers=handlers, force=True)


def run_script(snakemake, main: Callable[[object], None]) -> None:
    """Run ``main(snakemake)`` with logging set up and user errors reported cleanly."""
    setup_logging(snakemake.log[0] if len(snakemake.log) else None)
    try:
        main(snakemake)
    except WestbenchError as exc:
        logging.getLogger("westbench").error("%s", exc)
        sys.exit(1)
    except Exception:
        logging.getLogger("westbench").exception("rule %s failed unexpectedly", snakemake.rule)
        raise


def write_json(data: object, path: str | Path) -> None:
    """Write ``data`` as indented JSON (the format of every westbench summary)."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
