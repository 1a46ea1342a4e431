"""LAMMPS for the verifiers of the LAMMPS tasks: run it in a child process, read back what its log says.

The second verifier helper (beside :mod:`verifykit`), for the tasks built FROM ``westbench/lammps-base``.
Standard library only, because it runs inside the task image; ``tools/sync-verifykit.py`` copies it into the
``tests/`` folder of every task whose image is ``westbench/lammps-base`` and a unit test keeps the copies identical.

Why a child process: Debian's LAMMPS is built without C++ exceptions, so an error inside its Python module ends
the whole verifier (no ``checks.json``, no reason, the reward left at the 0 that ``test.sh`` wrote first). Run as
``lmp`` in a child, the same error fails one check with LAMMPS's own ``ERROR:`` line, and a runaway input is
stopped by the time limit.

Reading a log: LAMMPS echoes every input command into ``log.lammps`` (:func:`echo_commands`), prints a version
header (:func:`version`), a thermo block per ``run``/``minimize`` (:func:`thermo_blocks`) and the atom count of
every loop (:func:`loop_atoms`). A verifier reads the stated settings back from there, not from the agent's input
file, which need not be what ran.

Examples
--------
>>> log = '''LAMMPS (29 Sep 2021 - Update 2)
... units metal
... pair_style eam   # the potential
... Step Temp PotEng
...        0          300   -906.2
...      100    301.5   -905.9
... Loop time of 0.05 on 1 procs for 100 steps with 256 atoms
... '''
>>> version(log), echo_commands(log)[1], loop_atoms(log)
('29 Sep 2021 - Update 2', ['pair_style', 'eam'], [256])
>>> header, rows = thermo_blocks(log)[0]
>>> header, rows[-1], final_thermo(log)["poteng"]
(['Step', 'Temp', 'PotEng'], [100.0, 301.5, -905.9], -905.9)
>>> setting(log, "units"), setting(log, "timestep")
(['metal'], None)
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile

#: The LAMMPS executable of the task image (Debian's, serial).
LMP = "lmp"
#: The prefix :func:`evaluate` prints its values after, so no other output line is mistaken for one.
_MARK = "WESTBENCH-VALUE"


class LammpsError(AssertionError):
    """LAMMPS stopped with an error (its ``ERROR:`` line and the command it was running) or ran past its time limit.

    An ``AssertionError``, so that inside a verifier's check it fails that check with LAMMPS's own reason.
    """


def run(commands: str, cwd: str | None = None, timeout: float = 120) -> str:
    """Run LAMMPS input ``commands`` with ``lmp`` in a child process and return everything it printed.

    ``cwd`` is where relative file names resolve (a fresh temporary folder if not given); the run writes no
    ``log.lammps``. A failed run raises :class:`LammpsError` naming LAMMPS's error and the command that caused it.
    """
    cwd = cwd or tempfile.mkdtemp(prefix="lammps-")
    path = os.path.join(cwd, "in.westbench-verifier")
    with open(path, "w") as handle:
        handle.write(commands.rstrip("\n") + "\n")
    try:
        done = subprocess.run(
            [LMP, "-in", path, "-log", "none", "-nocite"],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=timeout,
            env={**os.environ, "OMP_NUM_THREADS": "1"},
        )
    except subprocess.TimeoutExpired:
        raise LammpsError(f"LAMMPS ran past the verifier's {timeout:g} s limit") from None
    output = done.stdout
    error = re.search(r"^ERROR.*$", output + "\n" + done.stderr, re.M)
    if done.returncode != 0 or error:
        last = re.search(r"^Last command: (.*)$", output, re.M)
        reason = error.group(0) if error else f"lmp exited with code {done.returncode}: {done.stderr.strip()[-300:]}"
        raise LammpsError(reason + (f" (at: {last.group(1)})" if last else ""))
    return output


def evaluate(commands: str, cwd: str | None = None, timeout: float = 120, **expressions: str) -> dict[str, float]:
    """Run ``commands``, then print each of ``expressions`` (LAMMPS equal-style formulas, thermo keywords included)
    to full precision; return them by name.

    >>> evaluate("units lj", x="2*3")  # doctest: +SKIP
    {'x': 6.0}
    """
    prints = "\n".join(f'print "{_MARK} {name} $({formula}:%.17g)"' for name, formula in expressions.items())
    output = run(commands.rstrip("\n") + "\n" + prints, cwd=cwd, timeout=timeout)
    found = dict(re.findall(rf"^{_MARK} (\w+) (\S+)$", output, re.M))
    missing = sorted(set(expressions) - set(found))
    if missing:
        raise LammpsError(f"LAMMPS printed no value for {missing}")
    return {name: float(found[name]) for name in expressions}


def rerun_thermo(
    setup: str, dump: str, cwd: str | None = None, timeout: float = 120, fields: str = "x y z vx vy vz"
) -> dict[int, dict[str, float]]:
    """``{step: {thermo column: value}}`` of every frame of ``dump`` under the model ``setup`` defines (units, box,
    atoms, pair style, ``thermo_style`` and ``thermo_modify``: everything but the ``rerun``), by LAMMPS's own
    ``rerun`` of the dump's ``fields`` and box. A dump ties to the run that wrote it when the rerun gives back the
    log's values (:func:`largest_difference`)."""
    screen = run(f"{setup.rstrip()}\nthermo 1\nrerun {dump} dump {fields} box yes", cwd=cwd, timeout=timeout)
    return {int(row[0]): dict(zip(header, row)) for header, rows in thermo_blocks(screen) for row in rows}


