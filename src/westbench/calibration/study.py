"""The calibration study's engines and what each one runs: the one owner of the study's engine list.

Engines: ``reference`` (the null: the reference potential at the study temperature), one per entry of
``calibration.perturbations`` (the reference with a known change of its equilibrium: temperature and/or
native-contact strength, :func:`perturbation`; and/or of its dynamics alone: friction, timestep, steps per
segment, :func:`dynamics`) and ``cg_<preset>`` per entry of ``calibration.presets`` (a CG model trained by
force matching on the reference's own forces), then the user's engines of ``calibration.engines``
(:func:`user_entries`): ``cg_<model>`` runs the user's CG model ``cg.models.<model>`` on the study's beads, a
mapping names the user's engine class. A user's engine has no known answer: the study scores it beside the
engines that have one, so its verdicts read against the resolution the study measured.

A change of dynamics alone leaves the equilibrium where it was (the Langevin thermostat samples the same
Boltzmann distribution at any friction; BAOAB's configurational error at the study's timestep is small), so
such an engine must come out *within noise*: it may sample more slowly, which the study reports apart
(:mod:`westbench.calibration.table`, sampling speed).

Examples
--------
>>> study = {"temperature_k": 300.0, "langevin": {"timestep_fs": 10.0, "friction_per_ps": 1.0, "bead_mass_amu": 110.0},
...          "perturbations": {"temperature_110": {"temperature_scale": 1.1}, "contacts_80": {"contact_scale": 0.8},
...                            "friction_x10": {"friction_scale": 10.0}},
...          "presets": ["fulltrained"], "we": {"steps_per_segment": 100}}
>>> engines(study)
['reference', 'temperature_110', 'contacts_80', 'friction_x10', 'cg_fulltrained']
>>> engine_langevin(study, "friction_x10")["friction_per_ps"], is_dynamics_only(study, "friction_x10")
(10.0, True)
>>> round(engine_langevin(study, "temperature_110")["temperature_k"], 6), contact_scale(study, "contacts_80")
(330.0, 0.8)
>>> is_reference_model(study, "cg_fulltrained"), trained_preset("cg_fulltrained")
(False, 'fulltrained')
>>> mine = {**study, "engines": ["cg_mymodel", {"name": "elastic", "class": "pkg.mod:Elastic", "timestep_fs": 20.0}]}
>>> engines(mine)[-2:], sorted(user_entries(mine)), is_user_engine(mine, "elastic")
(['cg_mymodel', 'elastic'], ['cg_mymodel', 'elastic'], True)
>>> segment_ps(mine, "elastic"), segment_ps(mine, "cg_mymodel")
(2.0, 1.0)
"""

from __future__ import annotations

from typing import Mapping

from westbench.engines.kinds import CG_PREFIX
from westbench.errors import ConfigError

#: The null engine: the reference potential itself.
REFERENCE = "reference"

#: The force-matching noise floor of the study's training data, known rather than estimated: the ground truth's
#: forces are the reference's own, exact functions of the C-alpha positions, so no part of them is noise from
#: left-out atoms and a perfect model's loss is 0.
REFERENCE_FORCE_NOISE_FLOOR = 0.0


def engines(study: Mapping) -> list[str]:
    """Every engine of the study, in report order: the null, the perturbations, the trained models, the user's."""
    trained = [f"{CG_PREFIX}{p}" for p in study.get("presets", [])]
    names = [REFERENCE, *study.get("perturbations", {}), *trained, *user_entries(study)]
    clash = sorted({n for n in study.get("perturbations", {}) if n.startswith(CG_PREFIX) or n == REFERENCE})
    if clash:
        raise ConfigError(
            f"calibration.perturbations {clash}: names starting with '{CG_PREFIX}' or '{REFERENCE}' "
            "belong to the trained models and the null engine; rename them."
        )
    taken = [n for n in user_entries(study) if n in {REFERENCE, *study.get("perturbations", {}), *trained}]
    if taken:
        raise ConfigError(
            f"calibration.engines {taken}: the study already has an engine of that name (the null, a perturbation "
            "or a trained preset); rename your engine or your cg.models entry."
        )
    return names


def user_entries(study: Mapping) -> dict[str, Mapping | None]:
    """The user's engines of the study (``calibration.engines``) by engine name: ``cg_<model>`` (None: its entry
    is ``cg.models.<model>``) or an engine-class entry (``name``, ``class``, ``options``, ...).

    Raises
    ------
    ConfigError
        For a name given twice.
    """
    out: dict[str, Mapping | None] = {}
    for item in study.get("engines") or []:
        name = item if isinstance(item, str) else item["name"]
        if name in out:
            raise ConfigError(f"calibration.engines: '{name}' is given twice; give each engine once.")
        out[name] = None if isinstance(item, str) else dict(item)
    return out


