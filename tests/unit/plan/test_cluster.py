"""The cluster plan: requests from the measured basis (westbench.plan.requests), the profile checks made at parse time
(westbench.plan.cluster, rules/cluster.smk), and the SLURM profile's planning commands on a host without conda."""

import os
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from westbench.config import validate_config
from westbench.plan import cluster as wb_cluster
from westbench.plan import requests as wb_requests

from ..conftest import REPO

BASIS = wb_requests.load_basis(REPO / "profiles" / "slurm" / "measured.json")


def paper_like(**groundtruth):
    return validate_config(
        {
            "proteins": [
                {"id": "small", "name": "S", "sequence": "GYDPETGTWG", "source": "sequence"},
                {"id": "large", "name": "L", "sequence": "G" * 80, "source": "sequence"},
            ],
            "platform": {"name": "CUDA", "fallback": []},
            "groundtruth": {"length_ps": 4000, "equilibration_ps": 10, **groundtruth},
        }
    )


def test_the_basis_is_the_measured_runs_and_covers_every_rule_of_the_default_dag():
    assert "commit" in BASIS["source"]  # the run it was measured on, named
    for rule in ("groundtruth_run", "groundtruth_starts", "build_system", "fit_tica", "metric_suite", "we_run:openmm"):
        assert BASIS["rules"][rule]["seconds"] > 0 and BASIS["rules"][rule]["units"] > 0, rule
    # Every rate says where its number comes from.
    assert all(rate["source"] for rates in BASIS["rates"].values() for rate in rates)


def test_a_request_is_the_estimate_with_its_margin_and_grows_with_the_work():
    requests = wb_requests.Requests(paper_like(), BASIS)
    small, large = ({"protein": p} for p in ("small", "large"))
    for name in ("groundtruth_run", "fit_tica", "groundtruth_starts"):
        need = requests.estimate(name, small)
        request = requests.request(name, small)
        assert request["runtime"] >= need.seconds / 60 * wb_requests.MARGIN["runtime"]
        assert request["runtime"] <= max(wb_requests.FLOOR["runtime"], need.seconds / 60 * 1.5 + 1)
        assert requests.estimate(name, large).seconds > need.seconds, name
    # The CUDA rate, not the CPU run, sizes a ground-truth run on a GPU: 4 ns of a small protein in minutes.
    assert 60 < requests.estimate("groundtruth_run", small).seconds < 3600
    assert "H200" in requests.estimate("groundtruth_run", small).source


def test_a_longer_ground_truth_asks_for_proportionally_more_time():
    short = wb_requests.Requests(paper_like(length_ps=2000), BASIS).estimate("groundtruth_run", {"protein": "large"})
    long = wb_requests.Requests(paper_like(length_ps=4000), BASIS).estimate("groundtruth_run", {"protein": "large"})
    startup = BASIS["rates"]["groundtruth_run"][0]["startup_s"]
    assert long.seconds - startup == pytest.approx(2 * (short.seconds - startup), rel=0.01)


@settings(max_examples=25, deadline=None)
@given(residues=st.integers(1, 400), padding=st.floats(0.5, 2.0), shape=st.sampled_from(["cube", "dodecahedron"]))
def test_solvated_atoms_grow_with_residues_and_padding(residues, padding, shape):
    preparation = {"padding_nm": padding, "box_shape": shape}
    atoms = wb_requests.explicit_atoms(residues, preparation)
    assert atoms > 0
    assert wb_requests.explicit_atoms(residues + 1, preparation) >= atoms
    assert wb_requests.explicit_atoms(residues, {**preparation, "padding_nm": padding + 0.1}) > atoms


def test_prepared_atom_counts_replace_the_estimate(tmp_path):
    (tmp_path / "small" / "prepare").mkdir(parents=True)
    (tmp_path / "small" / "prepare" / "explicit.json").write_text('{"atoms": 12345}')
    prepared = wb_requests.prepared_atoms(tmp_path, ["small", "large"])
    assert prepared == {"small": 12345}
    sizes = wb_requests.Requests(paper_like(), BASIS, prepared).sizes
    assert sizes.explicit_atoms("small") == 12345
    assert sizes.explicit_atoms("large") == wb_requests.explicit_atoms(80, paper_like()["preparation"])