def rerun_energies(setup: str, dump: str, cwd: str | None = None, timeout: float = 120) -> dict[int, float]:
    """``{step: PotEng}`` of every frame of ``dump`` (positions and box) under the model ``setup`` defines
    (:func:`rerun_thermo`; ``setup`` sets ``thermo_style`` with ``pe``, and ``norm`` as the checked log has it)."""
    frames = rerun_thermo(setup, dump, cwd=cwd, timeout=timeout, fields="x y z")
    return {step: values["PotEng"] for step, values in frames.items()}


def largest_difference(rerun: dict, block: tuple, steps, columns) -> float:
    """The largest ``|rerun - log| / (|log| + 1)`` over ``steps`` and thermo ``columns``, between a
    :func:`rerun_thermo` result and a log's thermo ``block`` (header, rows); an AssertionError naming a step missing
    from either.

    >>> block = (["Step", "PotEng"], [[0, -6.0], [10, -5.0]])
    >>> round(largest_difference({0: {"PotEng": -6.0}, 10: {"PotEng": -5.06}}, block, [0, 10], ["PotEng"]), 9)
    0.01
    """
    head, rows = block
    logged = {int(row[0]): dict(zip(head, row)) for row in rows}
    worst = 0.0
    for step in steps:
        assert step in rerun and step in logged, f"step {step} missing from the rerun or the log"
        for name in columns:
            a, b = rerun[step][name], logged[step][name]
            worst = max(worst, abs(a - b) / (abs(b) + 1.0))
    return worst


def same_first_rows(block: tuple, rerun: tuple, count: int, tolerance: float = 1e-6) -> None:
    """Whether a log's thermo ``block`` (header, rows) starts with a rerun's block (its ``count`` rows), value by
    value within ``tolerance`` relative plus ``tolerance`` absolute: the log came from the input that was rerun. An
    AssertionError names the first column and step that differ, or the columns or row counts where they differ.

    >>> log, rerun = (["Step", "Temp"], [[0, 1.0], [10, 1.2], [20, 1.1]]), (["Step", "Temp"], [[0, 1.0], [10, 1.3]])
    >>> try:
    ...     same_first_rows(log, rerun, 2)
    ... except AssertionError as exc:
    ...     print(str(exc).splitlines()[0])
    Temp at step 10: 1.2 vs 1.3
    """
    head, rows = block
    again_head, again_rows = rerun
    assert again_head == head, f"rerun columns {again_head}"
    assert len(again_rows) == count and len(rows) >= count, f"{len(again_rows)} rerun rows"
    for mine, theirs in zip(rows[:count], again_rows, strict=True):
        for name, a, b in zip(head, mine, theirs, strict=True):
            assert abs(a - b) <= tolerance * max(abs(a), abs(b)) + tolerance, (
                f"{name} at step {mine[0]:.0f}: {a} vs {b}"
            )


