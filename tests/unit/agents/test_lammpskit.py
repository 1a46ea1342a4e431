"""The LAMMPS verifier helper's log reading (its runs of `lmp` are tested in the image: tests/containers)."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from westbench.agents import lammpskit

# A log as LAMMPS 29 Sep 2021 writes it (abridged from a real run in westbench/lammps-base).
LOG = """LAMMPS (29 Sep 2021 - Update 2)
  using 1 OpenMP thread(s) per MPI task
units lj
   lattice fcc 0.8442   # indented
Lattice spacing in x,y,z = 1.6795962 1.6795962 1.6795962
region b block 0 3 0 3 0 3
create_box 1 b
Created orthogonal box = (0.0000000 0.0000000 0.0000000) to (5.0387886 5.0387886 5.0387886)
  1 by 1 by 1 MPI processor grid
create_atoms 1 box
Created 108 atoms
  using lattice units in orthogonal box = (0.0000000 0.0000000 0.0000000) to (5.0387886 5.0387886 5.0387886)
  create_atoms CPU = 0.000 seconds
variable t equal 0.005
timestep ${t}
timestep 0.005
run 0
Neighbor list info ...
  update every 1 steps, delay 10 steps, check yes
  (1) pair lj/cut, perpetual
      pair build: half/bin/atomonly/newton
Step Temp E_pair E_mol TotEng Press
       0            0   -6.7733681            0   -6.7733681   -6.2353173
Loop time of 2.804e-06 on 1 procs for 0 steps with 108 atoms
""".replace("Press\n", "Press \n").replace("3\nLoop", "3 \nLoop")  # LAMMPS ends thermo lines with a space


def test_the_echoed_commands_are_the_input_and_not_lammpss_messages():
    commands = lammpskit.echo_commands(LOG)
    assert [c[0] for c in commands] == [
        "units", "lattice", "region", "create_box", "create_atoms", "variable", "timestep", "run",
    ]  # fmt: skip
    assert lammpskit.setting(LOG, "timestep") == ["0.005"]  # the substituted echo, not `timestep ${t}`
    assert lammpskit.setting(LOG, "fix") is None
    assert lammpskit.version(LOG) == "29 Sep 2021 - Update 2" and lammpskit.version("units lj") is None
    assert lammpskit.loop_atoms(LOG) == [108]
    assert lammpskit.final_thermo(LOG) == {
        "step": 0.0, "temp": 0.0, "e_pair": -6.7733681, "e_mol": 0.0, "toteng": -6.7733681, "press": -6.2353173,
    }  # fmt: skip


def test_a_log_without_thermo_output_is_an_assertion_naming_it():
    with pytest.raises(AssertionError, match="no thermo output"):
        lammpskit.final_thermo("LAMMPS (29 Sep 2021)\nunits lj\n")


columns = st.lists(st.from_regex(r"[A-Za-z_]{1,8}", fullmatch=True), min_size=1, max_size=6, unique=True)
numbers = st.floats(allow_nan=False, allow_infinity=False, width=32)


@given(
    st.lists(
        columns.flatmap(
            lambda c: st.tuples(st.just(c), st.lists(st.lists(numbers, min_size=len(c), max_size=len(c))))
        ).filter(lambda block: block[0][0] != "Step"),
        max_size=4,
    )
)
def test_thermo_blocks_read_back_every_row_of_every_block_as_written(blocks):
    text = ["LAMMPS (29 Sep 2021 - Update 2)"]
    for header, rows in blocks:
        text += ["run 10", " ".join(["Step", *header])]
        text += ["  ".join(f"{v:.10g}" for v in [i, *row]) for i, row in enumerate(rows)]
        text += ["Loop time of 0.1 on 1 procs for 10 steps with 8 atoms", ""]
    read = lammpskit.thermo_blocks("\n".join(text))
    written = [(["Step", *h], [[float(i), *[float(f"{v:.10g}") for v in r]] for i, r in enumerate(rows)])
               for h, rows in blocks if rows]  # fmt: skip
    assert read == written


def test_runs_carry_the_fixes_active_during_each_and_thermo_blocks_skip_warnings():
    log = LOG.replace("run 0\n", "fix 1 all nvt temp 1.5 1.5 0.5\nrun 0\n") + (
        "unfix 1\nfix 2 all nve\nrun 200\nStep PotEng\n0 -6.1\nWARNING: Lost atoms? (src/x.cpp:1)\n200 -6.2\n"
        "Loop time of 0.1 on 1 procs for 200 steps with 108 atoms\n"
    )
    assert [(command, sorted(fixes)) for command, fixes in lammpskit.runs(log)] == [
        (["run", "0"], ["1"]),
        (["run", "200"], ["2"]),
    ]
    assert lammpskit.thermo_blocks(log)[-1] == (["Step", "PotEng"], [[0.0, -6.1], [200.0, -6.2]])
    assert lammpskit.loop_atoms(log) == [108, 108]


def test_a_dump_is_read_in_the_order_of_atom_ids_and_a_truncated_frame_names_itself(tmp_path):
    frame = "ITEM: TIMESTEP\n{step}\nITEM: NUMBER OF ATOMS\n2\nITEM: BOX BOUNDS pp pp pp\n0 5\n0 5\n0 6\n"
    frame += "ITEM: ATOMS id type x y z\n2 1 1.5 0 0\n1 1 0.5 0 0\n"
    path = tmp_path / "traj.lammpstrj"
    path.write_text(frame.format(step=0) + frame.format(step=200))
    frames = lammpskit.read_dump(str(path))
    assert [step for step, _, _ in frames] == [0, 200] and frames[1][1] == [[0, 5], [0, 5], [0, 6]]
    assert frames[0][2]["id"].tolist() == [1, 2] and frames[0][2]["x"].tolist() == [0.5, 1.5]
    path.write_text(frame.format(step=0) + frame.format(step=200).rsplit("\n", 2)[0] + "\n")
    with pytest.raises(AssertionError, match="step 200 has 1 of its 2 atoms"):
        lammpskit.read_dump(str(path))
    whole = frame.format(step=0) + frame.format(step=200)
    for cut, message in ((len(whole) - 4, "line 22: 3 values for 5 columns"), (len(frame) + 30, "cut short")):
        path.write_text(whole[:cut])
        with pytest.raises(AssertionError, match=message):
            lammpskit.read_dump(str(path))


# The input behind LOG, as a user wrote it (its variable line unsubstituted, comments kept).
INPUT = """units lj
   lattice fcc 0.8442   # indented
