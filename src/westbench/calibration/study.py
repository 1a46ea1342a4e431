"""The calibration study's engines and what each one runs: the one owner of the study's engine list.

Engines: ``reference`` (the null: the reference potential at the study temperature), one per entry of
``calibration.perturbations`` (the reference with a known change of temperature and/or native-contact
strength) and ``cg_<preset>`` per entry of ``calibration.presets`` (a CG model trained by force matching
on the reference's own forces).

Examples
--------
>>> study = {"temperature_k": 300.0, "langevin": {"timestep_fs": 10.0, "friction_per_ps": 1.0, "bead_mass_amu": 110.0},
...          "perturbations": {"temperature_110": {"temperature_scale": 1.1}, "contacts_80": {"contact_scale": 0.8}},
...          "presets": ["fulltrained"]}
>>> engines(study)
['reference', 'temperature_110', 'contacts_80', 'cg_fulltrained']
>>> round(engine_langevin(study, "temperature_110")["temperature_k"], 6), contact_scale(study, "contacts_80")
(330.0, 0.8)
>>> is_reference_model(study, "cg_fulltrained"), trained_preset("cg_fulltrained")
(False, 'fulltrained')
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
    """Every engine of the study, in report order: the null, the perturbations, the trained models."""
    names = [REFERENCE, *study.get("perturbations", {}), *[f"{CG_PREFIX}{p}" for p in study.get("presets", [])]]
    clash = sorted({n for n in study.get("perturbations", {}) if n.startswith(CG_PREFIX) or n == REFERENCE})
    if clash:
        raise ConfigError(
            f"calibration.perturbations {clash}: names starting with '{CG_PREFIX}' or '{REFERENCE}' "
            "belong to the trained models and the null engine; rename them."
        )
    return names


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
    if engine not in study.get("perturbations", {}) and engine != REFERENCE and not engine.startswith(CG_PREFIX):
        raise ConfigError(
            f"calibration engine {engine!r}: not the reference, a calibration.perturbations entry "
            f"or a trained preset ({', '.join(engines(study))})"
        )
    change = study.get("perturbations", {}).get(engine, {})
    return {
        "temperature_scale": float(change.get("temperature_scale", 1.0)),
        "contact_scale": float(change.get("contact_scale", 1.0)),
    }


def contact_scale(study: Mapping, engine: str) -> float:
    return perturbation(study, engine)["contact_scale"]


def engine_langevin(study: Mapping, engine: str) -> dict:
    """The CG engine's ``langevin`` settings of one study engine: the study's dynamics at its temperature."""
    temperature = float(study["temperature_k"]) * perturbation(study, engine)["temperature_scale"]
    return {**dict(study["langevin"]), "temperature_k": temperature}