def test_a_we_run_is_sized_by_the_measured_run_of_its_engines_kind():
    small_we = {"max_iterations": 2, "steps_per_segment": 100, "save_every": 10}
    requests = wb_requests.Requests(validate_config({"proteins": paper_like()["proteins"], "we": small_we}), BASIS)
    openmm = requests.estimate("we_run", {"protein": "small", "engine": "explicit"})
    cg = requests.estimate("we_run", {"protein": "small", "engine": "cg_fulltrained"})
    assert openmm.seconds >= BASIS["rules"]["we_run:openmm"]["seconds"]
    assert cg.seconds >= BASIS["rules"]["we_run:cg"]["seconds"]
    assert openmm.seconds < 3600 and cg.seconds < 3600  # each scaled by its own kind's units


def test_a_we_run_past_its_wallclock_cap_asks_for_the_cap_and_says_it_stops_short():
    """we.max_wallclock_s stops a WE run with the iterations it finished: the request is the cap and the time to
    stop (no margin on a time the run cannot pass), and the estimate keeps the uncut need so the plan can flag it."""
    long_we = {"max_iterations": 5000, "steps_per_segment": 5000, "save_every": 500}
    config = {"proteins": paper_like()["proteins"], "platform": {"name": "CUDA", "fallback": []}, "we": long_we}
    uncut = wb_requests.Requests(validate_config(config), BASIS).estimate(
        "we_run", {"protein": "large", "engine": "explicit"}
    )
    cap = uncut.seconds / 4
    requests = wb_requests.Requests(validate_config({**config, "we": {**long_we, "max_wallclock_s": cap}}), BASIS)
    capped = requests.estimate("we_run", {"protein": "large", "engine": "explicit"})
    assert uncut.uncapped_seconds is None and capped.uncapped_seconds == pytest.approx(uncut.seconds)
    assert capped.seconds == cap + wb_requests.WE_WRAP_UP_S
    assert requests.request("we_run", {"protein": "large", "engine": "explicit"})["runtime"] == pytest.approx(
        capped.seconds / 60, abs=1
    )


def test_a_rule_without_a_measurement_gets_no_requests_and_a_clear_error():
    requests = wb_requests.Requests(paper_like(), {"rules": {}, "rates": {}})
    assert requests.snakemake_resources("fit_tica") == {}
    with pytest.raises(wb_requests.ConfigError, match="fit_tica has no measured basis"):
        requests.estimate("fit_tica", {"protein": "small"})


GOOD_DEFAULTS = {"slurm_account": "lab", "slurm_partition": "cpu"}
GPU_PACK = {"slurm_partition": "gpu", "gres": "gpu:1", "gpu": 0}


@pytest.mark.parametrize("value", [None, "CHANGE_ME", "", "'CHANGE_ME'"])
@pytest.mark.parametrize("key", ["slurm_account", "slurm_partition"])
def test_an_unset_or_placeholder_account_or_partition_is_named(key, value):
    defaults = (
        {**GOOD_DEFAULTS, key: value} if value is not None else {k: v for k, v in GOOD_DEFAULTS.items() if k != key}
    )
    problems = wb_cluster.profile_problems(defaults, {})
    assert len(problems) == 1 and problems[0].startswith(f"default-resources: {key} is ")


def test_a_gpu_rule_on_the_cpu_partition_or_without_a_gpu_is_named():
    problems = wb_cluster.profile_problems(
        GOOD_DEFAULTS,
        {"we_run": {"gpu": 1}, "cg_train": {"slurm_partition": "gpu"}, "groundtruth_run": GPU_PACK},
        gpu_rules={"we_run", "cg_train", "groundtruth_run"},
    )
    assert [p.split(":")[:3] for p in problems] == [
        ["set-resources", " cg_train", " gpu"],
        ["set-resources", " we_run", " slurm_partition"],
    ]