def read_text(path: str) -> str:
    """The text of a delivered file, or "" where it is missing or unreadable (each check needing it then fails).

    >>> read_text("/nonexistent/in.lj")
    ''
    """
    try:
        with open(path) as handle:
            return handle.read()
    except (OSError, UnicodeDecodeError):
        return ""


def fresh_folder(path: str) -> str:
    """``path`` emptied and made again (a rerun must not read a file an earlier one left); returns ``path``."""
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    return path


def cut_run(text: str, steps: int, which: str = "first", name: str = "the delivered input") -> str:
    r"""An input ``text`` up to its first (``which="first"``) or last (``"last"``) ``run`` command, that run
    shortened to ``steps``: a delivered input rerun briefly. An AssertionError naming ``name`` where it has no run.

    >>> cut_run("units lj\nrun 1000  # equilibrate\nrun 5000", 10), cut_run("units lj\nrun 1000\nrun 5000", 10, "last")
    ('units lj\nrun 10', 'units lj\nrun 1000\nrun 10')
    """
    lines = text.splitlines()
    found = [k for k, line in enumerate(lines) if line.split("#")[0].split()[:1] == ["run"]]
    if not found:
        raise AssertionError(f"{name} has no run command")
    cut = found[0] if which == "first" else found[-1]
    return "\n".join(lines[:cut] + [f"run {steps}"])


def only(cmds: list[list[str]], name: str) -> list[str]:
    """The arguments of the one ``name`` command of ``cmds`` (an input echo, :func:`echo_commands`); an
    AssertionError saying how many there are where not exactly one.

    >>> only([["units", "lj"], ["run", "100"]], "units")
    ['lj']
    """
    found = [tokens[1:] for tokens in cmds if tokens[0] == name]
    assert len(found) == 1, f"{len(found)} '{name}' commands in the log's input echo (expected 1)"
    return found[0]


def data_box(text: str) -> tuple[int, list[float], list[float], list[float]]:
    r"""A LAMMPS data file's atom count, box lows, box lengths and tilt factors (xy, xz, yz; zeros if orthogonal).

    >>> data_box("x\n\n 4 atoms\n0 2 xlo xhi\n0 2 ylo yhi\n-1 3 zlo zhi\n")
    (4, [0.0, 0.0, -1.0], [2.0, 2.0, 4.0], [0.0, 0.0, 0.0])
    """
    count = re.search(r"^\s*(\d+)\s+atoms\s*$", text, re.M)
    assert count, "the data file states no atom count"
    lows, lengths = [], []
    for axis in "xyz":
        bounds = re.search(rf"^\s*(\S+)\s+(\S+)\s+{axis}lo\s+{axis}hi", text, re.M)
        assert bounds, f"the data file states no {axis}lo {axis}hi"
        lows.append(float(bounds.group(1)))
        lengths.append(float(bounds.group(2)) - float(bounds.group(1)))
    tilt = re.search(r"^\s*(\S+)\s+(\S+)\s+(\S+)\s+xy\s+xz\s+yz", text, re.M)
    return int(count.group(1)), lows, lengths, [float(t) for t in tilt.groups()] if tilt else [0.0, 0.0, 0.0]


def data_atoms(text: str, name: str = "the data file") -> list[list[str]]:
    r"""The rows of a LAMMPS data file's ``Atoms`` section, split into words (``name`` in the AssertionError where
    there is none).

    >>> data_atoms("2 atoms\n\nAtoms # atomic\n\n1 1 0 0 0\n2 1 1 1 1\n\nVelocities\n")
    [['1', '1', '0', '0', '0'], ['2', '1', '1', '1', '1']]
    """
    atoms = re.search(r"^Atoms.*?\n\s*\n(.*?)(?:\n\s*\n|\Z)", text, re.M | re.S)
    assert atoms, f"{name} has no Atoms section"
    return [line.split() for line in atoms.group(1).strip().splitlines()]


