"""Every quantity the report shows, defined once: :data:`DEFINITIONS` (term -> definition), the report's section
"Definitions" (:func:`definitions_html`) and, beside each table, a line linking the terms of its columns
(:func:`defined_line`, from the table's headings through :func:`terms_of`). ``docs/glossary.md`` carries the same
terms (a test checks that every term here has an entry there).

Examples
--------
>>> terms_of("W1 Rg (Å)"), terms_of("speedup_cpu_seconds_to_50%"), terms_of("macrostate TV")
(['W1', 'Rg'], ['speed-up'], ['macrostate TV'])
>>> "def-macrostate-tv" in defined_line(["engine", "macrostate TV"])
True
"""

from __future__ import annotations

import re
from typing import Iterable

from markupsafe import Markup

#: Term -> definition, in the order the section lists them.
DEFINITIONS = {
    "protein": "The system simulated (an entry of the configuration's proteins).",
    "engine": "What sampled the frames scored: implicit or explicit solvent (OpenMM), a CG model (cg_<preset>), an "
    "external sample; groundtruth is the ground truth scored against itself (a check: 0 and within noise).",
    "weighting": "How an engine's frames are weighted before scoring: we (the weighted-ensemble weights as exported), "
    "msm (the stationary distribution of a grid Markov state model over the ground truth's TIC 0/1 grid), counts "
    "(every frame once).",
    "W1": "Wasserstein-1 distance between the engine's and the ground truth's distribution (in the distribution's "
    "unit; circular for dihedrals, period 360°; 0 when they are the same).",
    "KL": "KL(ground truth || engine) in nats, on bins fixed per protein from the ground truth's range with an "
    "overflow bin each side; an empty engine bin where the ground truth has mass p counts as min(kl_floor, p).",
    "TIC": "TIC 0-3: the first four components of the ground truth's TICA (dimensionless); TIC 0/1 the joint "
    "distribution of the first two.",
    "Rg": "Radius of gyration of the C-alpha atoms (Å).",
    "bonds": "Distances between consecutive C-alpha atoms (Å).",
    "angles": "Angles between three consecutive C-alpha atoms (°).",
    "dihedrals": "Dihedral angles of four consecutive C-alpha atoms (°); a mirror image flips their sign.",
    "interval": "The 95 % BCa bootstrap interval [low, high] over independent units (ground-truth runs, WE replicas "
    "or blocks of iterations), widened for few units (docs/scoring.md).",
    "noise floor": "The same divergence of the ground truth against itself at the engine's sample size; 'floor ≤' is "
    "the upper bound of its 95 % range.",
    "separated": "The interval's lower bound lies above the noise floor's upper bound: the engine differs from the "
    "ground truth by more than the ground truth differs from itself.",
    "within noise": "The interval's lower bound is not above the noise floor's upper bound. It says something only "
    "where the run could have told: see 'not distinguishable at this resolution'.",
    "not distinguishable at this resolution": "How 'within noise' reads on a distribution where this run's controls "
    "separated no known-bad engine: the run could not have told a difference, so the verdict is no evidence of "
    "agreement.",
    "undetermined": "No verdict: the interval or the noise floor could not be estimated, or the verdict cannot fire "
    "(the note says why).",
    "no verdict": "A value from a table of the older format, which has no verdicts.",
    "pinned by the bin floor": "A KL that is no score: its noise floor reaches half of the largest value any engine "
    "could score (or the value reaches it), so it counts empty bins at kl_floor rather than a difference.",
    "mostly bias": "A KL that is no score: the estimator's bias at this sample size exceeds its noise (the ground "
    "truth against itself reads more than that reading's spread), so the value is mostly bias, not divergence.",
    "bias": "The bootstrap mean minus the estimate, shown where it exceeds half the interval's width.",
    "not estimable": "The data could not give the number; the reason is in a footnote, on hover and in Caveats.",
    "coverage": "The share of the ground truth's TIC 0/1 grid cells (metrics.coverage_bins per axis) the engine's "
    "frames visit (0 to 1).",
    "frames": "Frames scored (for a WE run, every segment's frames of every iteration kept).",
    "contact map W1": "The mean over residue pairs of the W1 between the distributions of their C-alpha distance (Å).",
    "bonds outside 3.5-4.5 Å": "The weighted share of C-alpha bonds outside 3.5-4.5 Å (broken or compressed chains).",
    "macrostate TV": "Total variation distance between the engine's and the ground truth's populations of the "
    "ground truth's macrostates, with two more categories (frames outside the macrostate model's connected set, and "
    "frames outside the ground truth's TIC range): half the sum of absolute differences, from 0 (same populations) "
    "to 1 (no population in common). 1.0 means all of the engine's weight lies where the ground truth has none, e.g. "
    "outside its TIC range (weight outside).",
    "weight outside": "The engine's share of weight on frames outside the ground truth's TIC range (part of "
    "macrostate TV).",
    "macrostates used": "Metastable macrostates of the ground truth's cluster MSM (fewer than asked when its data "
    "cannot support them).",
    "simulated ns": "longest: the longest continuous trajectory (a WE lineage: iterations x segment length); "
    "aggregate: all simulation summed (ns).",
    "iterations": "Weighted-ensemble iterations run.",
    "segments": "Weighted-ensemble segments (one walker's trajectory in one iteration) run.",
    "compute seconds": "CPU or GPU seconds spent by the engine's segments (as WESTPA recorded them).",
    "compute to a coverage threshold": "Segments, CPU or GPU seconds until coverage first reached the threshold.",
    "speed-up": "The reference engine's compute to a coverage threshold divided by this engine's (above 1: faster).",
    "platform": "The OpenMM platform the ground truth ran on.",
    "runs": "Independent ground-truth runs (each from its own start).",
    "atoms": "Atoms of the solvated system (mean over runs).",
    "production ns": "Simulated production time of the ground truth (equilibration excluded).",
    "ns per day": "Simulated nanoseconds per day of wall-clock time (median and mean over runs).",
    "rank": "The engine's place by the ranking rule (=n: shared); not ranked where it has no value that may rank.",
    "ranks above/below": "The engines it is ranked above or below by the ranking rule.",
    "values it can rank on": "Its W1 and KL values with a verdict that the run can read (not left out: see the "
    "ranking rule), of all it has.",
    "separated from the floor": "How many of its values are separated from the noise floor.",
    "sanity check": "Checks of an engine's frames before scoring, independent of the ground truth's size: collapse, "
    "chirality (mirror image), units (C-alpha bond length scale), exploded frames. An engine that fails one is "
    "named as failed, never ranked.",
    "failure to learn": "A CG model whose training kept epoch 0 or lowered its validation loss by less than "
    "cg.training.min_relative_drop: it is the untrained network on its prior.",
    "control": "An engine whose answer is known, made from the run's own ground truth: a correct one (must be within "
    "noise) or a known-bad one (collapsed, mirrored, scaled, shifted, ...: must be separated on what it changes).",
    "failure mode": "What a known-bad control stands for.",
    "expected": "The verdict a control must get: within noise (a correct engine) or separated (a known-bad one).",
    "as expected": "yes: the control got its expected verdict (a known-bad one caught); no; cannot tell: nothing "
    "was decided.",
    "separated on": "The divergences on which a control was separated.",
    "what it is": "How the control was made.",
    "smallest separated": "The smallest value of a known-bad control the run separated on that distribution: its "
    "resolution there.",
    "largest within noise": "The largest value of a known-bad control it left within noise there.",
    "resolved": "Whether some known-bad control that changes the distribution was separated there.",
    "distribution": "What is compared (a TIC, Rg, bonds, angles, dihedrals).",
    "kind": "The calibration study's engines: null (the reference itself: must be within noise), perturbation (the "
    "reference made hotter or its native contacts weaker: its answer is known), trained (a CG model trained on the "
    "study's ground truth).",
    "temperature ×, contacts ×": "A calibration perturbation's size: the temperature, and the strength of the native "
    "contacts, as multiples of the reference's (1: unchanged).",
    "dynamics": "A calibration engine's change of dynamics only (friction ×, timestep ×; empty for none): the "
    "equilibrium is unchanged, so its answer is within noise.",
    "key, reason": "A not_estimable entry of metrics.json: what could not be estimated, and why.",
}
#: Table headings (lower case, unit stripped) that name a term differently, -> the terms they use.
ALIASES = {
    "tic 0": ["TIC"],
    "tic 1": ["TIC"],
    "tic 2": ["TIC"],
    "tic 3": ["TIC"],
    "tic 0/1": ["TIC"],
    "contact map w1": ["contact map W1"],
    "longest_simulated_ns": ["simulated ns"],
    "aggregate_simulated_ns": ["simulated ns"],
    "cpu_seconds": ["compute seconds"],
    "gpu_seconds": ["compute seconds"],
    "production_ns": ["production ns"],
    "median_ns_per_day": ["ns per day"],
    "ns_per_day": ["ns per day"],
    "w1 against the ground truth": ["W1"],  # the bottom line's heatmaps
    "kl against the ground truth": ["KL"],
    "mean_ns_per_day": ["ns per day"],
    "ranks above": ["ranks above/below"],
    "ranks below": ["ranks above/below"],
    "key": ["key, reason"],
    "temperature ×": ["temperature ×, contacts ×"],
    "contacts ×": ["temperature ×, contacts ×"],
    "reason": ["key, reason"],
}
PATTERNS = (
    (re.compile(r"^speedup_"), ["speed-up"]),
    (re.compile(r"^(segments|cpu_seconds|gpu_seconds)_to_[\d.]+%$"), ["compute to a coverage threshold"]),
)
_LOWER = {term.lower(): term for term in DEFINITIONS}


