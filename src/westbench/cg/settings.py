"""Force matching's settings as one typed object: the ``cg.training`` section with a preset's overrides.

config/schema.yaml owns every default and its description; :class:`TrainingSettings` declares each key once with its
type, takes its default from the schema (``cg.training``; ``cg.presets`` override the same keys), refuses a key it
does not know (naming the schema's keys) and a learning-rate schedule other than ``constant`` or ``plateau``, and is
what the training loop (:func:`westbench.cg.train.train_model`) reads (attributes, not string keys). The training
summary records the whole resolved set (:meth:`TrainingSettings.as_dict`, in the schema's key order).

Examples
--------
>>> settings = TrainingSettings.of({"frame_fraction": 0.1, "lr_schedule": "constant"})
>>> settings.frame_fraction, settings.lr_schedule, settings.batch_size == TrainingSettings().batch_size
(0.1, 'constant', True)
>>> TrainingSettings.of({"epochs": 5})  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ValueError: unknown cg.training setting(s) ['epochs'] (config/schema.yaml's cg.training section has: ...)
>>> TrainingSettings.of({"lr_schedule": "cosine"})
Traceback (most recent call last):
...
westbench.errors.ConfigError: unknown lr_schedule 'cosine': constant or plateau
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields

from westbench.config import section_defaults
from westbench.errors import ConfigError

_SCHEMA = section_defaults("cg.training")  # the schema owns the defaults
#: The learning-rate schedules (``cg.training.lr_schedule``).
LR_SCHEDULES = ("constant", "plateau")


@dataclass(frozen=True)
class TrainingSettings:
    """Every setting of force matching (config/schema.yaml's ``cg.training`` section describes each).

    :meth:`of` builds one from a mapping (``cg.training`` with a preset's overrides:
    :func:`westbench.cg.train.preset_training`).

    Raises
    ------
    ConfigError
        For an ``lr_schedule`` other than ``constant`` or ``plateau``.
    """

    frame_fraction: float = _SCHEMA["frame_fraction"]
    validation_fraction: float = _SCHEMA["validation_fraction"]
    batch_size: int = _SCHEMA["batch_size"]
    learning_rate: float = _SCHEMA["learning_rate"]
    max_epochs: int = _SCHEMA["max_epochs"]
    early_stopping_patience: int = _SCHEMA["early_stopping_patience"]
    lr_schedule: str = _SCHEMA["lr_schedule"]
    plateau_factor: float = _SCHEMA["plateau_factor"]
    plateau_patience: int = _SCHEMA["plateau_patience"]
    min_learning_rate: float = _SCHEMA["min_learning_rate"]
    min_relative_drop: float = _SCHEMA["min_relative_drop"]

    def __post_init__(self):
        if self.lr_schedule not in LR_SCHEDULES:
            raise ConfigError(f"unknown lr_schedule {self.lr_schedule!r}: constant or plateau")

    @classmethod
    def of(cls, training: Mapping | TrainingSettings | None = None, **overrides) -> TrainingSettings:
        """The settings from a mapping of ``cg.training`` keys over the schema's defaults, with ``overrides`` on top;
        a :class:`TrainingSettings` is returned as it is (with the overrides)."""
        if isinstance(training, TrainingSettings):
            if not overrides:
                return training
            training = training.as_dict()
        given = {**dict(training or {}), **overrides}
        known = [f.name for f in fields(cls)]
        unknown = sorted(set(given) - set(known))
        if unknown:
            raise ValueError(
                f"unknown cg.training setting(s) {unknown} (config/schema.yaml's cg.training section has: "
                f"{', '.join(known)}; cg.presets override the same keys)"
            )
        return cls(**given)

    def as_dict(self) -> dict:
        """Every setting, in the schema's key order."""
        return {f.name: getattr(self, f.name) for f in fields(self)}
