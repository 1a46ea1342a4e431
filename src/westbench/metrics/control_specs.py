"""The controls of a run, one :class:`ControlSpec` each: what each is, what it moves by construction and how it is
made from the source half of the ground truth (:mod:`westbench.metrics.control_engines` does the transformations;
:mod:`westbench.metrics.controls` scores them).

Examples
--------
>>> [spec.name for spec in control_specs({"kinds": ["null_half", "mirror", "shift"], "tic0_shifts": [0.5, 2]})]
['null_half', 'mirror', 'shift_tic0_0.5sd', 'shift_tic0_2sd']
>>> control_specs({"kinds": ["mirror"]})[0].moves, control_specs({"kinds": ["mirror"]})[0].expected
(('dihedrals',), 'separated')
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Mapping

from westbench.config import section_defaults
from westbench.errors import ConfigError, WestbenchError
from westbench.io.frames import Frames
from westbench.metrics import control_engines as engines
from westbench.metrics.noise_floor import SEPARATED, WITHIN_NOISE
from westbench.seeds import derive_seed

#: The control families, in the order they are scored (``controls.kinds`` picks among them).
KINDS = (
    "null_half",
    "rigid",
    "collapse",
    "mirror",
    "scale",
    "shift",
    "spread",
    "temperature",
    "missing_state",
    "noise",
)
#: Gaussian noise (nm) on each row of the collapsed control: a stuck engine's frames are close, never bitwise copies
#: (copies are one conformation to the scoring, westbench.io.canonical); 0.05 Angstrom, below any thermal spread.
COLLAPSE_JITTER_NM = 0.005
_TICS = ("tic0", "tic1", "tic2", "tic3", "tic01")
_ALL = (*_TICS, "rg", "bonds", "angles", "dihedrals")


@dataclass
class Context:
    """What the controls are made with besides the source frames: the protein's TICA and macrostate models, the
    ground truth's TIC-0 standard deviation (the unit of the shifts) and the job's seed."""

    tica_model: object | None
    macrostate_model: object | None
    tic0_sd: float
    seed: int


@dataclass(frozen=True)
class ControlSpec:
    """One control: its name (unique), family (:data:`KINDS`), kind (``null`` or ``failure``), the failure mode
    it stands for (None for a null), a description, the distributions it moves by construction, its graded effect
    (None when not graded) and how it is made from the source half (frames and what was done, given a
    :class:`Context`)."""

    name: str
    family: str
    kind: str
    failure_mode: str | None
    description: str
    moves: tuple[str, ...]
    make: Callable[[Frames, Context], tuple[Frames, str]]
    effect: float | None = None

    @property
    def expected(self) -> str:
        return WITHIN_NOISE if self.kind == "null" else SEPARATED


def _number(value: float) -> str:
    return f"{float(value):g}"


def _graded(settings: Mapping, key: str, forbidden: float | None = None) -> list[float]:
    values = [float(v) for v in settings[key]]
    if forbidden is not None and any(math.isclose(v, forbidden) for v in values):
        raise ConfigError(
            f"controls.{key} holds {_number(forbidden)}: that control would be the null itself; remove it "
            "(config/schema.yaml, section controls)"
        )
    return values


def control_specs(settings: Mapping | None = None) -> list[ControlSpec]:
    """Every control the ``controls`` settings ask for (schema defaults for keys not given), graded ones once per
    level, in :data:`KINDS` order.

    Examples
    --------
    >>> [spec.name for spec in control_specs({"kinds": ["null_half", "scale", "shift"], "scale_factors": [10],
    ...                                       "tic0_shifts": [0.5, 1]})]
    ['null_half', 'scale_x10', 'shift_tic0_0.5sd', 'shift_tic0_1sd']
    """
    s = {**section_defaults("controls"), **(settings or {})}
    unknown = sorted(set(s["kinds"]) - set(KINDS))
    if unknown:
        raise ConfigError(f"controls.kinds names {unknown}: not controls; choose among {', '.join(KINDS)}")
    specs: list[ControlSpec] = []
    kinds = set(s["kinds"])
    if "null_half" in kinds:
        specs.append(
            ControlSpec(
                "null_half",
                "null_half",
                "null",
                None,
                "the other half of the ground truth's runs as it is: an engine that samples the ground truth's "
                "equilibrium, which must come out within noise",
                (),
                lambda frames, c: (engines.kept(frames), "the source half as it is"),
            )
        )
    if "rigid" in kinds:
        specs.append(
            ControlSpec(
                "rigid",
                "rigid",
                "null",
                None,
                "the null's frames each rotated at random and moved up to 1 nm (TICs projected again): a "
                "transformation no score may see, so within noise as the null",
                (),
                lambda frames, c: (
                    engines.rigidly_moved(frames, derive_seed(c.seed, "rigid"), c.tica_model),
                    "rotated and moved",
                ),
            )
        )
    if "collapse" in kinds:
        k = int(s["collapse_frames"])
        specs.append(
            ControlSpec(
                "collapse",
                "collapse",
                "failure",
                f"collapse ({k} conformation{'s' if k != 1 else ''} repeated)",
                f"{k} frame{'s' if k != 1 else ''} of the source half repeated over its rows, each row jittered by "
                f"{_number(10 * COLLAPSE_JITTER_NM)} Å (TICs projected again): an engine stuck in a few conformations "
                "(exact copies are one conformation to the scoring, whose effective sample size then says it)",
                _ALL,
                lambda frames, c: (
                    engines.collapsed(frames, k, derive_seed(c.seed, "collapse"), COLLAPSE_JITTER_NM, c.tica_model),
                    f"{k} conformations repeated",
                ),
                float(k),
            )
        )
    if "mirror" in kinds:
        specs.append(
            ControlSpec(
                "mirror",
                "mirror",
                "failure",
                "mirror image",
                "every frame mirrored (x -> -x), TICs projected again: the wrong chirality; every distance, hence "
                "every TIC, Rg, bond and angle, is unchanged, only the dihedrals change sign",
                ("dihedrals",),
                lambda frames, c: (engines.mirrored(frames, c.tica_model), "mirrored"),
            )
        )
    for factor in _graded(s, "scale_factors", 1.0) if "scale" in kinds else []:
        units = " (Angstrom read as nm)" if math.isclose(factor, 10.0) else ""
        specs.append(
            ControlSpec(
                f"scale_x{_number(factor)}",
                "scale",
                "failure",
                f"coordinates x{_number(factor)}{units}",
                f"every coordinate times {_number(factor)}{units}, TICs projected again; angles and dihedrals are "
                "unchanged",
                ("tic0", "tic1", "tic2", "tic3", "tic01", "rg", "bonds"),
                lambda frames, c, factor=factor: (engines.scaled(frames, factor, c.tica_model), "scaled"),
                factor,
            )
        )
    for shift in _graded(s, "tic0_shifts", 0.0) if "shift" in kinds else []:
        specs.append(
            ControlSpec(
                f"shift_tic0_{_number(shift)}sd",
                "shift",
                "failure",
                f"shift along TIC 0 by {_number(shift)} sd",
                f"TIC 0 moved by {_number(shift)} standard deviations of the ground truth's TIC 0 (coordinates "
                "unchanged): the smallest W1 on TIC 0 the run separates",
                ("tic0", "tic01"),
                lambda frames, c, shift=shift: _shift(frames, c, shift),
                shift,
            )
        )
    for factor in _graded(s, "spread_factors", 1.0) if "spread" in kinds else []:
        how = "broadened" if factor > 1 else "narrowed"
        specs.append(
            ControlSpec(
                f"spread_x{_number(factor)}",
                "spread",
                "failure",
                f"TIC spread x{_number(factor)} ({how})",
                f"every TIC's deviation from its mean times {_number(factor)} ({how}; coordinates unchanged)",
                _TICS,
                lambda frames, c, factor=factor, how=how: (engines.spread(frames, factor), how),
                factor,
            )
        )
    for ratio in _graded(s, "temperature_ratios", 1.0) if "temperature" in kinds else []:
        how = "hotter" if ratio > 1 else "colder"
        specs.append(
            ControlSpec(
                f"temperature_x{_number(ratio)}",
                "temperature",
                "failure",
                f"{how} equilibrium along TIC 0/1 (T' = {_number(ratio)} T)",
                f"the source half reweighted by p(x)^(T/T' - 1) with T'/T = {_number(ratio)}, p its own kernel "
                f"density along TIC 0/1: a {'flatter' if ratio > 1 else 'sharper'} equilibrium (the "
                "explicit-solvent energies are the whole solvated system's and cannot reweight it)",
                ("tic0", "tic1", "tic01"),
                lambda frames, c, ratio=ratio: (
                    engines.reweighted(frames, ratio, derive_seed(c.seed, "temperature", _number(ratio))),
                    f"reweighted to T' = {_number(ratio)} T",
                ),
                ratio,
            )
        )
    if "missing_state" in kinds:
        share = float(s["missing_state_share"])
        specs.append(
            ControlSpec(
                "missing_state",
                "missing_state",
                "failure",
                "a missing metastable state",
                "the source half without one metastable state's frames (the macrostate whose share is closest to "
                f"{_number(share)}): an engine that never reaches it",
                _TICS,
                lambda frames, c: engines.without_state(frames, c.macrostate_model, share),
                share,
            )
        )
    for sigma in _graded(s, "noise_angstrom", 0.0) if "noise" in kinds else []:
        specs.append(
            ControlSpec(
                f"noise_{_number(sigma)}A",
                "noise",
                "failure",
                f"coordinate noise {_number(sigma)} Å",
                f"Gaussian noise of {_number(sigma)} Å on every coordinate, TICs projected again: an engine too hot "
                "at the bond level",
                _ALL,
                lambda frames, c, sigma=sigma: (
                    engines.noisy(frames, sigma / 10.0, derive_seed(c.seed, "noise", _number(sigma)), c.tica_model),
                    "noise added",
                ),
                sigma,
            )
        )
    return specs


def _shift(frames: Frames, context: Context, shift: float) -> tuple[Frames, str]:
    if not context.tic0_sd > 0:
        raise WestbenchError("the ground truth's TIC 0 has no spread: a shift in its units is 0")
    delta = shift * context.tic0_sd
    return engines.shifted(frames, 0, delta), f"TIC 0 + {delta:.4g}"
