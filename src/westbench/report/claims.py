"""What the bottom line claims per protein, and no more than the data holds: the values that may rank (the ranking rule
of :mod:`westbench.report.bottom_line` over what :func:`westbench.report.evidence.exclusion` leaves in), whether the
run can rank engines at all (:func:`westbench.report.scale.cannot_rank`), and the sentences that say so.

Per protein, in the order the bottom line shows them:

- ``standing``: the ranking, each CG model that failed to learn named with that flag in the same sentence; or, where
  the run cannot rank engines, a plain statement of that;
- ``why``: why it cannot ("" when it can);
- ``flagged``: where it cannot rank, the CG models that failed to learn, each with its flag;
- ``failed``: the engines that failed a sanity check, named as failed (never ranked);
- ``shows``: what the values the run can read do show (engines separated from the ground truth), when it cannot rank;
- ``would``: what run would rank them (:func:`westbench.report.scale.what_would_rank`);
- ``detects``: what the run could detect (:func:`westbench.report.detection.detection_sentence`);
- ``limitation``: what limits a ranking it can make (:func:`westbench.report.limits.limitation`); where it cannot
  rank, only why its values are undetermined.

Examples
--------
>>> w1 = pd.DataFrame({"protein": ["p", "p"], "engine": ["a", "b"], "weighting": ["we", "we"],
...     "rg": [0.2, 0.9], "rg_ci_low": [0.1, 0.7], "rg_ci_high": [0.3, 1.1], "rg_floor_high": [0.25, 0.25],
...     "rg_verdict": ["within noise", "separated"], "rg_note": ["", ""]})
>>> summary(w1, w1.iloc[0:0], ["we"], {"p": 3})["p"]["standing"]
'Overall: a ranks 1; b ranks 2 (below a).'
>>> controls = {"resolution": {"w1": {"rg": {"resolved": False}}}}
>>> evidence = {"p": ProteinEvidence("p", controls=controls)}
>>> result = summary(w1, w1.iloc[0:0], ["we"], {"p": 3}, evidence)["p"]
>>> print(result["standing"], result["why"])  # doctest: +NORMALIZE_WHITESPACE
This run cannot rank engines on p. Why: its controls resolve none of its distributions; no value is left to rank
once those it cannot read are set aside.
"""

from __future__ import annotations

from typing import Mapping, Sequence

import pandas as pd

from westbench.report.bottom_line import (
    SEPARATED,
    distribution_ranks,
    join,
    label,
    long_form,
    model_rows,
    overall_ranks,
    primary_rows,
    standing_sentence,
)
from westbench.report.detection import detection_sentence
from westbench.report.evidence import UNRESOLVED, ProteinEvidence, exclusion
from westbench.report.limits import Limitation, limitation
from westbench.report.scale import GroundTruthPlan, cannot_rank, what_would_rank

#: The reason every value of a protein the run cannot rank is left out for.
CANNOT_RANK = "this run cannot rank engines"


def excluded(values: pd.DataFrame, evidence: ProteinEvidence | None) -> pd.DataFrame:
    """``values`` (one protein's :func:`westbench.report.bottom_line.long_form`) with ``excluded`` filled in, and
    ``unresolved`` (the controls show the run cannot resolve the value's distribution, whatever else excludes it)."""
    values = values.copy()
    records = values.to_dict("records")
    values["excluded"] = [exclusion(row, evidence) for row in records]
    values["unresolved"] = [
        evidence is not None and evidence.resolved(row["metric"], row["distribution"]) is False for row in records
    ]
    return values


def failed_sentence(failed: Mapping[str, str]) -> str:
    """The engines that failed a sanity check, named as failed ("" when none).

    Examples
    --------
    >>> print(failed_sentence({"x": "chirality: closer to the mirror image"}))  # doctest: +NORMALIZE_WHITESPACE
    Failed its sanity checks, so not ranked and no score of it reads as fine: x (chirality: closer to the mirror
    image).
    """
    if not failed:
        return ""
    return (
        "Failed its sanity checks, so not ranked and no score of it reads as fine: "
        + join([f"{engine} ({why})" for engine, why in failed.items()])
        + "."
    )


