"""The verifier helper always leaves a reward, and a per-check detail file."""

import json
import subprocess
import sys

import pytest

from westbench.agents import verifykit

from ...conftest import REPO


def test_failed_checks_lower_correctness_with_reasons(tmp_path):
    checks = verifykit.Checks(str(tmp_path))
    with checks.check("ok"):
        pass
    with checks.check("bad"):
        assert 1 == 2, "one is not two"
    checks.require("flag", False, "flag not set")
    reward = checks.finish()
    assert reward == {
        "correctness": round(1 / 3, 6),
        "checks_fraction": round(1 / 3, 6),
        "checks_passed": 1,
        "checks_total": 3,
        "format_passed": 0,
        "format_total": 0,
        "science_passed": 1,
        "science_total": 3,
    }
    detail = json.loads((tmp_path / "checks.json").read_text())
    reasons = [c["reason"] for c in detail["checks"]]
    assert reasons[0] == "" and reasons[1].startswith("AssertionError: one is not two") and reasons[2] == "flag not set"
    assert json.loads((tmp_path / "reward.json").read_text()) == reward


def test_a_crashing_verifier_scores_zero_with_the_reason(tmp_path):
    def verify(checks):
        with checks.check("fine"):
            pass
        raise SystemExit("interpreter gone")

    assert verifykit.main(verify, str(tmp_path)) == 1
    assert json.loads((tmp_path / "reward.json").read_text())["correctness"] == 0.0
    assert "SystemExit: interpreter gone" in json.loads((tmp_path / "checks.json").read_text())["error"]


def test_a_task_verifier_scores_zero_on_empty_deliverables(tmp_path):
    """A real task verifier run outside a container: no deliverables, every check fails, a reward is written."""
    tests = REPO / "tasks" / "refuse-unstable-timestep" / "tests"
    run = subprocess.run(
        [sys.executable, "verify.py"],
        cwd=tests,
        capture_output=True,
        text=True,
        timeout=60,
        # no bytecode: a __pycache__ left in the task's tests/ would change its fingerprint
        env={"WESTBENCH_VERIFIER_DIR": str(tmp_path), "PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1"},
    )
    assert (tmp_path / "reward.json").is_file(), run.stderr[-2000:]
    reward = json.loads((tmp_path / "reward.json").read_text())
    checks = json.loads((tmp_path / "checks.json").read_text())
    assert reward["correctness"] == 0.0 and reward["checks_total"] >= 5
    assert reward["checks_total"] == len(checks["checks"]) and not any(c["passed"] for c in checks["checks"])


def test_format_checks_earn_no_partial_credit(tmp_path):
    """Made-up numbers in the right format: every file parses, every recomputed number is wrong -> 0, not 0.5."""
    checks = verifykit.Checks(str(tmp_path))
    checks.require("free_energy.json readable", True)
    checks.require("samples_per_window is a list of 11 ints", True, kind="format")
    checks.require("MBAR Delta F within 3 standard errors", False, "12 kT")
    checks.require("decorrelation matches alchemlyb's statistical inefficiency", False, "invented counts")
    reward = checks.finish()
    assert reward["correctness"] == 0.0 and reward["checks_fraction"] == 0.5
    assert (reward["format_passed"], reward["format_total"], reward["science_passed"], reward["science_total"]) == (
        2,
        2,
        0,
        2,
    )
    kinds = [c["kind"] for c in json.loads((tmp_path / "checks.json").read_text())["checks"]]
    assert kinds == ["format", "format", "science", "science"]
    half = verifykit.Checks(str(tmp_path))
    half.require("out.json readable", True)
    half.require("value A recomputed", True)
    half.require("value B recomputed", False)
    assert half.finish()["correctness"] == 0.5  # partial credit comes from science checks only
    broken = verifykit.Checks(str(tmp_path))
    broken.require("out.json readable", False)
    broken.require("value A recomputed", True)
    assert broken.finish()["correctness"] == 0.0  # a missing or unparseable deliverable: no credit at all


