"""Deterministic checks of a task's deliverables, and a reward that is always written.

This module is the one verifier helper of the task suite. It uses the standard library
only, because it runs inside the task image (Debian's Python 3.11); ``tools/sync-verifykit.py``
copies it into every ``tasks/<task>/tests/verifykit.py`` and a unit test keeps the copies
identical to this file.

A verifier lists checks; each check passes or fails with a reason, and an exception inside
a check fails that check only. :meth:`Checks.finish` writes

* ``reward.json``: ``{"correctness": passed / total, "checks_passed": n, "checks_total": m}``
  (the flat map of name -> number Harbor reads);
* ``checks.json``: every check with its outcome and reason (the per-check detail file), the
  checks' time and the verifier process's time.

If the verifier itself crashes, :func:`main` still writes a reward of 0 with the reason.

Examples
--------
>>> import json, tempfile
>>> out = tempfile.mkdtemp()
>>> checks = Checks(out)
>>> with checks.check("two plus two"):
...     assert 2 + 2 == 4
>>> with checks.check("file exists"):
...     raise FileNotFoundError("/app/output/x.pdb")
>>> checks.finish()["correctness"]
0.5
>>> [c["passed"] for c in json.load(open(out + "/checks.json"))["checks"]]
[True, False]
"""

from __future__ import annotations

import json
import os
import sys
import time
import traceback
from contextlib import contextmanager

LOG_DIR = os.environ.get("WESTBENCH_VERIFIER_DIR", "/logs/verifier")  # the variable serves tests outside a container


class Checks:
    """An ordered list of named checks and their outcomes.

    Parameters
    ----------
    out_dir : str
        Where ``reward.json`` and ``checks.json`` go (``/logs/verifier`` in a container).
    """

    def __init__(self, out_dir: str = LOG_DIR):
        self.out_dir = out_dir
        self.results: list[dict] = []
        self.started = time.monotonic()

    @contextmanager
    def check(self, name: str):
        """Run the body as check ``name``: it passes unless the body raises."""
        try:
            yield
        except Exception as exc:  # a failed check, never a crashed verifier
            reason = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
            self.results.append({"name": name, "passed": False, "reason": reason})
        else:
            self.results.append({"name": name, "passed": True, "reason": ""})

    def require(self, name: str, condition: bool, reason: str = "") -> bool:
        """Record a check from a boolean; returns it."""
        self.results.append({"name": name, "passed": bool(condition), "reason": "" if condition else reason})
        return bool(condition)

    def finish(self, error: str | None = None) -> dict:
        """Write reward.json and checks.json; return the reward."""
        total = len(self.results)
        passed = sum(r["passed"] for r in self.results)
        reward = {"correctness": round(passed / total, 6) if total and error is None else 0.0,
                  "checks_passed": passed if error is None else 0, "checks_total": total}
        os.makedirs(self.out_dir, exist_ok=True)
        detail = {"checks": self.results, "error": error, "elapsed_s": round(time.monotonic() - self.started, 3),
                  "process_elapsed_s": process_elapsed()}
        _write(os.path.join(self.out_dir, "checks.json"), detail)
        _write(os.path.join(self.out_dir, "reward.json"), reward)
        return reward


def process_elapsed() -> float | None:
    """Seconds since this process started (interpreter start and imports included), from /proc.

    The verifier's own time in the per-trial overhead benchmark; None where /proc is missing.

    >>> 0.0 <= process_elapsed() < 3600.0
    True
    """
    try:
        with open("/proc/self/stat") as handle:
            started_ticks = int(handle.read().rsplit(")", 1)[1].split()[19])  # field 22: starttime
        with open("/proc/uptime") as handle:
            uptime = float(handle.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None
    return round(max(uptime - started_ticks / os.sysconf("SC_CLK_TCK"), 0.0), 2)


def _write(path: str, data) -> None:
    temporary = path + ".part"
    with open(temporary, "w") as handle:
        json.dump(data, handle, indent=2)
        handle.write("\n")
    os.replace(temporary, path)


def main(verify, out_dir: str = LOG_DIR) -> int:
    """Run ``verify(checks)`` and always write a reward: a crash scores 0 with its reason.

    Examples
    --------
    >>> import json, tempfile
    >>> out = tempfile.mkdtemp()
    >>> def broken(checks):
    ...     raise RuntimeError("no inputs")
    >>> main(broken, out)
    1
    >>> json.load(open(out + "/reward.json"))["correctness"], json.load(open(out + "/checks.json"))["error"]
    (0.0, 'verifier crashed: RuntimeError: no inputs')
    """
    checks = Checks(out_dir)
    try:
        verify(checks)
    except BaseException as exc:  # noqa: BLE001 - even SystemExit must leave a reward
        print(traceback.format_exc(), file=sys.stderr)
        checks.finish(error=f"verifier crashed: {type(exc).__name__}: {exc}")
        return 1
    reward = checks.finish()
    for result in checks.results:
        print(("PASS " if result["passed"] else "FAIL ") + result["name"] + ("" if result["passed"] else f": {result['reason']}"))
    print(f"correctness {reward['correctness']} ({reward['checks_passed']}/{reward['checks_total']})")
    return 0


def load_json(path: str) -> dict:
    """Read a JSON deliverable; a clear error names the file."""
    if not os.path.isfile(path):
        raise FileNotFoundError(f"deliverable {path} was not written")
    with open(path) as handle:
        return json.load(handle)


def close(value, expected, rel: float = 1e-3, abs_: float = 1e-6) -> bool:
    """Whether two numbers agree within a relative or absolute tolerance.

    >>> close(1.0004, 1.0), close(1.1, 1.0)
    (True, False)
    """
    value, expected = float(value), float(expected)
    return abs(value - expected) <= max(rel * abs(expected), abs_)
