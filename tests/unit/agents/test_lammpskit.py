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