def test_every_include_of_a_topology_is_resolved_in_every_branch(tmp_path):
    """The posre.itp that grompp without -DPOSRES never opens is still required; nested includes are followed."""
    library = tmp_path / "share" / "top"
    (library / "amber99sb-ildn.ff").mkdir(parents=True)
    (library / "amber99sb-ildn.ff" / "forcefield.itp").write_text("[ defaults ]\n")
    out = tmp_path / "output"
    out.mkdir()
    (out / "topol.top").write_text(
        '#include "amber99sb-ildn.ff/forcefield.itp"\n#include "topol_Protein.itp"\n'
        "#ifdef POSRES_WATER\n[ position_restraints ]\n#endif\n"
    )
    (out / "topol_Protein.itp").write_text(
        '[ moleculetype ]\n#ifdef POSRES\n#include "posre_Protein.itp"\n#endif\n#include "/etc/hostname"\n'
    )
    found = verifykit.topology_includes(str(out / "topol.top"), library_dirs=[str(library)])
    assert found["defines"] == ["POSRES_WATER", "POSRES"]
    assert found["missing"][0] == 'topol_Protein.itp: #include "posre_Protein.itp"'
    assert "neither delivered nor part of GROMACS" in found["missing"][1]  # a file outside the deliverables
    (out / "posre_Protein.itp").write_text("[ position_restraints ]\n")
    (out / "topol_Protein.itp").write_text('#ifdef POSRES\n#include "posre_Protein.itp"\n#endif\n')
    found = verifykit.topology_includes(str(out / "topol.top"), library_dirs=[str(library)])
    assert found["missing"] == [] and len(found["included"]) == 3


def fake_gmx(folder, body):
    """A `gmx` on PATH that runs ``body`` (sh)."""
    folder.mkdir()
    script = folder / "gmx"
    script.write_text("#!/bin/sh\n" + body)
    script.chmod(0o755)
    return folder


def test_gmx_runs_quietly_on_one_thread_in_its_folder_with_its_prompts_answered(tmp_path, monkeypatch):
    bin_dir = fake_gmx(tmp_path / "bin", 'echo "args: $*"; echo "threads: $OMP_NUM_THREADS"; pwd; cat; echo oops >&2\n')
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    monkeypatch.setenv("OMP_NUM_THREADS", "8")
    work = tmp_path / "work"
    work.mkdir()
    code, log = verifykit.gmx("energy", "-f", "ener.edr", cwd=str(work), stdin="Potential\n\n")
    assert code == 0
    assert log.splitlines() == ["args: -quiet energy -f ener.edr", "threads: 1", str(work), "Potential", "", "oops"]


def test_gmx_reports_a_failure_and_stops_at_its_time_limit(tmp_path, monkeypatch):
    bin_dir = fake_gmx(
        tmp_path / "bin",
        'if [ "$1" = "-quiet" ] && [ "$2" = "mdrun" ]; then sleep 5; fi\n'
        'printf "NOTE 1: fine\\nERROR 1 [file em.mdp]:\\n  Invalid enum\\n" >&2; exit 1\n',
    )
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    code, log = verifykit.gmx("grompp")
    assert code == 1 and verifykit.gmx_error(log) == "ERROR 1 [file em.mdp]:\n  Invalid enum"
    with pytest.raises(subprocess.TimeoutExpired):
        verifykit.gmx("mdrun", timeout=0.5)


#: Verifiers that call gmx themselves, each with why verifykit.gmx would change what they check.
OWN_GMX_CALLS = {
    "gmx-fep-ethanol-hydration": "parses gmx dump's stdout alone (verifykit.gmx returns stdout and stderr together)",
    "gmx-openmm-convert": "its reference energies raise CalledProcessError on a failing gmx (check=True)",
}


def test_task_verifiers_run_gmx_through_verifykit():
    """One gmx helper (verifykit.gmx; a verifier binds its own folder and time limit): no verifier spells the
    command again, but those that say why."""
    own = {
        path.parents[1].name
        for path in sorted(REPO.glob("tasks/*/tests/*.py"))
        if path.name != "verifykit.py" and ("def gmx(" in path.read_text() or '"gmx", "-quiet"' in path.read_text())
    }
    assert own == set(OWN_GMX_CALLS)