def is_user_engine(study: Mapping, engine: str) -> bool:
    """Whether the engine is the user's (``calibration.engines``): scored, with no known answer."""
    return engine in user_entries(study)


def user_class_entry(study: Mapping, engine: str) -> Mapping | None:
    """The engine-class entry of a user's engine; None for a user's CG model and every other engine."""
    return user_entries(study).get(engine)


def is_reference_model(study: Mapping, engine: str) -> bool:
    """Whether the engine runs the reference potential (the null or a perturbation) rather than a trained model."""
    return engine == REFERENCE or engine in study.get("perturbations", {})


def trained_preset(engine: str) -> str:
    """The cg preset of a trained engine ``cg_<preset>``."""
    if not engine.startswith(CG_PREFIX):
        raise ConfigError(f"calibration engine {engine!r} is not a trained model ({CG_PREFIX}<preset>)")
    return engine[len(CG_PREFIX) :]


def perturbation(study: Mapping, engine: str) -> dict:
    """The engine's change from the reference: ``temperature_scale`` and ``contact_scale`` (1 = unchanged)."""
    known = engine in study.get("perturbations", {}) or engine == REFERENCE or is_user_engine(study, engine)
    if not known and not engine.startswith(CG_PREFIX):
        raise ConfigError(
            f"calibration engine {engine!r}: not the reference, a calibration.perturbations entry "
            f"or a trained preset ({', '.join(engines(study))})"
        )
    change = study.get("perturbations", {}).get(engine, {})
    return {
        "temperature_scale": float(change.get("temperature_scale", 1.0)),
        "contact_scale": float(change.get("contact_scale", 1.0)),
    }


#: The keys of a perturbation that change the dynamics only, and their "no change".
DYNAMICS = {"friction_scale": 1.0, "timestep_scale": 1.0, "steps_per_segment": None}


def dynamics(study: Mapping, engine: str) -> dict:
    """The engine's change of dynamics alone: ``friction_scale``, ``timestep_scale`` (1 = unchanged) and
    ``steps_per_segment`` (the study's ``calibration.we.steps_per_segment`` when not set)."""
    perturbation(study, engine)  # the engine's name checked
    change = study.get("perturbations", {}).get(engine, {})
    we = study.get("we") or {}
    steps = change.get("steps_per_segment", we.get("steps_per_segment"))
    every = we.get("save_every")
    if steps is not None and every and int(steps) % int(every):
        raise ConfigError(
            f"calibration.perturbations.{engine}.steps_per_segment {steps} is not a multiple of "
            f"calibration.we.save_every {every}: every segment must end on a saved frame; use a multiple of {every}"
        )
    return {
        "friction_scale": float(change.get("friction_scale", 1.0)),
        "timestep_scale": float(change.get("timestep_scale", 1.0)),
        "steps_per_segment": None if steps is None else int(steps),
    }


def changes_equilibrium(study: Mapping, engine: str) -> bool:
    """Whether the engine's equilibrium is not the reference's (its temperature or contacts changed)."""
    return perturbation(study, engine) != {"temperature_scale": 1.0, "contact_scale": 1.0}


def is_dynamics_only(study: Mapping, engine: str) -> bool:
    """Whether the engine is the reference with its dynamics changed and its equilibrium not (expected *within
    noise*)."""
    change = study.get("perturbations", {}).get(engine, {})
    return not changes_equilibrium(study, engine) and any(key in change for key in DYNAMICS)


def segment_ps(study: Mapping, engine: str) -> float:
    """How long one of the engine's WE segments is, in ps (its steps per segment times its timestep)."""
    steps = dynamics(study, engine)["steps_per_segment"]
    return float(steps or 0) * timestep_fs(study, engine) / 1000.0


def timestep_fs(study: Mapping, engine: str) -> float:
    """The engine's timestep (its exported frames' times): a user's engine class its entry's ``timestep_fs``
    (the study's when null), every other engine its :func:`engine_langevin`'s."""
    entry = user_class_entry(study, engine)
    if entry is not None and entry.get("timestep_fs") is not None:
        return float(entry["timestep_fs"])
    return float(engine_langevin(study, engine)["timestep_fs"])


def contact_scale(study: Mapping, engine: str) -> float:
    return perturbation(study, engine)["contact_scale"]


def engine_langevin(study: Mapping, engine: str) -> dict:
    """The CG engine's ``langevin`` settings of one study engine: the study's dynamics at its temperature, with
    its friction and timestep scaled where it changes them."""
    temperature = float(study["temperature_k"]) * perturbation(study, engine)["temperature_scale"]
    change, langevin = dynamics(study, engine), dict(study["langevin"])
    return {
        **langevin,
        "temperature_k": temperature,
        "friction_per_ps": float(langevin["friction_per_ps"]) * change["friction_scale"],
        "timestep_fs": float(langevin["timestep_fs"]) * change["timestep_scale"],
    }
