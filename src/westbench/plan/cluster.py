"""What a cluster profile must get right before anything is submitted: checked when the workflow is parsed.

:func:`profile_problems` reads the resources a SLURM profile sets (``default-resources`` and ``set-resources``, as
Snakemake parsed them) and returns one message per problem, each naming the profile key and the fix: an account or
partition left unset or at a placeholder, a GPU rule that would land on the CPU partition or ask for no GPU, a
runtime below the measured need of the rule's largest job (:mod:`westbench.plan.requests`), a rule that could be
submitted with no resources. :func:`deployment_problem` is the software-deployment check (conda chosen, none on
PATH). rules/cluster.smk raises them as one error.

Examples
--------
>>> problems = profile_problems({"slurm_account": "CHANGE_ME", "slurm_partition": "cpu"},
...                             {"groundtruth_run": {"gpu": 1}}, gpu_rules={"groundtruth_run"})
>>> problems[0].split(":")[:2]
['default-resources', " slurm_account is 'CHANGE_ME' (a placeholder)"]
>>> "set-resources: groundtruth_run: slurm_partition" in problems[1]
True
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Callable, Iterable, Mapping

from westbench.engines.kinds import SOLVENTS
from westbench.plan import requests as wb_requests

#: Values that mean "not set yet" (the shipped profile's placeholder among them).
PLACEHOLDERS = {"", "CHANGE_ME", "CHANGEME", "TODO", "your_account", "None", "none"}


def _placeholder(value) -> bool:
    return value is None or str(value).strip().strip("'\"") in PLACEHOLDERS


def _asks_gpu(resources: Mapping) -> bool:
    return (
        bool(resources.get("gpu"))
        or "gpu" in str(resources.get("gres") or "")
        or "gpu" in str(resources.get("slurm_extra") or "")
    )


def profile_problems(
    defaults: Mapping,
    per_rule: Mapping[str, Mapping],
    *,
    gpu_rules: Iterable[str] = (),
    submitted_rules: Iterable[str] = (),
    has_resources: Callable[[str], bool] = lambda rule: True,
    need_minutes: Callable[[str], float | None] = lambda rule: None,
) -> list[str]:
    """Problems of a SLURM profile's resources, one message each (empty: none).

    Parameters
    ----------
    defaults : mapping
        ``default-resources`` (name -> value).
    per_rule : mapping
        ``set-resources`` (rule -> name -> value).
    gpu_rules : iterable of str
        Rules whose jobs run on a GPU under this config (the plan's ``gpu`` resource).
    submitted_rules : iterable of str
        Rules whose jobs would be submitted (not local rules, not targets).
    has_resources : callable
        Whether a rule declares its runtime and memory (``CLUSTER.resources``, sized from the measured basis).
    need_minutes : callable
        The measured need (minutes, no margin) of a rule's largest job, or None when unknown.
    """
    problems = []
    for key, how in (
        (
            "slurm_account",
            "set your account in profiles/slurm/config.yaml (`sacctmgr show assoc user=$USER` lists yours)",
        ),
        ("slurm_partition", "name the CPU partition in profiles/slurm/config.yaml (`sinfo -s` lists them)"),
    ):
        value = defaults.get(key)
        if _placeholder(value):
            what = "not set" if value is None else f"{value!r} (a placeholder)"
            problems.append(
                f"default-resources: {key} is {what}: {how} or pass --default-resources ... {key}=<{key[6:]}> "
                "with every other default of the profile."
            )
    cpu_partition = defaults.get("slurm_partition")
    for rule in sorted(gpu_rules):
        resources = per_rule.get(rule, {})
        if "slurm_partition" not in resources or resources["slurm_partition"] == cpu_partition:
            problems.append(
                f"set-resources: {rule}: slurm_partition: the rule runs on a GPU under this config but would go to the "
                f"CPU partition {cpu_partition!r}: merge the GPU partition's entry (`<<: *gpu_job`) into its entry."
            )
        elif not _asks_gpu(resources):
            problems.append(
                f"set-resources: {rule}: gpu: the rule runs on a GPU under this config but asks for none: give it "
                '`gpu: 1` (or `gres: "gpu:1"` in a packed group, see docs/cluster.md).'
            )
    for rule in sorted(submitted_rules):
        resources = per_rule.get(rule, {})
        if not has_resources(rule) and not ({"runtime", "mem_mb"} <= set(resources)):
            problems.append(
                f"set-resources: {rule}: the rule would be submitted with no resources (no measurement of it in "
                "profiles/slurm/measured.json or no `**CLUSTER.resources(...)` line in the rule, and no runtime and "
                "mem_mb in the profile): add both to its set-resources entry, or list it in rules/cluster.smk's "
                "localrules if it is trivial."
            )
        runtime, need = resources.get("runtime"), need_minutes(rule)
        if isinstance(runtime, (int, float)) and need is not None and runtime < need:
            problems.append(
                f"set-resources: {rule}: runtime is {runtime} min, below the measured need of its largest job "
                f"({need:.0f} min, westbench.plan.requests): remove the entry (the plan sizes it) or raise it."
            )
    return problems


def deployment_problem(methods: Iterable[str], frontend: str = "conda", which=shutil.which) -> str | None:
    """A message when conda is the software deployment but no conda (or ``frontend``) is on PATH, else None.

    Examples
    --------
    >>> deployment_problem(["conda"], which=lambda name: None).split(":")[0]
    'software-deployment-method conda needs conda on PATH, and there is none'
    >>> deployment_problem([], which=lambda name: None) is None
    True
    """
    if "conda" not in {str(m).lower() for m in methods}:
        return None
    if which(frontend) or which("conda") or which("mamba"):
        return None
    return (
        f"software-deployment-method conda needs {frontend} on PATH, and there is none: load it (e.g. `module load "
        "miniforge`), or drop `--sdm conda` to run every job in the Python environment Snakemake runs in (the "
        "default of profiles/slurm: the venv of tools/setup.sh on a shared file system). Dry runs, --dag and "
        "--rulegraph need no conda."
    )


class ClusterPlan:
    """The workflow's side of :mod:`westbench.plan.requests` and of the checks here (rules/cluster.smk makes one:
    ``CLUSTER``); ``error`` is the exception :meth:`check` raises (Snakemake's WorkflowError)."""

    def __init__(self, workflow, config, plan, error=RuntimeError):
        self.workflow, self.config, self.plan, self.error = workflow, config, plan, error
        self.requests = wb_requests.Requests(
            config,
            wb_requests.load_basis(Path(self.workflow.basedir) / "profiles" / "slurm" / "measured.json"),
            prepared=wb_requests.prepared_atoms("results", plan.roster.proteins),
        )
        slots = self.workflow.global_resources.get("gpu_slots")
        #: Jobs of a packed group that share one GPU (the profile's `resources: gpu_slots=N`; 1 without it).
        self.gpu_slots = int(slots.value) if slots is not None and slots.value else 1

    def resources(self, rule, shares_gpu=False):
        """The rule's `resources:` entries (functions of the wildcards)."""
        entries = self.requests.snakemake_resources(rule)
        if shares_gpu:
            if "runtime" in entries:
                alone = entries["runtime"]
                entries["runtime"] = lambda wildcards: alone(wildcards) * self.gpu_slots
            entries["gpu_slots"] = 1
        return entries

    def _rule_resources(self, mapping):
        return {name: resource.raw for name, resource in mapping.items()} if mapping else {}

    def check(self):
        """Raise one WorkflowError naming every problem of the cluster profile and the software deployment."""
        problems = []
        deployment = deployment_problem(
            [m.name for m in self.workflow.deployment_settings.deployment_method],
            frontend=self.workflow.deployment_settings.conda_frontend,
        )
        if deployment:
            problems.append(deployment)
        defaults = self._rule_resources(self.workflow.resource_settings.default_resources)
        per_rule = {
            rule: self._rule_resources(mapping)
            for rule, mapping in (self.workflow.resource_settings.overwrite_resources or {}).items()
        }
        slurm = any(name.startswith("slurm_") for name in defaults) or any(
            name.startswith("slurm_") for entry in per_rule.values() for name in entry
        )
        if slurm and self.workflow.exec_mode.name == "DEFAULT":
            rules = {rule.name: rule for rule in self.workflow.rules}
            local = set(self.workflow._localrules)
            submitted = [name for name, rule in rules.items() if not rule.norun and name not in local]
            problems += profile_problems(
                defaults,
                per_rule,
                gpu_rules=[name for name in submitted if self.runs_on_gpu(name)],
                submitted_rules=submitted,
                has_resources=lambda name: {"runtime", "mem_mb"} <= set(rules[name].resources),
                need_minutes=self.need_minutes,
            )
        if problems:
            raise self.error("The cluster profile would fail later:\n- " + "\n- ".join(problems))

    def runs_on_gpu(self, rule):
        """Whether the rule's jobs run on a GPU under this config (its `gpu` resource, as the plan gives it)."""
        base = rule.removeprefix("calibration_")
        if base in ("build_system", "groundtruth_starts", "groundtruth_run"):
            return bool(self.plan.params.gpus("openmm"))
        if rule in ("we_run", "we_run_replica"):
            return any(self.plan.params.we_gpus(engine) for engine in self.plan.roster.engines)
        if base in ("cg_train", "cg_train_all", "we_run", "we_run_replica"):
            return bool(self.plan.params.gpus("torch"))
        return False

    def need_minutes(self, rule):
        """The measured need (minutes, no margin) of the rule's largest job in this config, or None."""
        if not self.requests.has_basis(rule):
            return None
        needs = [self.requests.estimate(rule, wildcards).seconds / 60 for wildcards in self.job_wildcards(rule)]
        return max(needs) if needs else None

    def job_wildcards(self, rule):
        """Wildcards of this config's jobs of ``rule`` that differ in size (one run per protein, every engine)."""
        proteins = (
            [self.config["calibration"]["protein"]] if rule.startswith("calibration_") else self.plan.roster.proteins
        )
        for protein in proteins:
            for engine in [*self.plan.roster.engines, "groundtruth"]:
                for solvent in SOLVENTS:
                    yield {"protein": protein, "engine": engine, "solvent": solvent}
