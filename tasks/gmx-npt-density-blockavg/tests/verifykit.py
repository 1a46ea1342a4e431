"""Deterministic checks of a task's deliverables, and a reward that is always written.

This module is the one verifier helper of the task suite. It imports the standard library
only, because it runs inside the task image (Debian's Python 3.11; the one helper for OpenMM's files imports OpenMM
when called, in the images that have it); ``tools/sync-verifykit.py``
copies it into every ``tasks/<task>/tests/verifykit.py`` and a unit test keeps the copies
identical to this file.

A verifier lists checks; each check passes or fails with a reason, and an exception inside
a check fails that check only. :meth:`Checks.finish` writes

* ``reward.json``: ``{"correctness": ..., "checks_passed": n, "checks_total": m, ...}`` (the flat map
  of name -> number Harbor reads);
* ``checks.json``: every check with its kind, outcome and reason (the per-check detail file), the
  checks' time and the verifier process's time.

Every check has a ``kind``: ``format`` (a deliverable is there and parses: no science in it) or
``science`` (a number or structure the verifier recomputed or checked against the tools). Format
checks earn no partial credit: ``correctness`` is the fraction of *science* checks passed, and 0 while
any format check fails (a task without science checks scores the fraction of its format checks). So
made-up numbers in the right format score 0, not the share of checks that only read the files. The
plain fraction of all checks is kept as ``checks_fraction``. A check's kind is given
(``check(name, kind=...)``) or read from its name (:func:`kind_of`).

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
>>> checks.finish()["correctness"]  # a deliverable missing: no partial credit
0.0
>>> [(c["kind"], c["passed"]) for c in json.load(open(out + "/checks.json"))["checks"]]
[('science', True), ('format', False)]

Made-up values in the right format: the files parse, the numbers are wrong.

>>> checks = Checks(out)
>>> checks.require("result.json readable", True)
True
>>> checks.require("Delta F within 3 standard errors", False, "12.0 kT, exact 4.2 kT")
False
>>> reward = checks.finish()
>>> reward["correctness"], reward["checks_fraction"], reward["format_passed"], reward["science_passed"]
(0.0, 0.5, 1, 0)
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import traceback
from contextlib import contextmanager

KINDS = ("format", "science")
# Names of checks that only look at a deliverable's presence or syntax (used when a check names no kind).
_FORMAT_NAME = re.compile(
    r"\b(readable|exists?|written|present|parses?|parseable|loadable|headers?|valid json|"
    r"well-formed|contracted (columns|keys|format))\b",
    re.IGNORECASE,
)


def kind_of(name: str, kind: str | None = None) -> str:
    """The kind of a check: ``kind`` when given, else ``format`` for a name about presence or syntax.

    >>> kind_of("conf.gro readable"), kind_of("pka.csv has the contracted header"), kind_of("MBAR Delta F within 3 SE")
    ('format', 'format', 'science')
    >>> kind_of("rg.csv has header frame,rg_nm"), kind_of("analysis.csv has the contracted columns")
    ('format', 'format')
    >>> kind_of("file exists", "science")
    'science'
    """
    if kind is not None:
        if kind not in KINDS:
            raise ValueError(f"check kind must be one of {KINDS}, got {kind!r}")
        return kind
    return "format" if _FORMAT_NAME.search(name) else "science"


def score(results: list[dict]) -> dict:
    """Correctness and the counts per kind of a list of check results (see the module docstring).

    >>> score([{"kind": "format", "passed": True}, {"kind": "science", "passed": True},
    ...        {"kind": "science", "passed": False}])["correctness"]
    0.5
    >>> score([{"kind": "format", "passed": False}, {"kind": "science", "passed": True}])["correctness"]
    0.0
    """
    counts = {f"{kind}_{what}": 0 for kind in KINDS for what in ("passed", "total")}
    for result in results:
        counts[f"{result['kind']}_total"] += 1
        counts[f"{result['kind']}_passed"] += bool(result["passed"])
    total, passed = len(results), sum(bool(r["passed"]) for r in results)
    if not total:
        correctness = 0.0
    elif counts["format_passed"] < counts["format_total"]:
        correctness = 0.0
    elif counts["science_total"]:
        correctness = counts["science_passed"] / counts["science_total"]
    else:
        correctness = counts["format_passed"] / counts["format_total"]
    return {
        "correctness": round(correctness, 6),
        "checks_fraction": round(passed / total, 6) if total else 0.0,
        "checks_passed": passed,
        "checks_total": total,
        **counts,
    }


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
    def check(self, name: str, kind: str | None = None):
        """Run the body as check ``name`` (of ``kind``, see :func:`kind_of`): it passes unless the body raises."""
        kind = kind_of(name, kind)
        try:
            yield
        except Exception as exc:  # a failed check, never a crashed verifier
            reason = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
            self.results.append({"name": name, "kind": kind, "passed": False, "reason": reason})
        else:
            self.results.append({"name": name, "kind": kind, "passed": True, "reason": ""})

    def require(self, name: str, condition: bool, reason: str = "", kind: str | None = None) -> bool:
        """Record a check from a boolean; returns it."""
        self.results.append(
            {
                "name": name,
                "kind": kind_of(name, kind),
                "passed": bool(condition),
                "reason": "" if condition else reason,
            }
        )
        return bool(condition)

    def finish(self, error: str | None = None) -> dict:
        """Write reward.json and checks.json; return the reward."""
        reward = score(self.results)
        if error is not None:
            reward = {**reward, "correctness": 0.0, "checks_fraction": 0.0, "checks_passed": 0}
        os.makedirs(self.out_dir, exist_ok=True)
        detail = {
            "checks": self.results,
            "error": error,
            "elapsed_s": round(time.monotonic() - self.started, 3),
            "process_elapsed_s": process_elapsed(),
        }
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
        print(
            ("PASS " if result["passed"] else "FAIL ")
            + result["name"]
            + ("" if result["passed"] else f": {result['reason']}")
        )
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


def count_fraction(value, counts, n: int, resolution: float = 0.1) -> bool:
    """Whether ``value`` is the fraction c / n of ``n`` things (frames, residues) for an allowed count c (``counts``:
    one count, or (low, high) inclusive where the platform may put a few things either side of a cutoff), to
    ``resolution`` of one thing.

    One thing, 1 / n, is the smallest real mistake on such a fraction, so a tolerance of 1 / n passes it; and a
    fraction over another number of things (the first frame left out: 27 / 39 for 28 / 40) differs from the right
    one by less than 1 / n but lands off the 1 / n lattice. A tenth of a thing allows the value written to 4
    significant decimals up to n = 1,000.

    >>> count_fraction(0.7, 28, 40), count_fraction(27 / 39, 28, 40), count_fraction(0.675, 28, 40)
    (True, False, False)
    >>> count_fraction(0.725, (28, 29), 40), count_fraction(0.7, (29, 30), 40)
    (True, False)
    """
    low, high = (counts, counts) if not isinstance(counts, (tuple, list)) else counts
    count = round(float(value) * n)
    return int(low) <= count <= int(high) and abs(float(value) - count / n) <= resolution / n


def sha256_of(*paths: str) -> dict:
    """The sha256 of each file, by its path: what a stored reference was computed from.

    >>> import tempfile
    >>> path = tempfile.mkstemp()[1]
    >>> _ = open(path, "w").write("abc")
    >>> sha256_of(path)[path][:12]
    'ba7816bf8f01'
    """
    import hashlib

    digests = {}
    for path in paths:
        with open(path, "rb") as handle:
            digests[path] = hashlib.sha256(handle.read()).hexdigest()
    return digests


def versions(*packages: str) -> dict:
    """The installed version of each Python package, by name: its distribution's (``importlib.metadata``), else
    the module's ``__version__`` (a Debian package may ship no distribution metadata, as h5py's does not).

    >>> versions("json")["json"] == __import__("json").__version__
    True
    """
    import importlib
    from importlib.metadata import PackageNotFoundError, version

    found = {}
    for name in packages:
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            found[name] = str(importlib.import_module(name).__version__)
    return found


def stored_reference(path: str, provenance: dict, compute):
    """A reference that depends on the image alone (the task's inputs and tools), not on the agent.

    Read from the JSON file ``path`` (kept beside the verifier in ``tests/``, which no agent sees) when it
    was made from the same ``provenance`` (tool versions, the inputs' sha256), else ``compute()`` again, so a
    changed input or tool can never leave a stale reference in use. The value must be plain JSON (lists, not
    arrays): the caller converts. ``python3 verify.py --reference`` of a task rewrites the file with
    :func:`write_reference`.

    >>> import tempfile
    >>> path = tempfile.mkstemp(suffix=".json")[1]
    >>> write_reference(path, {"tool": "1.0"}, [1.5, 2])
    >>> stored_reference(path, {"tool": "1.0"}, lambda: "recomputed")
    [1.5, 2]
    >>> stored_reference(path, {"tool": "1.1"}, lambda: "recomputed")
    'recomputed'
    """
    try:
        with open(path) as handle:
            stored = json.load(handle)
        if stored.get("provenance") == json.loads(json.dumps(provenance)):
            return stored["value"]
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        pass
    return compute()


def write_reference(path: str, provenance: dict, value) -> None:
    """Store ``value`` (plain JSON) with what it was computed from, for :func:`stored_reference`."""
    with open(path, "w") as handle:
        json.dump({"provenance": provenance, "value": value}, handle, indent=1)
        handle.write("\n")


GROMACS_TOP_DIRS = ("/usr/share/gromacs/top", "/usr/local/gromacs/share/gromacs/top")
_INCLUDE = re.compile(r'^\s*#\s*include\s+["<]([^">]+)[">]')
_CONDITIONAL = re.compile(r"^\s*#\s*(?:ifdef|ifndef)\s+(\w+)|^\s*#\s*if\s+.*?defined\s*\(?\s*(\w+)")


def topology_includes(top: str, library_dirs=None) -> dict:
    r"""Every ``#include`` of a GROMACS topology, in every ``#ifdef`` branch, resolved as grompp would.

    A file is looked up next to the file that includes it, then in the topology's folder, then in
    GROMACS's library (``GMXLIB``, then :data:`GROMACS_TOP_DIRS`). The topology's own files (those in
    its folder tree) are followed recursively; library files are GROMACS's and not opened. Returns
    ``included`` (resolved paths), ``missing`` ("<file>: #include <name>" for every include no file
    answers, or that resolves outside both the topology's folder and the library) and ``defines``
    (the macros the topology's own files test with ``#ifdef``/``#ifndef``/``defined``: run grompp with
    them too, since an include under ``#ifdef POSRES`` is never opened without ``-DPOSRES``).

    >>> import os, tempfile
    >>> d = tempfile.mkdtemp()
    >>> top = '#include "ff.itp"\n#ifdef POSRES\n#include "posre.itp"\n#endif\n'
    >>> _ = open(os.path.join(d, "topol.top"), "w").write(top)
    >>> _ = open(os.path.join(d, "ff.itp"), "w").write("[ defaults ]\n")
    >>> found = topology_includes(os.path.join(d, "topol.top"), library_dirs=[])
    >>> found["missing"], found["defines"]
    (['topol.top: #include "posre.itp"'], ['POSRES'])
    """
    root = os.path.dirname(os.path.abspath(top))
    library = [
        p
        for p in ([os.environ["GMXLIB"]] if os.environ.get("GMXLIB") else [])
        + list(GROMACS_TOP_DIRS if library_dirs is None else library_dirs)
        if os.path.isdir(p)
    ]
    inside = lambda path: os.path.commonpath([root, os.path.abspath(path)]) == root
    in_library = lambda path: any(os.path.commonpath([lib, os.path.abspath(path)]) == lib for lib in library)
    included, missing, defines, queue, seen = [], [], [], [os.path.abspath(top)], set()
    while queue:
        current = queue.pop(0)
        if current in seen:
            continue
        seen.add(current)
        with open(current, errors="replace") as handle:
            lines = handle.read().splitlines()
        for line in lines:
            condition = _CONDITIONAL.match(line)
            if condition:
                name = condition.group(1) or condition.group(2)
                if name not in defines:
                    defines.append(name)
            match = _INCLUDE.match(line)
            if not match:
                continue
            name = match.group(1)
            candidates = (
                [name]
                if os.path.isabs(name)
                else [os.path.join(os.path.dirname(current), name), os.path.join(root, name)]
                + [os.path.join(lib, name) for lib in library]
            )
            found = next((c for c in candidates if os.path.isfile(c)), None)
            label = f'{os.path.relpath(current, root)}: #include "{name}"'
            if found is None:
                missing.append(label)
            elif inside(found):
                included.append(os.path.abspath(found))
                queue.append(os.path.abspath(found))
            elif in_library(found):
                included.append(os.path.abspath(found))
            else:
                missing.append(label + f" (resolves to {found}, which is neither delivered nor part of GROMACS)")
    return {"included": included, "missing": missing, "defines": defines}


def gmx(*args: str, cwd: str | None = None, stdin: str | None = None, timeout: float = 300) -> tuple[int, str]:
    """Run ``gmx -quiet <args>`` on one OpenMP thread: (exit code, stdout and stderr together).

    ``stdin`` answers gmx's prompts (a group or term selection); ``timeout`` (seconds) raises
    :class:`subprocess.TimeoutExpired`, which fails the check that ran it. A verifier with its own working
    folder or time limit binds them once: ``gmx = functools.partial(verifykit.gmx, cwd="/tmp", timeout=120)``.
    """
    result = subprocess.run(
        ["gmx", "-quiet", *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        env={**os.environ, "OMP_NUM_THREADS": "1"},
        timeout=timeout,
    )
    return result.returncode, result.stdout + result.stderr


_GMX_ERROR = re.compile(r"(?:ERROR \d+|Fatal error:)[^\n]*\n[^\n]*")


def gmx_error(log: str) -> str:
    r"""The first error a gmx log names (``ERROR <n>`` or ``Fatal error:`` with the line after it), else the log's
    last 300 characters: the reason a failed grompp or mdrun check gives.

    >>> gmx_error("NOTE 1: fine\nERROR 1 [file em.mdp]:\n  Unknown left-hand 'integrato'\nmore")
    "ERROR 1 [file em.mdp]:\n  Unknown left-hand 'integrato'"
    >>> gmx_error("Segmentation fault")
    'Segmentation fault'
    """
    return (_GMX_ERROR.findall(log) or [log[-300:]])[0]


def restraint_count(itp: str) -> int:
    r"""Entries of the ``[ position_restraints ]`` sections of an .itp file.

    >>> import os, tempfile
    >>> itp = os.path.join(tempfile.mkdtemp(), "posre.itp")
    >>> _ = open(itp, "w").write("[ position_restraints ]\n; ai funct\n1 1 1000 1000 1000\n#ifdef X\n5 1 1 1 1\n")
    >>> restraint_count(itp)
    2
    """
    count, inside = 0, False
    for line in open(itp):
        text = line.split(";")[0].strip()
        if text.startswith("["):
            inside = text.replace(" ", "") == "[position_restraints]"
        elif inside and text and not text.startswith("#"):
            count += 1
    return count


def openmm_integrator(path: str) -> dict:
    """The integrator an OpenMM ``XmlSerializer`` file holds: its XML attributes (``type``, ``temperature`` in K,
    ``friction`` in 1/ps, ``stepSize`` in ps, ``randomSeed``, as strings), read with the standard library.

    The run's own object, serialized, is what a setting is read back from: a JSON of the settings restates the
    instruction whatever ran.

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "integrator.xml")
    >>> _ = open(path, "w").write('<Integrator type="LangevinMiddleIntegrator" temperature="300" randomSeed="42"/>')
    >>> settings = openmm_integrator(path)
    >>> settings["type"], float(settings["temperature"]), int(settings["randomSeed"])
    ('LangevinMiddleIntegrator', 300.0, 42)
    """
    import xml.etree.ElementTree as ElementTree

    if not os.path.isfile(path):
        raise FileNotFoundError(f"deliverable {path} was not written")
    root = ElementTree.parse(path).getroot()
    if root.tag != "Integrator" or "type" not in root.attrib:
        raise ValueError(f"{path} holds <{root.tag}>, not an integrator written by openmm.XmlSerializer.serialize")
    return dict(root.attrib)


def openmm_integrator_differences(path: str, kind: str, **expected: float) -> list[str]:
    """How the integrator in an OpenMM ``XmlSerializer`` file differs from the one a task asks for: its type
    (``kind``) and each ``expected`` attribute (``temperature`` K, ``friction`` 1/ps, ``stepSize`` ps, ``randomSeed``)
    to 1e-9 relative; [] when it is that integrator.

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "integrator.xml")
    >>> _ = open(path, "w").write('<Integrator type="LangevinIntegrator" temperature="310" randomSeed="42"/>')
    >>> differences = openmm_integrator_differences(path, "LangevinMiddleIntegrator", temperature=300.0, randomSeed=42)
    >>> for difference in differences:
    ...     print(difference)
    integrator.xml holds a LangevinIntegrator, asked for LangevinMiddleIntegrator
    temperature 310, asked for 300.0
    """
    integrator = openmm_integrator(path)
    differences = []
    if integrator["type"] != kind:
        differences.append(f"{os.path.basename(path)} holds a {integrator['type']}, asked for {kind}")
    for name, value in expected.items():
        if integrator.get(name) is None or not close(integrator[name], value, rel=1e-9, abs_=0.0):
            differences.append(f"{name} {integrator.get(name)}, asked for {value}")
    return differences


def openmm_system_differences(path: str, reference, positions, rel: float = 1e-6) -> list[str]:
    """How the System an OpenMM ``XmlSerializer`` file holds differs from the verifier's own ``reference`` (an
    ``openmm.System`` built as the task asks): particle count and masses, constrained pairs and their lengths, each
    force's type and cut-off method, and the potential energy and every force at ``positions`` on the Reference
    platform (each to ``rel``: energy at least 1e-3 kJ/mol, forces at least 1e-3 kJ/mol/nm); [] when they are the
    same system. Only tasks whose image has OpenMM call it (it imports OpenMM).

    The energy and forces are the sharp part: another GB model, a cut-off, a salt concentration, one charge or one
    bonded term moves them far more than float rounding does (the same system agrees to about 1e-10 relative); a
    non-finite value is a difference. Masses and constraint lengths change the dynamics, not the energy, so they are
    compared apart (hydrogen mass repartitioning, a constraint in Angstrom).
    """
    import math

    import openmm

    if not os.path.isfile(path):
        raise FileNotFoundError(f"deliverable {path} was not written")
    with open(path) as handle:
        system = openmm.XmlSerializer.deserialize(handle.read())
    if not isinstance(system, openmm.System):
        return [f"{path} holds a {type(system).__name__}, not a System"]
    if system.getNumParticles() != reference.getNumParticles():
        return [f"{system.getNumParticles()} particles, the structure has {reference.getNumParticles()}"]

    def near(a, b, floor=0.0):
        return math.isfinite(a) and math.isfinite(b) and abs(a - b) <= max(rel * abs(b), floor)

    differences = []
    theirs, mine = _openmm_masses(system), _openmm_masses(reference)
    off = [i for i, (m, e) in enumerate(zip(theirs, mine)) if not near(m, e)]
    if off:
        differences.append(f"masses: {len(off)} particles differ (particle {off[0]}: {theirs[off[0]]} Da)")
    theirs, mine = _openmm_constraints(system), _openmm_constraints(reference)
    if set(mine) != set(theirs):
        differences.append(
            f"constraints: {len(theirs)} pairs, {len(set(theirs) - set(mine))} not asked for and "
            f"{len(set(mine) - set(theirs))} missing of the {len(mine)} asked for"
        )
    elif any(not near(theirs[pair], mine[pair]) for pair in mine):
        differences.append("constraints: the lengths of the constrained pairs differ from the force field's")
    if _openmm_forces(system) != _openmm_forces(reference):
        differences.append(
            f"forces (type, cut-off method): {_openmm_forces(system)}, asked for {_openmm_forces(reference)}"
        )
    (delivered, delivered_forces), (expected, expected_forces) = (
        _openmm_evaluate(system, positions),
        _openmm_evaluate(reference, positions),
    )
    if not near(delivered, expected, 1e-3):
        differences.append(f"potential energy {delivered:.3f} kJ/mol at the structure, asked for {expected:.3f}")
    scale = float(abs(expected_forces).max())
    gap = abs(delivered_forces - expected_forces)
    worst = float(gap.max()) if bool((gap == gap).all()) else math.inf  # NaN != NaN
    if worst > max(rel * scale, 1e-3):
        differences.append(f"forces at the structure differ by up to {worst:.3g} kJ/mol/nm (largest {scale:.3g})")
    return differences


def _openmm_masses(system) -> list:
    from openmm import unit

    return [system.getParticleMass(i).value_in_unit(unit.dalton) for i in range(system.getNumParticles())]


def _openmm_constraints(system) -> dict:
    """{(i, j): length in nm} of a System's constraints, each pair in ascending order."""
    from openmm import unit

    out = {}
    for i in range(system.getNumConstraints()):
        a, b, length = system.getConstraintParameters(i)
        out[(min(a, b), max(a, b))] = length.value_in_unit(unit.nanometer)
    return out


def _openmm_forces(system) -> list:
    """Sorted (type, cut-off method or -1) of a System's forces but the CMMotionRemover (no energy, no force)."""
    import openmm

    return sorted(
        (type(f).__name__, int(f.getNonbondedMethod()) if hasattr(f, "getNonbondedMethod") else -1)
        for f in system.getForces()
        if not isinstance(f, openmm.CMMotionRemover)
    )


def _openmm_evaluate(system, positions):
    """(potential energy in kJ/mol, forces in kJ/mol/nm as one flat array) at ``positions``, Reference platform."""
    import openmm
    from openmm import unit

    context = openmm.Context(system, openmm.VerletIntegrator(0.001), openmm.Platform.getPlatformByName("Reference"))
    context.setPositions(positions)
    state = context.getState(getEnergy=True, getForces=True)
    energy = state.getPotentialEnergy().value_in_unit(unit.kilojoule_per_mole)
    return energy, state.getForces(asNumpy=True).value_in_unit(unit.kilojoule_per_mole / unit.nanometer).ravel()
