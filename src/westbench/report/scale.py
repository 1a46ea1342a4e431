"""Whether a run's data can rank engines at all, and if not, what run would: the configuration to use, the
ground-truth runs and frames it has, and the GPU-hours they cost.

A run cannot rank engines (:func:`cannot_rank`) when its controls show it would not catch a gross failure (a
collapsed, mirrored or unit-scaled engine: :func:`westbench.report.detection.missed_gross`) or resolve any
distribution, when no value is left to rank once what the run cannot read is set aside
(:func:`westbench.report.evidence.exclusion`), or, for a run without controls, when its ground truth is too small to
fit its own TICA. The embedded default (demo) is such a run by design.

What would rank them (:func:`what_would_rank`): the published configuration's ground truth for the protein
(``config/paper.yaml``, :func:`paper_plans`) with its cost at the estimate of ``docs/cluster.md`` (the published
2,694 GPU-node-hours over its 9,919 runs of 4 ns: :data:`GPU_HOURS_PER_NS`), and, where the controls give a target,
the ground-truth runs the floor's design asks for to separate the known-bad engines this run missed
(:meth:`westbench.report.limits.FloorDesign.runs_for`).

Examples
--------
>>> plans = paper_plans("groundtruth: {length_ps: 4000, save_interval_ps: 10, starts: {count: 1000}}\\n"
...                     "proteins: [{id: chignolin, n_starts: 372}, {id: trpcage}]")
>>> plans["chignolin"].runs, plans["chignolin"].frames, round(plans["chignolin"].gpu_hours)
(372, 148800, 101)
>>> plans["trpcage"].runs
1000
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

import pandas as pd
import yaml

from westbench.report.bottom_line import label
from westbench.report.detection import missed_gross
from westbench.report.evidence import ProteinEvidence, tica_short
from westbench.report.limits import FloorDesign

#: The configuration of the published benchmark, relative to the workflow's folder.
PAPER_CONFIG = "config/paper.yaml"
#: GPU-hours per ns of explicit-solvent ground truth: docs/cluster.md's estimate (the published total of 2,694
#: GPU-node-hours divided evenly over its 9,919 runs of 4 ns; larger proteins cost more, smaller ones less).
GPU_HOURS_PER_NS = 2694.0 / 9919 / 4.0


@dataclass(frozen=True)
class GroundTruthPlan:
    """A configuration's ground truth for one protein: ``runs`` starts of ``length_ps`` each, a frame every
    ``save_interval_ps``, from configuration file ``source``."""

    protein: str
    runs: int
    length_ps: float
    save_interval_ps: float
    source: str = PAPER_CONFIG

    @property
    def frames(self) -> int:
        return int(round(self.runs * self.length_ps / self.save_interval_ps))

    @property
    def gpu_hours(self) -> float:
        """The ground truth's GPU-hours at :data:`GPU_HOURS_PER_NS`."""
        return self.runs * self.length_ps / 1000.0 * GPU_HOURS_PER_NS


def paper_plans(text: str, source: str = PAPER_CONFIG) -> dict[str, GroundTruthPlan]:
    """Each protein's ground truth in a configuration's YAML ``text`` (its ``n_starts`` or ``groundtruth.starts.count``
    runs of ``groundtruth.length_ps``, saved every ``groundtruth.save_interval_ps``); {} when it has none."""
    config = yaml.safe_load(text) or {}
    groundtruth = config.get("groundtruth") or {}
    count = (groundtruth.get("starts") or {}).get("count")
    length, interval = groundtruth.get("length_ps"), groundtruth.get("save_interval_ps")
    if not length or not interval:
        return {}
    plans = {}
    for protein in config.get("proteins") or []:
        runs = protein.get("n_starts") or count
        if protein.get("id") and runs:
            plans[protein["id"]] = GroundTruthPlan(protein["id"], int(runs), float(length), float(interval), source)
    return plans


def paper_ground_truths(folder) -> dict[str, dict]:
    """Each protein's ground truth in the workflow folder's :data:`PAPER_CONFIG` as plain values (``runs``,
    ``length_ps``, ``save_interval_ps``: the report rule's parameter; {} when the file is not there); read back by
    :func:`plans_from`."""
    path = Path(folder) / PAPER_CONFIG
    plans = paper_plans(path.read_text()) if path.is_file() else {}
    return {
        p: {"runs": v.runs, "length_ps": v.length_ps, "save_interval_ps": v.save_interval_ps} for p, v in plans.items()
    }


def plans_from(values: Mapping[str, Mapping] | None) -> dict[str, GroundTruthPlan] | None:
    """:func:`paper_ground_truths`' values as :class:`GroundTruthPlan` (None stays None: not known).

    Examples
    --------
    >>> plans_from({"p": {"runs": 2, "length_ps": 4000, "save_interval_ps": 10}})["p"].frames
    800
    """
    if values is None:
        return None
    return {
        p: GroundTruthPlan(p, int(v["runs"]), float(v["length_ps"]), float(v["save_interval_ps"]))
        for p, v in values.items()
    }