def anchor(term: str) -> str:
    """The id of a term's definition.

    Examples
    --------
    >>> anchor("bonds outside 3.5-4.5 Å")
    'def-bonds-outside-3-5-4-5'
    """
    return "def-" + "-".join(re.findall(r"[a-z0-9]+", term.lower()))


def terms_of(heading: str) -> list[str]:
    """The defined terms a table heading uses ([] when none: the test of every table catches it)."""
    name = re.sub(r"\s*\((Å|°)\)$", "", str(heading)).strip()
    lower = name.lower()
    if lower in _LOWER:
        return [_LOWER[lower]]
    if lower in ALIASES:
        return list(ALIASES[lower])
    for pattern, terms in PATTERNS:
        if pattern.search(lower):
            return list(terms)
    head, _, rest = name.partition(" ")
    if head in ("W1", "KL") and rest:
        inner = terms_of(rest)
        return [head, *inner] if inner else []
    return []


def defined_line(headings: Iterable[str]) -> Markup:
    """A note linking the definitions of the terms ``headings`` use, each once ("" when none)."""
    terms = list(dict.fromkeys(term for heading in headings for term in terms_of(heading)))
    if not terms:
        return Markup("")
    links = Markup(", ").join(Markup('<a href="#{}">{}</a>').format(anchor(term), term) for term in terms)
    return Markup('<p class="defined note">Defined (<a href="#definitions">Definitions</a>): {}.</p>').format(links)


def headings_of(html: str) -> list[str]:
    """The ``<th>`` texts of rendered tables (tags inside a heading dropped)."""
    return [re.sub(r"<[^>]+>", "", cell).strip() for cell in re.findall(r"<th[^>]*>(.*?)</th>", str(html), re.S)]


def definitions_html() -> Markup:
    """The section "Definitions": every term with its definition."""
    items = Markup("").join(
        Markup('<dt id="{}">{}</dt><dd>{}</dd>\n').format(anchor(term), term, text)
        for term, text in DEFINITIONS.items()
    )
    return Markup(
        '<section><h2 id="definitions">Definitions</h2>\n<dl class="definitions">\n{}</dl></section>\n'
    ).format(items)
