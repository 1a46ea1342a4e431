"""Walker copies in one context: same forces as the system as prepared, the extent rule, batches."""

import numpy as np
import openmm
import pytest
from openmm import unit

from westbench.engines import copies
from westbench.engines.openmm_engine import OpenMMEngine

pytestmark = pytest.mark.slow

#: Largest per-atom force difference allowed between a copy and the NoCutoff system (kJ/mol/nm), Reference
#: platform, double precision; typical forces are 10-1000 kJ/mol/nm.
FORCE_TOLERANCE = 1e-6


def forces(system, positions):
    context = openmm.Context(system, openmm.VerletIntegrator(0.001), openmm.Platform.getPlatformByName("Reference"))
    context.setPositions(positions)
    return (
        context.getState(getForces=True).getForces(asNumpy=True).value_in_unit(unit.kilojoule_per_mole / unit.nanometer)
    )


def conformations(engine, n, seed=0):
    """The prepared structure and n - 1 perturbed ones (0.02 nm noise: other bonded and nonbonded energies)."""
    basis = engine.basis_state().positions
    rng = np.random.default_rng(seed)
    return [basis] + [basis + rng.normal(0.0, 0.02, basis.shape) for _ in range(n - 1)]


# trpcage_files reads the benchmark's PDB file (shared_structures), which a fixture named by string hides from the
# structures tier's marking: the parameter carries the marker itself.
@pytest.mark.parametrize("files", ["chignolin_files", pytest.param("trpcage_files", marks=pytest.mark.structures)])
def test_each_copy_feels_the_forces_of_the_system_as_prepared(files, request):
    engine = OpenMMEngine(*request.getfixturevalue(files), platform={"name": "Reference"})
    walkers = conformations(engine, 3)
    assert all(copies.fits(x, engine.cutoff, engine.guard) for x in walkers)
    system = copies.copy_system(engine.system, 3, engine.cutoff)
    nonbonded = [f for f in system.getForces() if isinstance(f, (openmm.NonbondedForce, openmm.CustomGBForce))]
    assert len(nonbonded) == 2 and all(f.getNonbondedMethod() == type(f).CutoffNonPeriodic for f in nonbonded)
    centers = copies.slot_centers(3, engine.cutoff)
    packed = np.concatenate([x - x.mean(0) + c for x, c in zip(walkers, centers)])
    per_copy = forces(system, packed).reshape(3, -1, 3)
    for x, f in zip(walkers, per_copy):
        reference = forces(engine.system, x)
        assert np.abs(reference).max() > 10.0
        assert np.abs(f - reference).max() < FORCE_TOLERANCE


def test_copies_that_come_too_close_are_flagged(chignolin_files):
    engine = OpenMMEngine(*chignolin_files, platform={"name": "Reference"})
    x = engine.basis_state().positions
    centers = copies.slot_centers(2, engine.cutoff)
    apart = np.stack([x - x.mean(0) + c for c in centers])
    assert not copies.violations(apart, engine.cutoff).any()
    near = apart.copy()
    near[1] -= (centers[1] - centers[0]) * 0.5  # half the slot spacing: within the cutoff of copy 0
    assert copies.violations(near, engine.cutoff).all()


def test_a_stretched_walker_runs_alone_with_its_own_seed(chignolin_files):
    """Extent rule: 2 R + guard <= cutoff. A conformation stretched 1.6x about its centroid breaks it and
    is propagated in the single-molecule NoCutoff context, exactly as a batch of one with its own seed."""
    engine = OpenMMEngine(*chignolin_files, platform={"name": "Reference"}, batch_walkers=2)
    basis = engine.basis_state()
    stretched = type(basis)(basis.positions.mean(0) + 1.6 * (basis.positions - basis.positions.mean(0)))
    assert copies.fits(basis.positions, engine.cutoff, engine.guard)
    assert not copies.fits(stretched.positions, engine.cutoff, engine.guard)
    together = engine.propagate([basis, stretched], 20, 10, [3, 4], batch=(99, [0, 1]))
    alone = OpenMMEngine(*chignolin_files, platform={"name": "Reference"}, batch_walkers=1)
    assert np.array_equal(together[1].frames, alone.propagate([stretched], 20, 10, [4])[0].frames)
    # The walker that fits ran as a copy (batch seed 99), not alone with its seed.
    assert together[0].status == "ok"
    assert not np.array_equal(together[0].frames, alone.propagate([basis], 20, 10, [3])[0].frames)


