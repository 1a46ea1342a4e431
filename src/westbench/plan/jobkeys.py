"""Which config keys each job reads, tied to the schema (config/schema.yaml).

Rules pass a job only the keys it reads (Snakemake reruns a job whose params changed), so each job
here names its schema section and either

* ``exclude``: every key of the section except the named ones, each with the reason it is not passed;
  a key added to the schema reaches the job without an edit here; or
* ``only``: a fixed list, for a job that reads a few keys of a section, or whose params' text must keep
  its key order (Snakemake compares params by their text: reordering reruns finished jobs).

:func:`unreached_keys` lists the schema keys of these sections that no job gets and nothing excludes:
the test suite asserts it is empty, so a new schema key reaches a job or fails a test.

>>> job_keys("metric_suite")[:3]
('weightings', 'bins', 'kl_floor')
>>> "cpu_threads" in job_keys("platform")
False
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from westbench.config import section_keys
from westbench.errors import ConfigError
from westbench.simulation import INTEGRATOR_KEYS


@dataclass(frozen=True)
class Job:
    """What one job reads of one schema section (see the module docstring)."""

    section: str
    exclude: Mapping[str, str] = field(default_factory=dict)
    only: tuple[str, ...] | None = None


_FIX = ("ph", "add_terminal_residues", "strip_hydrogens")
_SYSTEM_IMPLICIT = ("implicit_solvent",)
_SYSTEM_EXPLICIT = (
    "water_model",
    "water_geometry",
    "padding_nm",
    "box_shape",
    "ionic_strength_molar",
    "positive_ion",
    "negative_ion",
    "nonbonded_cutoff_nm",
    "ewald_error_tolerance",
    "pressure_bar",
    "barostat_interval",
)
_WE_RUN_EXCLUDE = {
    "engines": "a per-engine job: a user engine's own entry is passed instead (we_settings)",
    "max_iterations": "resolved per engine with max_iterations_by_engine (we_max_iterations)",
    "max_iterations_by_engine": "resolved per engine into max_iterations (we_max_iterations)",
    "replicas": "the number of WE jobs (the DAG), not a setting of one",
    "replicas_by_engine": "the number of WE jobs (the DAG), not a setting of one",
    "batch_walkers": "OpenMM engines only: added per engine (we_settings)",
}

JOBS: dict[str, Job] = {
    # rules using platform_settings (OpenMM jobs).
    "platform": Job(
        "platform", exclude={"cpu_threads": "reaches jobs as their threads (threads:), which reruns nothing"}
    ),
    # rule fix_structure (PDBFixer).
    "fix": Job("preparation", only=_FIX),
    # the OpenMM engines' Langevin integrator (we_engine_preparation; hot runs for the starts).
    "integrator": Job("preparation", only=INTEGRATOR_KEYS),
    # rule build_system: every solvent model (order kept: params text).
    "system_common": Job(
        "preparation",
        only=(
            "forcefield",
            "constraints",
            "hydrogen_mass_amu",
            "temperature_k",
            "friction_per_ps",
            "timestep_fs",
            "constraint_tolerance",
            "minimize_tolerance_kj_mol_nm",
            "minimize_max_iterations",
        ),
    ),
    "system_implicit": Job("preparation", only=_SYSTEM_IMPLICIT),
    "system_explicit": Job("preparation", only=_SYSTEM_EXPLICIT),
    # rule groundtruth_run: one ground-truth run.
    "groundtruth_run": Job(
        "groundtruth",
        exclude={
            "source": "generate or import: which rules run (the DAG)",
            "import": "the import's own job (groundtruth_import)",
            "starts": "the starts' own job (groundtruth_starts)",
            "trajectory_format": "in the output file's name (TRAJECTORY)",
        },
    ),
    # rule groundtruth_starts (the count is per protein: param n_starts).
    "groundtruth_starts": Job(
        "groundtruth.starts",
        exclude={
            "directory": "start files given as the job's inputs",
            "count": "per protein: param n_starts (a protein's n_starts, else this count)",
        },
    ),
    # rule groundtruth_import: one imported run.
    "groundtruth_import": Job(
        "groundtruth.import",
        exclude={
            "trajectories": "the job's input files (imported_trajectories)",
            "topology": "the job's input file (import_input)",
            "forces": "the job's input file (import_input)",
        },
    ),
    # rules we_run, we_run_replica.
    "we_run": Job("we", exclude=_WE_RUN_EXCLUDE),
    # rule calibration_we: the study sets iterations and segment length (calibration.we).
    "calibration_we": Job(
        "we",
        exclude={
            **_WE_RUN_EXCLUDE,
            "max_iterations": "calibration.we sets it",
            "steps_per_segment": "calibration.we sets it",
            "save_every": "calibration.we sets it",
            "walkers_per_bin": "calibration.we sets it (walkers_per_bin, walkers_per_bin_by_engine)",
        },
    ),
    # rule calibration_we: the study's own WE keys (calibration.we), besides the we section's above.
    "calibration_we_study": Job(
        "calibration.we",
        exclude={
            "basis_states": "how many rule calibration_basis_states draws; the WE job reads its file (an input)",
            "replicas": "the number of the study's WE jobs per engine (the DAG), not a setting of one",
            "walkers_per_bin_by_engine": "resolved per engine into walkers_per_bin (calibration_we_settings)",
            "max_iterations_by_engine": "resolved per engine into max_iterations (calibration_we_settings)",
        },
    ),
    # rule calibration_groundtruth (the rule keeps the config's key order).
    "calibration_groundtruth": Job(
        "calibration.groundtruth",
        exclude={
            "runs": "the number of runs: the job's outputs (calibration_runs)",
            "perturbed_runs": "the runs of each perturbation's own sample (rule calibration_equilibrium_sample)",
            "tica_lag_frames": "the study's TICA fit's (rule calibration_fit_tica)",
        },
    ),
    # rule calibration_reference.
    "calibration_reference": Job("calibration.reference"),
    # rules metrics, calibration_metrics: one protein and engine.
    "metric_suite": Job(
        "metrics",
        exclude={
            "coverage_thresholds": "table setting: rules metric_tables, groundtruth_throughput",
            "reference_engine": "table setting: rule metric_tables",
            "macrostate_clusters": "the macrostate model's (rule macrostates), an input of the suite",
            "macrostate_dim": "the macrostate model's (rule macrostates), an input of the suite",
        },
    ),
    # rule controls: one protein's controls (westbench.metrics.controls).
    "controls": Job("controls", exclude={"enabled": "whether the controls' files are targets: the DAG"}),
    # rule controls: the metric suite's keys that change the controls' scores (a key added to the section reaches
    # it: an estimator's setting reruns the controls).
    "controls_metrics": Job(
        "metrics",
        exclude={
            "weightings": "every control is scored under the frames' own weights (we)",
            "msm_bins": "no control is scored under the msm weighting",
            "msm_lag": "no control is scored under the msm weighting",
            "coverage_bins": "the controls report no coverage",
            "coverage_thresholds": "table setting: rules metric_tables, groundtruth_throughput",
            "reference_engine": "table setting: rule metric_tables",
            "macrostate_clusters": "the macrostate model's (rule macrostates), an input of the controls",
            "macrostates": "the macrostate model's (rule macrostates), an input of the controls",
            "macrostate_dim": "the macrostate model's (rule macrostates), an input of the controls",
            "density": "a figure setting: the controls draw none",
            "kde_bandwidth": "a figure setting: the controls draw none",
            "scatter_max_points": "a figure setting: the controls draw none",
            "kl_sensitivity_bins": "the report's binning-sensitivity line of an engine, not the controls'",
            "bootstrap_blocks": "WE exports only: the ground truth's units are its runs",
            "block_decorrelation": "WE exports only: the ground truth's units are its runs",
            "discard_iterations": "WE exports only: ground-truth frames have one iteration",
        },
    ),
    # rule macrostates: the protein's one ground-truth macrostate model.
    "macrostates": Job("metrics", only=("macrostate_clusters", "macrostates", "macrostate_dim", "msm_lag")),
    # rule html_report: the page's notes and the bottom line's weighting order (the first an engine has ranks it).
    "report_metrics": Job("metrics", only=("bootstrap", "discard_iterations", "weightings")),
    # rules we_run, we_run_replica for a CG engine (order kept: params text).
    "cg_engine": Job("cg", only=("langevin", "explosion", "device", "cuda_graphs", "deterministic")),
    # rule calibration_we (its langevin: the study's, per engine).
    "calibration_cg_engine": Job("cg", only=("explosion", "device", "cuda_graphs", "deterministic")),
    # rule cg_train (its own preset only; order kept: params text).
    "cg_training": Job("cg", only=("model", "prior", "langevin", "device", "training", "presets")),
    # rules agent_trial, agent_near_miss: one trial (its own agent entry and model: AgentsPlan.trial_run).
    "agent_trial": Job("agents", only=("environment", "harbor", "default_agent_timeout_s", "timeout_margin_s")),
    # rule agent_mutation: one task's mutants through its verifier.
    "agent_mutation": Job("agents", only=("environment", "mutation")),
    # rule agent_leaderboard.
    "agent_leaderboard": Job("agents", only=("attempts", "pass_at_k", "bootstrap_resamples")),
    # rule agent_failures (the process and failure analysis): the bootstrap of its intervals ...
    "agent_failures": Job("agents", only=("bootstrap_resamples",)),
    # ... and how many trials a correlation needs.
    "agent_failures_process": Job("agents.process", only=("correlation_min_trials",)),
}

#: Keys of a section above that no job gets as a setting, each with the reason.
NOT_PASSED: dict[str, dict[str, str]] = {
    "agents": {
        "tasks_dir": "where the tasks are: the DAG, and the leaderboard's param tasks_dir",
        "agents": "a trial's own agent entry, passed per trial (westbench.plan.agents.AgentsPlan.trial_run)",
        "select": "which tasks and agents run: the DAG",
        "gate": "rule agent_gate passes reference and null; near_misses and mutation decide the DAG",
        "judge": "rules agent_judge and agent_process pass the whole section",
        "process": "its own section (agents.process): assess_gate_agents decides the DAG, agent_failures the rest",
    },
    "agents.process": {
        "assess_gate_agents": "which trials get a scorecard: the DAG (westbench.plan.agents.AgentsPlan.process_runs)",
    },
    "cg": {
        "scope": "where a model lives (cg_model_dir): the DAG, not a setting of a job",
        "models": "a user's model entry, passed per engine (cg_user_model)",
    },
}


def _job(name: str) -> Job:
    try:
        return JOBS[name]
    except KeyError:
        raise ConfigError(f"no job '{name}' in westbench.plan.jobkeys.JOBS ({', '.join(JOBS)})") from None


def job_keys(name: str, schema: Mapping | None = None) -> tuple[str, ...]:
    """The keys job ``name`` reads of its section: the schema's, less its exclusions (schema order), or its list.

    Raises
    ------
    ConfigError
        If an exclusion or a listed key is not a key of the section (a renamed or removed key).
    """
    job = _job(name)
    keys = section_keys(job.section, schema)
    stale = sorted(set(job.exclude if job.only is None else job.only) - set(keys))
    if stale:
        raise ConfigError(
            f"westbench.plan.jobkeys job '{name}' names {stale}, not keys of schema section {job.section}"
        )
    if job.only is not None:
        return tuple(job.only)
    return tuple(key for key in keys if key not in job.exclude)


def unreached_keys(schema: Mapping | None = None) -> list[str]:
    """Dotted schema keys of the sections in :data:`JOBS` that no job gets and nothing excludes."""
    reached: dict[str, set[str]] = {}
    for name, job in JOBS.items():
        found = reached.setdefault(job.section, set(NOT_PASSED.get(job.section, {})))
        found.update(job_keys(name, schema), job.exclude)
    return [
        f"{section}.{key}"
        for section, found in reached.items()
        for key in section_keys(section, schema)
        if key not in found
    ]
