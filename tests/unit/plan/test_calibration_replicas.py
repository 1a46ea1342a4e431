"""calibration.we.replicas: independent WE runs per study engine, each with its own seed and basis states, pooled
by the export; one run (the default) keeps every path and seed it had."""

from .conftest import plan_with


def test_one_run_keeps_the_engine_folder_the_seed_and_the_shared_basis_states():
    study = plan_with().calibration
    assert study.replica_ids() == [None]
    assert study.run_dirs("reference") == [f"{study.dir()}/we/reference"]
    assert study.basis_states() == f"{study.dir()}/we/basis_states.npz"
    assert study.we_input("reference")["basis_states"] == f"{study.dir()}/we/starts/reference.npz"
    assert study.starts_input("reference")["states"] == study.basis_states()
    assert study.replica_seed("calibration_we", "reference") == study.seed("calibration_we", "reference")
    assert study.replica_seed("calibration_basis_states", None) == study.seed("calibration_basis_states")


def test_replicas_run_in_their_folders_from_their_own_starts_with_their_own_seeds():
    study = plan_with(calibration={"we": {"replicas": 3}}).calibration
    assert study.replica_ids() == [0, 1, 2]
    assert study.run_summaries("contacts_80") == [
        f"{study.dir()}/we/contacts_80/replica_{k}/run.json" for k in range(3)
    ]
    draws = [study.basis_states(k) for k in range(3)]
    assert draws[0] == f"{study.dir()}/we/basis_states.npz" and len(set(draws)) == 3
    # each engine of the reference's potential starts from its replica's draw weighted to its own equilibrium
    assert [study.starts_input("contacts_80", k)["states"] for k in range(3)] == draws
    starts = [study.we_input("contacts_80", k)["basis_states"] for k in range(3)]
    assert starts[2] == f"{study.dir()}/we/replica_2/starts/contacts_80.npz" and len(set(starts)) == 3
    seeds = [study.replica_seed("calibration_we", "contacts_80", k) for k in range(3)]
    assert seeds[0] == study.seed("calibration_we", "contacts_80") and len(set(seeds)) == 3
    draw_seeds = [study.replica_seed("calibration_basis_states", None, k) for k in range(3)]
    assert len(set(draw_seeds)) == 3
    # every engine's replica k starts from the same draw (engines compared on equal footing), run k's own
    assert study.starts_input("reference", 2)["states"] == draws[2]


def test_the_reference_potentials_engines_start_weighted_and_the_others_from_the_draw_itself():
    study = plan_with().calibration
    for engine in study.engines:
        starts = study.we_input(engine)["basis_states"]
        if study.is_reference_model(engine):
            assert starts == study.engine_starts(engine) != study.basis_states()
            own = {"sample": study.known_sample(engine)} if engine in study.sampled_engines() else {}
            assert study.starts_input(engine) == {
                "states": study.basis_states(),
                "groundtruth": f"{study.dir()}/tica/groundtruth_frames.h5",
                "reweighting": f"{study.dir()}/reweighting.npz",
                **own,
            }
        else:  # a trained model's potential has no known equilibrium to weight toward
            assert starts == study.basis_states()


def test_every_engine_that_changes_the_equilibrium_and_only_those_gets_its_own_sample():
    study = plan_with(
        calibration={
            "perturbations": {
                "hot": {"temperature_scale": 1.2},
                "slow": {"friction_scale": 10.0},
                "both": {"contact_scale": 0.9, "timestep_scale": 0.5},
            }
        }
    ).calibration
    assert sorted(study.sampled_engines()) == ["both", "hot"]
    assert study.known_sample("hot") == f"{study.dir()}/known/hot/frames.h5"
    assert study.equilibrium_sample("hot") == f"{study.dir()}/known/hot/sample.h5"
    assert "sample" not in study.starts_input("slow") and "sample" not in study.starts_input("reference")
    assert plan_with(calibration={"groundtruth": {"perturbed_runs": 0}}).calibration.sampled_engines() == []