def test_copy_batches_repeat_and_continue(chignolin_files, caplog):
    """Same batch, same result; final states carry on (positions back in the walker's own frame,
    no centre-of-mass velocity, finite), and frames are the walker's C-alpha atoms.

    The fixture's structure is minimized for 20 iterations only (forces ~1500 kJ/mol/nm): at the default
    4 fs one of the copies blows up within 20 steps on some CPUs, and all three then rerun alone, which
    is another path (``test_a_stretched_walker_runs_alone_with_its_own_seed``). At 1 fs the copies stay far
    from that limit, and the log check names the cause should a batch still leave the copy path.
    """
    engine = OpenMMEngine(
        *chignolin_files, integrator={"timestep_fs": 1.0}, platform={"name": "Reference"}, batch_walkers=3
    )
    basis = engine.basis_state()
    with caplog.at_level("INFO", logger="westbench.engines.openmm_engine"):
        first = engine.propagate([basis] * 3, 20, 10, [1, 2, 3], batch=(5, [0, 1, 2]))
    assert "rerun alone" not in caplog.text and "failed" not in caplog.text, caplog.text
    again = engine.propagate([basis] * 3, 20, 10, [1, 2, 3], batch=(5, [0, 1, 2]))
    assert all(np.array_equal(a.frames, b.frames) for a, b in zip(first, again))
    assert not np.array_equal(first[0].frames, first[1].frames)
    for result in first:
        assert result.status == "ok" and result.frames.shape == (2, 10, 3)
        moved = np.linalg.norm(result.final.positions.mean(0) - basis.positions.mean(0))
        assert moved < 0.5  # the walker stays where it was, not at its copy slot
        assert np.allclose(result.frames[-1], engine.beads(result.final), atol=1e-5)
        momentum = (engine.masses[:, None] * result.final.velocities).sum(0)
        assert np.abs(momentum).max() < 1e-6
    nxt = engine.propagate([r.final for r in first], 20, 10, [4, 5, 6], batch=(6, [0, 1, 2]))
    assert all(r.status == "ok" for r in nxt)


def test_central_slots_fill_first():
    """Small batches sit nearest the origin; every slot keeps the 2 C spacing."""
    centers = copies.slot_centers(64, 5.0)
    distance = np.linalg.norm(centers, axis=1)
    assert np.all(np.diff(np.round(distance, 9)) >= 0)
    gaps = np.linalg.norm(centers[:, None] - centers[None], axis=-1) + np.eye(64) * 1e9
    assert gaps.min() == pytest.approx(10.0)
    assert np.linalg.norm(copies.slot_centers(8, 5.0), axis=1).max() < distance.max()


def test_force_check_passes_correct_copies_in_single_precision(chignolin_files):
    """The CPU platform computes forces in single precision, as CUDA's mixed precision does: 64 copies out
    to 26 nm from the origin, each compared with the single molecule at its own offset, stay far inside 1e-3
    (a per-atom error against max(|F|, 1) with the molecule at the origin failed correct copies there)."""
    engine = OpenMMEngine(*chignolin_files, platform={"name": "Reference"})
    walkers = conformations(engine, 64)
    check = copies.force_check(engine.system, walkers, engine.cutoff, platform="CPU")
    assert check["platform"] == "CPU" and len(check["per_copy"]) == 64
    assert check["max_rms_relative_error"] < 1e-3
    exact = copies.force_check(engine.system, walkers[:3], engine.cutoff, platform="Reference")
    assert exact["max_rms_relative_error"] < 1e-9


def test_a_walker_that_makes_openmm_raise_does_not_send_its_batch_to_run_alone(chignolin_files, caplog):
    """Two overlapping atoms make OpenMM raise (NaN coordinates) on the CPU platform: the batch is split in
    halves down to that walker, which alone ends "exploded"; the others stay copies, repeatably, and match the
    batch without the bad walker (same slots, same batch seed) up to the constraint tolerance."""
    engine = OpenMMEngine(*chignolin_files, platform={"name": "CPU", "deterministic": True}, batch_walkers=4)
    basis = engine.basis_state()
    clash = basis.positions.copy()
    clash[5] = clash[4] + 1e-4
    starts = [basis, basis, type(basis)(clash), basis]
    with caplog.at_level("INFO", logger="westbench.engines.openmm_engine"):
        first = engine.propagate(starts, 20, 10, [1, 2, 3, 4], batch=(9, [0, 1, 2, 3]))
    assert [r.status for r in first] == ["ok", "ok", "exploded", "ok"]
    assert "rerun as two batches of 2 and 2" in caplog.text and "rerun as two batches of 1 and 1" in caplog.text
    again = engine.propagate(starts, 20, 10, [1, 2, 3, 4], batch=(9, [0, 1, 2, 3]))
    assert all(np.array_equal(a.frames, b.frames) for a, b in zip(first, again))
    without = engine.propagate([basis] * 3, 20, 10, [1, 2, 4], batch=(9, [0, 1, 3]))
    for mine, theirs in zip([first[0], first[1], first[3]], without):
        assert np.abs(mine.frames - theirs.frames).max() < 1e-3
    alone = OpenMMEngine(*chignolin_files, platform={"name": "CPU", "deterministic": True}, batch_walkers=1)
    assert not np.allclose(first[0].frames, alone.propagate([basis], 20, 10, [1])[0].frames, atol=1e-3)


def test_a_non_finite_copy_flags_only_itself():
    apart = np.zeros((3, 2, 3))
    apart[1, :, 0], apart[2, :, 0] = 20.0, 40.0
    apart[:, 1, 1] = 0.1
    broken = apart.copy()
    broken[1, 0, 0] = np.nan
    assert copies.violations(broken, 5.0).tolist() == [False, True, False]