def test_a_window_given_as_an_absolute_tolerance_is_that_window_in_every_task_verifier():
    """``close(value, expected, abs_=x)`` keeps the default ``rel=1e-3``, so its window is max(x, 1e-3 |expected|):
    a charge of 0.4181 passed a check of 0.4180 written with abs_=1e-6. Every call that gives ``abs_`` names ``rel``
    too (``rel=0`` for an absolute window), in every task's verifier."""
    import ast

    implicit = []
    for verify in sorted((REPO / "tasks").glob("*/tests/verify.py")):
        for node in ast.walk(ast.parse(verify.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == "close":
                keywords = {k.arg for k in node.keywords}
                if "abs_" in keywords and "rel" not in keywords and len(node.args) < 3:
                    implicit.append(f"{verify.relative_to(REPO)}:{node.lineno}")
    assert not implicit, "close(..., abs_=...) without rel (the default 1e-3 relative widens it): " + ", ".join(
        implicit
    )
    assert verifykit.close(0.4181, 0.418, abs_=1e-6) and not verifykit.close(0.4181, 0.418, rel=0, abs_=1e-6)


def small_system(mass=12.0, length=0.1, method=None, charge=0.5, constrained=True):
    """Three particles: a bond, a constraint, Coulomb and Lennard-Jones; ``method`` the NonbondedForce's cut-off."""
    import openmm

    system = openmm.System()
    for _ in range(3):
        system.addParticle(mass)
    if constrained:
        system.addConstraint(0, 1, length)
    bonds = openmm.HarmonicBondForce()
    bonds.addBond(1, 2, 0.15, 1000.0)
    system.addForce(bonds)
    nonbonded = openmm.NonbondedForce()
    nonbonded.setNonbondedMethod(openmm.NonbondedForce.NoCutoff if method is None else method)
    for q in (charge, -charge, 0.0):
        nonbonded.addParticle(q, 0.1, 0.1)
    system.addForce(nonbonded)
    return system


SMALL_POSITIONS = [(0.0, 0.0, 0.0), (0.1, 0.0, 0.0), (0.1, 0.16, 0.05)]


@pytest.mark.parametrize(
    "change, named",
    [
        ({}, None),
        ({"mass": 12.0 * 1.01}, "masses"),
        ({"length": 1.0}, "constraints"),
        ({"constrained": False}, "constraints"),
        ({"method": 1}, "forces (type, cut-off method)"),
        ({"charge": 0.5 * (1 + 1e-4)}, "potential energy"),
    ],
)
def test_openmm_system_differences_names_every_change_of_the_system_and_nothing_else(tmp_path, change, named):
    """The same System reads []; a 1 % mass, a constraint's length or presence, a cut-off or a charge 1e-4 off is
    named (the energy window is 1e-6 relative)."""
    import openmm

    path = tmp_path / "system.xml"
    path.write_text(openmm.XmlSerializer.serialize(small_system(**change)))
    differences = verifykit.openmm_system_differences(str(path), small_system(), SMALL_POSITIONS)
    if named is None:
        assert differences == []
    else:
        assert differences and differences[0].startswith(named), differences


def test_a_system_whose_energy_is_not_finite_differs(tmp_path):
    """Two particles on one spot: the delivered System's Coulomb energy is infinite, never 'within the window'."""
    import openmm

    path = tmp_path / "system.xml"
    path.write_text(openmm.XmlSerializer.serialize(small_system()))
    on_top = [SMALL_POSITIONS[0], SMALL_POSITIONS[0], SMALL_POSITIONS[2]]
    reference = small_system(charge=0.0)
    differences = verifykit.openmm_system_differences(str(path), reference, on_top)
    assert any(d.startswith("potential energy") for d in differences), differences


def test_openmm_integrator_refuses_a_file_that_is_not_an_integrator(tmp_path):
    path = tmp_path / "integrator.xml"
    path.write_text('<System version="1"/>')
    with pytest.raises(ValueError, match="not an integrator"):
        verifykit.openmm_integrator(str(path))
    with pytest.raises(FileNotFoundError, match="was not written"):
        verifykit.openmm_integrator(str(tmp_path / "missing.xml"))