def shows_sentence(values: pd.DataFrame, flags: Mapping[str, str]) -> str:
    """What the values the run can read show when it cannot rank: the engines separated from the ground truth (on
    values left out of the ranking only for the run's resolution: a separated verdict stands), each CG model that
    failed to learn named with its flag."""
    readable = values[values["excluded"].str.startswith(UNRESOLVED) | (values["excluded"] == "")]
    separated = readable[readable["verdict"] == SEPARATED]
    if separated.empty:
        return "No engine is separated from the ground truth on any value this run can read."
    parts = []
    for engine, rows in separated.groupby("engine", sort=False):
        name = f"{engine} ({flags[engine]})" if flags.get(engine) else engine
        on = join([label(r["metric"], r["distribution"]) for r in rows.to_dict("records")])
        parts.append(f"{name} on {on}")
    return (
        "What it can say, engine by engine and not as a ranking: separated from the ground truth (its interval above "
        "the noise floor): " + "; ".join(parts) + "."
    )


def protein_claims(
    protein: str,
    values: pd.DataFrame,
    evidence: ProteinEvidence | None,
    designs: Mapping | int | None,
    plans: Mapping[str, GroundTruthPlan] | None,
) -> dict:
    """The claims of one protein (see the module's description) from its long-form ``values``."""
    values = excluded(values, evidence)
    flags = evidence.flags() if evidence is not None else {}
    failed = evidence.failed() if evidence is not None else {}
    reasons = cannot_rank(evidence, values)
    limit = limitation(distribution_ranks(values[values["excluded"] == ""]), designs)
    if reasons and limit.kind != "undetermined":  # no ranking to limit: "would" says what run would rank them
        limit = Limitation("none", "")
    shows = ""
    if reasons:
        shows = shows_sentence(values, flags)
        values["excluded"] = [why or CANNOT_RANK for why in values["excluded"]]
    ranked = distribution_ranks(values)
    overall = overall_ranks(ranked)
    why = flagged = ""
    if reasons:
        standing = f"This run cannot rank engines on {protein}."
        why = "Why: " + "; ".join(reasons) + "."
        if flags:
            flagged = (
                "Failed to learn, so their scores are the untrained network on its prior: "
                + "; ".join(f"{e} ({flags[e]})" for e in flags)
                + "."
            )
    else:
        standing = standing_sentence(overall, flags)
    unresolved = evidence is not None and evidence.controls and (ranked["excluded"] != "").any()
    return {
        "values": ranked.reset_index(drop=True),
        "overall": overall,
        "flags": flags,
        "cannot_rank": reasons,
        "standing": standing,
        "why": why,
        "flagged": flagged,
        "failed": failed_sentence(failed),
        "shows": shows,
        "would": what_would_rank(protein, evidence, ranked, designs, plans) if reasons or unresolved else "",
        "detects": detection_sentence(evidence.controls if evidence is not None else None),
        "limitation": limit,
    }


def summary(
    w1: pd.DataFrame,
    kl: pd.DataFrame,
    weightings: Sequence[str],
    designs: Mapping[str, Mapping | int],
    evidence: Mapping[str, ProteinEvidence] | None = None,
    plans: Mapping[str, GroundTruthPlan] | None = None,
) -> dict[str, dict]:
    """Per protein, :func:`protein_claims` from the W1 and KL tables; ``designs``: per protein, each engine's
    :class:`westbench.report.limits.FloorDesign` (or only the protein's ground-truth runs); ``evidence``: per protein,
    what its records say (:func:`westbench.report.evidence.read_evidence`; None: nothing known beyond the tables);
    ``plans``: the published configuration's ground truth per protein (:func:`westbench.report.scale.paper_plans`;
    None: not known)."""
    values = pd.concat([long_form(w1, "W1"), long_form(kl, "KL")], ignore_index=True)
    values = model_rows(primary_rows(values, weightings))
    out = {}
    for protein, group in values.groupby("protein", sort=False):
        out[protein] = protein_claims(
            protein,
            group.reset_index(drop=True),
            (evidence or {}).get(protein),
            designs.get(protein),
            plans,
        )
    return out