region b block 0 3 0 3 0 3
create_box 1 b
create_atoms 1 box

variable t equal 0.005
timestep ${t}
run 0
"""


def test_a_log_gives_back_its_input_as_written_and_as_run():
    assert lammpskit.input_commands(LOG) == lammpskit.commands(INPUT)
    assert ["timestep", "${t}"] in lammpskit.input_commands(LOG)
    assert ["timestep", "0.005"] in lammpskit.echo_commands(LOG)
    assert lammpskit.commands(INPUT.replace("${t}", "0.005")) != lammpskit.input_commands(LOG)


names = st.from_regex(r"[a-z]{1,4}", fullmatch=True)
plain = st.from_regex(r"[a-z0-9.]{1,6}", fullmatch=True)
reference = names.map(lambda n: f"${{{n}}}") | names.map(lambda n: f"$(v_{n}*2)") | st.sampled_from(["$a", "$b"])
command = st.tuples(
    st.from_regex(r"[a-z_]{1,10}(/[a-z]{1,5})?", fullmatch=True), st.lists(plain | reference, max_size=5)
)


@given(st.lists(command, min_size=1, max_size=8), st.lists(plain, min_size=1, max_size=3))
def test_input_commands_undo_lammpss_substitution_echo_for_any_input(lines, values):
    # LAMMPS echoes each input line as read, then once per variable it substitutes (left to right)
    text, log = [], ["LAMMPS (29 Sep 2021 - Update 2)"]
    for index, (name, arguments) in enumerate(lines):
        line = " ".join([name, *arguments])
        text.append(line)
        log.append(line)
        for k, argument in enumerate(arguments):
            if argument.startswith("$"):
                arguments = [*arguments[:k], values[(index + k) % len(values)], *arguments[k + 1 :]]
                log.append(" ".join([name, *arguments]))
    assert lammpskit.input_commands("\n".join(log)) == lammpskit.commands("\n".join(text))


def test_last_run_is_none_where_the_run_did_not_finish():
    finished = lammpskit.last_run(LOG)
    assert finished[2:] == (0, 108) and finished[0][0] == "Step"
    crashed = LOG + "run 100\nStep Temp\n0 1.5\n50 1.6\nERROR: Lost atoms: original 108 current 107 (src/x.cpp:1)\n"
    assert lammpskit.last_run(crashed) == (["Step", "Temp"], [[0.0, 1.5], [50.0, 1.6]], None, None)
    # a run that stopped before its first row: the block before it finished, but the log's last run did not
    assert lammpskit.last_run(LOG + "run 100\nERROR: Lost atoms at setup\n")[2:] == (None, None)
    # LAMMPS's screen output echoes no commands: the Loop line after the last block is what counts
    screen = "Step Temp\n0 1.5\n100 1.4\nLoop time of 0.1 on 1 procs for 100 steps with 500 atoms\n"
    assert lammpskit.last_run(screen)[2:] == (100, 500)


# A real log of westbench/lammps-base (LAMMPS 29 Sep 2021): variables substituted one by one, a comment, a print.
PRINTING_INPUT = """variable n equal 3
variable d equal 0.8442   # density
units lj
lattice fcc ${d}
region box block 0 ${n} 0 ${n} 0 $(v_n*1)   # a comment ${n}
create_box 1 box
print "timestep ${n}"
"""
PRINTING_LOG = """LAMMPS (29 Sep 2021 - Update 2)
  using 1 OpenMP thread(s) per MPI task
