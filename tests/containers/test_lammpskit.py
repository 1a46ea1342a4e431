"""The LAMMPS verifier helper against the real `lmp` of westbench/lammps-base: values to full precision, and an
input error or a runaway input failing one check with LAMMPS's reason instead of ending the verifier."""

import json
import shutil
import subprocess

import pytest

from ..conftest import REPO
from .test_agents_pipeline import agents_machine  # noqa: F401 (session fixture)

pytestmark = [pytest.mark.container]

IMAGE = "westbench/lammps-base:bookworm-1"

SCRIPT = """
import json, lammpskit
from verifykit import Checks
lattice = "units lj\\nlattice fcc 0.8442\\nregion b block 0 3 0 3 0 3\\ncreate_box 1 b\\n"
lattice += "create_atoms 1 box\\nmass 1 1\\n"
lattice += "pair_style lj/cut 2.5\\npair_coeff 1 1 1 1\\nrun 0"
values = lammpskit.evaluate(lattice, pe="pe", atoms="atoms")
checks = Checks("/w/out")
with checks.check("a missing data file fails this check only"):
    lammpskit.run("units lj\\nread_data /nonexistent.data")
with checks.check("a runaway input is stopped"):
    lammpskit.run("variable a loop 1000000000\\nlabel l\\nnext a\\njump SELF l", timeout=3)
with checks.check("the run after them still works"):
    assert lammpskit.evaluate(lattice, atoms="atoms")["atoms"] == 108
with checks.check("a rerun of a real dump gives back the log's values; a dump of another run does not"):
    model = lattice.replace("run 0", "thermo_style custom step pe press\\nthermo_modify format float %.12g")
    screen = lammpskit.run(
        model + "\\nvelocity all create 1.0 87287\\nfix 1 all nve\\nthermo 10\\n"
        "dump d all custom 10 traj.dump id type x y z vx vy vz\\ndump_modify d format float %.15g\\nrun 50",
        cwd=lammpskit.fresh_folder("/tmp/md"),
    )
    block = lammpskit.thermo_blocks(screen)[-1]
    lammpskit.same_first_rows(block, block, len(block[1]))
    again = lammpskit.rerun_thermo(model, "/tmp/md/traj.dump", cwd=lammpskit.fresh_folder("/tmp/rerun"))
    values["rerun_worst"] = lammpskit.largest_difference(again, block, range(0, 51, 10), ("PotEng", "Press"))
    hotter = "\\nvelocity all create 2.0 87287\\nfix 1 all nve\\nthermo 10\\nrun 50"
    hotter = lammpskit.run(model + hotter, cwd=lammpskit.fresh_folder("/tmp/b"))
    values["other_run_worst"] = lammpskit.largest_difference(
        again, lammpskit.thermo_blocks(hotter)[-1], range(10, 51, 10), ("PotEng", "Press")
    )
checks.finish()
print(json.dumps(values))
"""


def test_lammps_values_errors_and_time_limits_in_the_image(agents_machine, tmp_path):  # noqa: F811
    for name in ("lammpskit.py", "verifykit.py"):
        shutil.copy(REPO / "src" / "westbench" / "agents" / name, tmp_path)
    (tmp_path / "check.py").write_text(SCRIPT)
    done = subprocess.run(
        [
            "docker",
            "run",
            "--rm",
            "--network",
            "none",
            "-v",
            f"{tmp_path}:/w",
            "-w",
            "/w",
            IMAGE,
            "python3",
            "check.py",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    values = json.loads(done.stdout.strip().splitlines()[-1])
    # 108 atoms of a perfect fcc LJ lattice at density 0.8442, cut at 2.5 sigma (unshifted): -6.7733681 per atom
    assert values["atoms"] == 108 and abs(values["pe"] - -6.7733681) < 1e-7 and values["pe"] != round(values["pe"], 7)
    checks = {c["name"]: c for c in json.loads((tmp_path / "out" / "checks.json").read_text())["checks"]}
    missing, runaway, after, _ = checks.values()
    assert not missing["passed"] and "ERROR: Cannot open file /nonexistent.data" in missing["reason"]
    assert not runaway["passed"] and "3 s limit" in runaway["reason"]
    assert after["passed"]
    # the dump rerun through LAMMPS reproduces the log it came from to print precision, and not another run's (the
    # dump is written at 15 digits: at LAMMPS's default %g, 6 digits, the rerun differed by 1.4e-5)
    assert checks["a rerun of a real dump gives back the log's values; a dump of another run does not"]["passed"]
    assert values["rerun_worst"] < 1e-9 and values["other_run_worst"] > 1e-3