def keyword_triples(args: list[str]) -> dict[str, list]:
    """``{keyword: its three values}`` of a ``fix npt``/``nph``'s arguments after the style (temp, iso, aniso, tri
    and the per-axis keywords take start, stop and damping), every other keyword with its one value.

    >>> keyword_triples(["temp", "300", "300", "0.1", "iso", "0", "0", "1", "drag", "0.2"])
    {'temp': [300.0, 300.0, 0.1], 'iso': [0.0, 0.0, 1.0], 'drag': ['0.2']}
    """
    found, k = {}, 0
    while k < len(args):
        if args[k] in ("temp", "iso", "aniso", "tri", "x", "y", "z", "xy", "yz", "xz"):
            found[args[k]] = [float(v) for v in args[k + 1 : k + 4]]
            k += 4
        else:
            found[args[k]] = args[k + 1 : k + 2]
            k += 2
    return found


def pair_modify_state(cmds: list[list[str]]) -> dict[str, str]:
    """The shift and tail settings the echoed ``pair_modify`` commands leave (LAMMPS's defaults: no and no).

    >>> pair_modify_state([["pair_modify", "shift", "yes"], ["pair_modify", "tail", "yes", "shift", "no"]])
    {'shift': 'no', 'tail': 'yes'}
    """
    state = {"shift": "no", "tail": "no"}
    for tokens in cmds:
        if tokens[0] == "pair_modify":
            for key, value in zip(tokens[1:], tokens[2:], strict=False):
                if key in state:
                    state[key] = value
    return state


def run_steps(tokens: list[str]) -> int | None:
    """The number of steps of a ``run`` command's tokens (``['run', '20000']`` -> 20000), or None if it states none.

    >>> run_steps(["run", "2e4"]), run_steps(["run"])
    (20000, None)
    """
    try:
        return int(float(tokens[1]))
    except (IndexError, ValueError):
        return None


def version(log: str) -> str | None:
    """The version in a log's first line (``LAMMPS (29 Sep 2021 - Update 2)``), or None if it has none."""
    match = re.match(r"LAMMPS \((.+)\)", log)
    return match.group(1) if match else None


def echo_commands(log: str) -> list[list[str]]:
    """The input commands LAMMPS echoed into its log, as it ran them: token lists, comments dropped, in order.

    LAMMPS echoes a line with variables (``${n}``, ``$(expr)``) as written and again substituted: only the
    substituted one is kept (:func:`input_commands` keeps the written one). Left out: LAMMPS's own messages
    (``  create_atoms CPU = ...``), everything printed during a run (a ``fix print`` line) and what a ``print``
    command prints, so no printed text passes for a command LAMMPS ran.
    """
    return [text.split() for text, _ in _echo(log) if "$" not in text]


def commands(text: str) -> list[list[str]]:
    """Every command of an input file as written, as token lists (comments and blank lines dropped, variables kept).

    Compare it with :func:`input_commands` of the log that input wrote.

    >>> commands("variable n equal 5   # atoms per side\\nregion box block 0 ${n} 0 ${n} 0 ${n}\\n\\nrun 100")
    [['variable', 'n', 'equal', '5'], ['region', 'box', 'block', '0', '${n}', '0', '${n}', '0', '${n}'], ['run', '100']]
    """
    lines = (line.split("#")[0].split() for line in text.splitlines())
    return [tokens for tokens in lines if tokens and _COMMAND.fullmatch(tokens[0])]


def input_commands(log: str) -> list[list[str]]:
    """The input commands a log echoes, as the input wrote them: variables left unsubstituted.

    LAMMPS echoes a line with variables as written, then once more after each variable it substitutes (left to
    right); those progress lines are dropped here, so a log's :func:`input_commands` equals :func:`commands` of the
    input that wrote it. :func:`echo_commands` keeps the substituted line instead (what LAMMPS ran).

    >>> echo = ["variable n equal 5", "region box block 0 ${n} 0 ${n}", "region box block 0 5 0 ${n}"]
    >>> input_commands("\\n".join([*echo, "region box block 0 5 0 5"]))
    [['variable', 'n', 'equal', '5'], ['region', 'box', 'block', '0', '${n}', '0', '${n}']]
    """
    return [text.split() for text, written in _echo(log) if written]