variable n equal 3
variable d equal 0.8442   # density
units lj
lattice fcc ${d}
lattice fcc 0.8442
Lattice spacing in x,y,z = 1.6795962 1.6795962 1.6795962
region box block 0 ${n} 0 ${n} 0 $(v_n*1)   # a comment ${n}
region box block 0 3 0 ${n} 0 $(v_n*1)
region box block 0 3 0 3 0 $(v_n*1)
region box block 0 3 0 3 0 3
create_box 1 box
Created orthogonal box = (0.0000000 0.0000000 0.0000000) to (5.0387886 5.0387886 5.0387886)
  1 by 1 by 1 MPI processor grid
print "timestep ${n}"
timestep 3
Total wall time: 0:00:00
"""  # LAMMPS ends its substitution echoes with the comment's spaces: stripped here, as the reader strips them


def test_printed_text_never_passes_for_a_command_lammps_ran():
    # `print` output and what a run prints (fix print) look like commands; an agent could print a setting it never
    # ran: neither reading of the log may take them for input
    assert lammpskit.input_commands(PRINTING_LOG) == lammpskit.commands(PRINTING_INPUT)
    assert lammpskit.setting(PRINTING_LOG, "region") == ["box", "block", "0", "3", "0", "3", "0", "3"]
    assert lammpskit.setting(PRINTING_LOG, "timestep") is None
    during_run = LOG.replace("Loop time", "timestep 0.001\nfix 9 all nvt temp 1 1 0.1\nLoop time")
    assert lammpskit.setting(during_run, "timestep") == ["0.005"] and lammpskit.runs(during_run)[-1][1] == {}
    assert lammpskit.input_commands(during_run) == lammpskit.input_commands(LOG)
    # LAMMPS's timing messages, one word or several before CPU (fix shake's), are not input either
    shake = LOG.replace("run 0\n", "fix 2 all shake 1e-4 20 0 b 1 a 1\n  find clusters CPU = 0.000 seconds\nrun 0\n")
    assert lammpskit.echo_commands(shake)[-2:] == [["fix", "2", "all", "shake", "1e-4", "20", "0", "b", "1", "a", "1"],
                                                  ["run", "0"]]  # fmt: skip


LINES = st.lists(
    st.one_of(
        st.sampled_from(["units lj", "run 100", "  run 5  # short", "# run 9", "thermo 10", "runs 3", "print run"]),
        st.integers(0, 10**6).map(lambda n: f"run {n}"),
    ),
    max_size=12,
)


@given(LINES, st.integers(1, 10**5), st.sampled_from(["first", "last"]))
def test_cut_run_keeps_every_line_before_the_chosen_run_and_shortens_it(lines, steps, which):
    runs = [k for k, line in enumerate(lines) if line.split("#")[0].split()[:1] == ["run"]]
    if not runs:
        with pytest.raises(AssertionError, match="in.lj has no run command"):
            lammpskit.cut_run("\n".join(lines), steps, which, name="in.lj")
        return
    cut = runs[0] if which == "first" else runs[-1]
    assert lammpskit.cut_run("\n".join(lines), steps, which).splitlines() == lines[:cut] + [f"run {steps}"]


def test_only_names_how_many_commands_there_are_where_not_one():
    echo = [["fix", "1", "all", "nve"], ["fix", "2", "all", "langevin"], ["units", "metal"]]
    assert lammpskit.only(echo, "units") == ["metal"]
    for name, count in (("fix", 2), ("timestep", 0)):
        with pytest.raises(AssertionError, match=rf"{count} '{name}' commands in the log's input echo \(expected 1\)"):
            lammpskit.only(echo, name)


def test_a_data_files_box_and_atoms_read_back_and_a_missing_part_is_named(tmp_path):
    text = (
        "LAMMPS data file\n\n 2 atoms\n 1 atom types\n\n -1.5 2.5 xlo xhi\n0 3 ylo yhi\n0 4 zlo zhi\n"
        " 0.5 0 0 xy xz yz\n\nAtoms # atomic\n\n1 1 0.0 0.0 0.0\n2 1 1.0 1.0 1.0\n\nVelocities\n\n1 0 0 0\n2 0 0 0\n"
    )
    assert lammpskit.data_box(text) == (2, [-1.5, 0.0, 0.0], [4.0, 3.0, 4.0], [0.5, 0.0, 0.0])
    assert lammpskit.data_atoms(text) == [["1", "1", "0.0", "0.0", "0.0"], ["2", "1", "1.0", "1.0", "1.0"]]
    with pytest.raises(AssertionError, match="states no zlo zhi"):
        lammpskit.data_box(text.replace("zlo zhi", "z bounds"))
    with pytest.raises(AssertionError, match="slab.data has no Atoms section"):
        lammpskit.data_atoms(text.replace("Atoms", "Coords"), "slab.data")
    (tmp_path / "in.lj").write_bytes(b"\xff\xfe binary")
    assert lammpskit.read_text(str(tmp_path / "in.lj")) == "" == lammpskit.read_text(str(tmp_path / "missing"))
    folder = tmp_path / "rerun"
    (folder / "old").mkdir(parents=True)
    assert lammpskit.fresh_folder(str(folder)) == str(folder) and not any(folder.iterdir())
