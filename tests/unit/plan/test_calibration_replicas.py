"""calibration.we.replicas: independent WE runs per study engine, each with its own seed and basis states, pooled
by the export; one run (the default) keeps every path and seed it had."""

from .conftest import plan_with


def test_one_run_keeps_the_engine_folder_the_seed_and_the_shared_basis_states():
    study = plan_with().calibration
    assert study.replica_ids() == [None]
    assert study.run_dirs("reference") == [f"{study.dir()}/we/reference"]
    assert study.we_input("reference")["basis_states"] == f"{study.dir()}/we/basis_states.npz"
    assert study.replica_seed("calibration_we", "reference") == study.seed("calibration_we", "reference")
    assert study.replica_seed("calibration_basis_states", None) == study.seed("calibration_basis_states")


def test_replicas_run_in_their_folders_from_their_own_starts_with_their_own_seeds():
    study = plan_with(calibration={"we": {"replicas": 3}}).calibration
    assert study.replica_ids() == [0, 1, 2]
    assert study.run_summaries("contacts_80") == [
        f"{study.dir()}/we/contacts_80/replica_{k}/run.json" for k in range(3)
    ]
    starts = [study.we_input("contacts_80", k)["basis_states"] for k in range(3)]
    assert starts[0] == f"{study.dir()}/we/basis_states.npz" and len(set(starts)) == 3
    seeds = [study.replica_seed("calibration_we", "contacts_80", k) for k in range(3)]
    assert seeds[0] == study.seed("calibration_we", "contacts_80") and len(set(seeds)) == 3
    draws = [study.replica_seed("calibration_basis_states", None, k) for k in range(3)]
    assert len(set(draws)) == 3
    # every engine's replica k starts from the same draw (engines compared on equal footing), run k's own
    assert study.we_input("reference", 2)["basis_states"] == starts[2]