def _echo(log: str) -> list[tuple[str, bool]]:
    """Every input line a log echoes (comment dropped) and whether it is as written (not a substitution echo)."""
    found, previous, printed, in_run = [], None, None, False
    for line in log.splitlines():
        if in_run or _THERMO_HEADER.match(line):  # a run prints no input echo, only its own output
            in_run = not line.startswith("Loop time")
            continue
        text = line.split("#")[0].strip()
        if printed is not None and printed.match(line.strip()):
            printed = None
            continue
        tokens, printed = text.split(), None
        if not tokens or not _COMMAND.fullmatch(tokens[0]) or _MESSAGE.match(line):
            continue
        found.append((text, previous is None or not _substitutes(previous, text)))
        previous = text if "$" in text else None
        if tokens[0] == "print":
            printed = _printed(text)
    return found


def _printed(command: str) -> re.Pattern:
    """What a ``print`` command writes, as a pattern: its text without quotes, each variable any text."""
    text = command.split(None, 1)[1] if len(command.split()) > 1 else ""
    quoted = re.match(r"(\"\"\"|\"|')(.*?)(\1|$)", text)
    text = quoted.group(2) if quoted else text.split()[0] if text.split() else ""
    parts = re.split(_VARIABLE, text)
    return re.compile(".*".join(re.escape(part) for part in parts[::2]))


def _substitutes(written: str, line: str) -> bool:
    """Whether ``line`` is ``written`` with its first variable (``${name}``, ``$(expression)``, ``$x``) replaced."""
    match = re.search(_VARIABLE, written)
    if match is None:
        return False
    head, tail = written[: match.start()], written[match.end() :]
    return len(line) >= len(head) + len(tail) and line.startswith(head) and line.endswith(tail)


def runs(log: str) -> list[tuple[list[str], dict[str, list[str]]]]:
    """Every ``run`` and ``minimize`` the log echoes, in order: its command tokens and the fixes active during it
    (``{fix id: tokens}``, after every ``fix`` and ``unfix`` before it).

    >>> [(command, sorted(fixes)) for command, fixes in runs("fix 1 all nve\\nrun 100\\nunfix 1\\nrun 200")]
    [(['run', '100'], ['1']), (['run', '200'], [])]
    """
    fixes, found = {}, []
    for tokens in echo_commands(log):
        if tokens[0] == "fix" and len(tokens) > 1:
            fixes[tokens[1]] = tokens
        elif tokens[0] == "unfix" and len(tokens) > 1:
            fixes.pop(tokens[1], None)
        elif tokens[0] in ("run", "minimize"):
            found.append((tokens, dict(fixes)))
    return found


#: A variable reference in an input line: ``${name}``, ``$(expression)`` or ``$x``.
_VARIABLE = r"\$(\{[^}]*\}|\([^)]*\)|\w)"
#: The header of a run's thermo output (``Step Temp E_pair ...``): what follows to ``Loop time`` is the run's.
_THERMO_HEADER = re.compile(r"^\s*Step\s")
#: A LAMMPS command name (``fix``, ``pair_style``, ``kspace_modify``); output lines start otherwise.
_COMMAND = re.compile(r"[a-z_]+(/[a-z_]+)*")
#: LAMMPS's own indented messages whose first word looks like a command (they are not echoed input).
_MESSAGE = re.compile(
    r"^\s+([\w/ ]+ CPU = |using |reading |orthogonal box|triclinic box|update every|max neighbors|master list|"
    r"ghost atom|binsize|pair build|stencil|bin:|attributes:|special bond|scanning |replicating )"
)


def setting(log: str, command: str) -> list[str] | None:
    """The arguments of the last ``command`` the log echoes (``setting(log, "timestep")`` -> ``['0.001']``), or None."""
    found = [tokens[1:] for tokens in echo_commands(log) if tokens[0] == command]
    return found[-1] if found else None


def thermo_blocks(log: str) -> list[tuple[list[str], list[list[float]]]]:
    """Every non-empty thermo block of the log, in order: its column names and its rows of numbers.

    A block runs from its ``Step ...`` header to the run's ``Loop time`` line; lines between that are not a row
    (a ``WARNING:`` in mid-run) are skipped. A run that never finished (a killed or crashed run) keeps the rows it
    printed: :func:`loop_atoms` counts the runs that finished.
    """
    blocks, header, rows = [], None, []
    for line in log.splitlines():
        tokens = line.split()
        if tokens[:1] == ["Step"]:
            header, rows = tokens, []
            blocks.append((header, rows))
        elif header is not None and line.startswith("Loop time"):
            header = None
        elif header is not None:
            try:
                values = [float(t) for t in tokens]
            except ValueError:
                continue
            if len(values) == len(header):
                rows.append(values)
    return [(h, r) for h, r in blocks if r]