def _resolves_nothing(controls: Mapping) -> bool:
    entries = [e for by_name in (controls.get("resolution") or {}).values() for e in (by_name or {}).values()]
    return bool(entries) and not any((e or {}).get("resolved") for e in entries)


def cannot_rank(evidence: ProteinEvidence | None, values: pd.DataFrame) -> list[str]:
    """Why this run's data cannot rank one protein's engines (empty when they can): see the module's description.
    ``values``: its rows of :func:`westbench.report.bottom_line.long_form` with ``excluded`` and ``verdict``."""
    reasons = []
    controls = evidence.controls if evidence is not None else None
    if controls:
        missed = missed_gross(controls)
        if missed:
            reasons.append("its controls show it would not catch a gross failure (" + "; ".join(missed) + ")")
        if _resolves_nothing(controls):
            reasons.append("its controls resolve none of its distributions")
    elif evidence is not None and evidence.tica_caveat:
        reasons.append(f"its ground truth is too small to fit its own TICA ({tica_short(evidence.tica_caveat)})")
    determined = values["verdict"].isin(("separated", "within noise"))
    if len(values) and not determined.any():
        reasons.append("no value has a verdict (every one is undetermined)")
    elif len(values) and not (determined & (values["excluded"] == "")).any():
        reasons.append("no value is left to rank once those it cannot read are set aside")
    return reasons


def _runs_for_controls(evidence: ProteinEvidence, values: pd.DataFrame, designs: Mapping) -> tuple[int, str] | None:
    """The most ground-truth runs the floor's design asks for to separate, on a W1 the run does not resolve, the
    largest known-bad control it left within noise; with that distribution's name. None without such a target."""
    resolution = ((evidence.controls or {}).get("resolution") or {}).get("w1") or {}
    best = None
    for name, entry in resolution.items():
        target = (entry or {}).get("largest_within_noise")
        if (entry or {}).get("resolved") or not target:
            continue
        rows = values[(values["metric"] == "W1") & (values["distribution"] == name) & values["floor_high"].notna()]
        for row in rows.to_dict("records"):
            design = designs.get(row["engine"]) if isinstance(designs, Mapping) else None
            if not isinstance(design, FloorDesign):
                continue
            needed = design.runs_for(float(row["floor_high"]), float(target))
            if needed is not None and (best is None or needed > best[0]):
                best = (needed, name)
    return best


def what_would_rank(
    protein: str,
    evidence: ProteinEvidence | None,
    values: pd.DataFrame,
    designs: Mapping | int | None,
    plans: Mapping[str, GroundTruthPlan] | None,
) -> str:
    """One paragraph: the run that would rank this protein's engines (see the module's description); ``plans``
    None: the published configuration's ground truths are not known here (the sentence names the file)."""
    designs = designs if isinstance(designs, Mapping) else {}
    runs = next((d.runs for d in designs.values() if isinstance(d, FloorDesign)), None)
    engines = evidence.engines.values() if evidence is not None else ()
    frames = next((e.groundtruth_frames for e in engines if e.groundtruth_frames), None)
    have = ", ".join(part for part in (f"{runs} runs" if runs else "", f"{frames} frames" if frames else "") if part)
    text = f"What would rank them: a ground truth of many more independent runs than this one's ({have or 'unknown'})."
    plan = (plans or {}).get(protein)
    if plans is None:
        text += (
            f" The published benchmark's configuration, {PAPER_CONFIG}, has such a ground truth per protein (372 to "
            "2,560 runs of 4 ns); docs/cluster.md estimates its cost at 0.27 GPU-hours per 4-ns run."
        )
    elif plan is not None:
        text += (
            f" The published benchmark's configuration, {plan.source}, has {plan.runs:,} runs of "
            f"{plan.length_ps / 1000:g} ns for {protein} ({plan.frames:,} frames), about {plan.gpu_hours:,.0f} "
            "GPU-hours for that ground truth at docs/cluster.md's estimate (0.27 GPU-hours per 4-ns run)."
        )
    else:
        text += (
            f" {PAPER_CONFIG} has no entry for {protein}: raise its starts (groundtruth.starts.count, or the "
            "protein's n_starts) in your --configfile; a 4-ns explicit-solvent run costs about 0.27 GPU-hours "
            "(docs/cluster.md)."
        )
    if evidence is not None and evidence.controls:
        found = _runs_for_controls(evidence, values, designs)
        if found is not None:
            text += (
                f" The noise floor's design asks for at least {found[0]:,} runs like this run's to separate the "
                f"largest known-bad control it left within noise on {label('W1', found[1])}."
            )
    return text