def test_a_runtime_below_the_measured_need_and_a_rule_without_resources_are_named():
    problems = wb_cluster.profile_problems(
        GOOD_DEFAULTS,
        {"fit_tica": {"runtime": 5}, "agent_trial": {"runtime": 60, "mem_mb": 4000}},
        submitted_rules=["fit_tica", "controls", "agent_trial"],
        has_resources=lambda rule: rule == "fit_tica",
        need_minutes=lambda rule: 12.0 if rule == "fit_tica" else None,
    )
    assert len(problems) == 2
    assert problems[0].startswith("set-resources: controls: the rule would be submitted with no resources")
    assert (
        problems[1].startswith("set-resources: fit_tica: runtime is 5 min, below the measured need")
        and "12" in problems[1]
    )


def test_conda_chosen_without_conda_is_one_clear_message():
    assert wb_cluster.deployment_problem(["CONDA"], which=lambda name: None).startswith(
        "software-deployment-method conda needs conda on PATH"
    )
    assert wb_cluster.deployment_problem(["CONDA"], which=lambda name: "/opt/conda/bin/conda") is None
    assert wb_cluster.deployment_problem(["ENV_MODULES"], which=lambda name: None) is None


# --- the SLURM profile's planning commands, on a PATH without conda (the first commands an admin types) ----------


def no_conda_env():
    """The environment with a PATH of this Python's folder and the system's, none of which holds conda."""
    path = os.pathsep.join([os.path.dirname(sys.executable), "/usr/bin", "/bin"])
    env = {**os.environ, "PATH": path}
    assert not any(os.path.exists(os.path.join(folder, "conda")) for folder in path.split(os.pathsep))
    return env


def slurm_profile_command(tmp_path, *args):
    return [
        sys.executable,
        "-m",
        "snakemake",
        "-s",
        str(REPO / "Snakefile"),
        "-d",
        str(tmp_path),
        "--profile",
        str(REPO / "profiles" / "slurm"),
        *args,
    ]


@pytest.mark.slow
@pytest.mark.parametrize("mode", [["-n"], ["--dag"], ["--rulegraph"]])
def test_the_slurm_profile_plans_without_conda(tmp_path, mode):
    account = ["--default-resources", "slurm_account=lab", "slurm_partition=cpu", "cpus_per_task=1"]
    result = subprocess.run(
        slurm_profile_command(tmp_path, *mode, *account),
        capture_output=True,
        text=True,
        env=no_conda_env(),
        timeout=300,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-3000:]
    assert "conda" not in output.lower().replace("conda-prefix", "")
    if mode == ["-n"]:
        assert "Group job groundtruth_chignolin" in output  # the ground-truth runs go as one allocation


@pytest.mark.slow
def test_the_shipped_placeholder_account_and_conda_without_conda_stop_the_dry_run_naming_the_keys(tmp_path):
    result = subprocess.run(
        slurm_profile_command(tmp_path, "-n", "--sdm", "conda"),
        capture_output=True,
        text=True,
        env=no_conda_env(),
        timeout=300,
    )
    output = result.stdout + result.stderr
    assert result.returncode != 0
    assert "default-resources: slurm_account is 'CHANGE_ME' (a placeholder)" in output
    assert "software-deployment-method conda needs conda on PATH" in output
    assert "Traceback" not in output and "Error running conda info" not in output


@settings(max_examples=30, deadline=None)
@given(st.randoms(use_true_random=False))
def test_the_plan_summary_lists_the_same_largest_and_longest_allocations_in_any_job_order(random):
    """The DAG lists jobs in no fixed order; ties in size must not move docs/cluster.md's table between runs (they
    did: groundtruth_trpcage and _ww one run, _chignolin and _proteinb the next), and a group's alike allocations are
    named once."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("slurm_plan", REPO / "tools" / "slurm" / "plan.py")
    plan_tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(plan_tool)
    rows = [
        {"name": name, "gpus": 1, "cpus": 4, "mem_mb": 4000, "runtime_min": minutes, "jobs": 32}
        for name, minutes in [("groundtruth_a", 60), ("groundtruth_b", 60), ("groundtruth_c", 90), ("we_run", 120)]
    ] * 2
    key = lambda r: (-r["gpus"], -r["mem_mb"], -r["cpus"], -r["runtime_min"], r["name"])  # noqa: E731
    shuffled = rows[:]
    random.shuffle(shuffled)
    first = plan_tool._first_three(rows, key)
    assert plan_tool._first_three(shuffled, key) == first
    assert [r["name"] for r in first] == ["we_run", "groundtruth_c", "groundtruth_a"]