def final_thermo(log: str) -> dict[str, float]:
    """The last thermo row of the log, by lower-case column name."""
    blocks = thermo_blocks(log)
    if not blocks:
        raise LammpsError("the log has no thermo output")
    header, rows = blocks[-1]
    return dict(zip([h.lower() for h in header], rows[-1]))


def last_run(log: str) -> tuple[list[str], list[list[float]], int | None, int | None]:
    """The log's last thermo block: its columns, its rows, its steps (the Step column's span) and its atoms (the
    ``Loop time`` line's count); steps and atoms are None if that run did not finish (no ``Loop time`` line after
    its rows, or fewer loops than the ``run``/``minimize`` commands the log echoes: one that crashed before its
    first row).

    >>> last_run("run 100\\nStep Temp\\n0 1.5\\n100 1.4\\nLoop time of 0.1 on 1 procs for 100 steps with 500 atoms")
    (['Step', 'Temp'], [[0.0, 1.5], [100.0, 1.4]], 100, 500)
    >>> last_run("run 100\\nStep Temp\\n0 1.5\\n50 1.4\\nERROR: Lost atoms: original 500 current 499")[2:]
    (None, None)
    """
    blocks = thermo_blocks(log)
    if not blocks:
        raise LammpsError("the log has no thermo output")
    columns, rows = blocks[-1]
    headers = [match.start() for match in re.finditer(r"^\s*Step\s", log, re.M)]
    after = log[headers[-1] :] if headers else log
    atoms = loop_atoms(log)
    commands_run = runs(log)
    if not loop_atoms(after) or (commands_run and len(atoms) < len(commands_run)):
        return columns, rows, None, None
    return columns, rows, round(rows[-1][0] - rows[0][0]), atoms[-1]


def loop_atoms(log: str) -> list[int]:
    """The atom count of every ``run``/``minimize`` the log reports (``Loop time of ... with N atoms``)."""
    return [int(n) for n in re.findall(r"^Loop time of .* with (\d+) atoms", log, re.M)]


def read_dump(path: str) -> list[tuple[int, list[list[float]], dict]]:
    """The frames of a LAMMPS text dump (``dump ... custom``/``atom``): per frame its timestep, its box bounds
    (three ``[lo, hi]``, tilt factors dropped) and ``{column: numpy array}`` in the order of atom ids when the
    dump has ``id`` (numpy, which every LAMMPS task image has). A malformed or cut frame is an ``AssertionError``
    naming the file and the line."""
    import numpy as np  # only here: the log readers above need the standard library alone

    frames, lines, i = [], open(path).read().splitlines(), 0
    while i < len(lines):
        if not lines[i].strip():
            i += 1
            continue
        header = lines[i : i + 9]
        assert len(header) == 9, f"{path} line {i + 1}: a frame header cut short ({len(header)} of its 9 lines)"
        for offset, item in (
            (0, "ITEM: TIMESTEP"),
            (2, "ITEM: NUMBER OF ATOMS"),
            (4, "ITEM: BOX BOUNDS"),
            (8, "ITEM: ATOMS"),
        ):
            assert header[offset].startswith(item), f"{path} line {i + offset + 1}: {header[offset][:60]!r}, not {item}"
        step, n = int(header[1]), int(header[3])
        bounds = [[float(v) for v in header[5 + k].split()[:2]] for k in range(3)]
        columns = header[8].split()[2:]
        rows = [line.split() for line in lines[i + 9 : i + 9 + n]]
        assert len(rows) == n, f"{path}: the frame at step {step} has {len(rows)} of its {n} atoms"
        short = next((k for k, row in enumerate(rows) if len(row) != len(columns)), None)
        assert short is None, (
            f"{path} line {i + 10 + (short or 0)}: {len(rows[short or 0])} values for {len(columns)} columns"
        )
        data = np.array(rows, dtype=float).reshape(n, len(columns))
        order = np.argsort(data[:, columns.index("id")], kind="stable") if "id" in columns else np.arange(n)
        frames.append((step, bounds, {c: data[order, k] for k, c in enumerate(columns)}))
        i += 9 + n
    return frames
