"""A WE job's settings as one typed object: the ``we`` keys its rule passes (``westbench.plan``'s ``we_run`` job),
this engine's iteration cap, and the few keys added per job.

config/schema.yaml owns every default and its description; :class:`WESettings` declares each key once with its
type, takes its default from the schema (the ``we`` section; ``coverage_bins`` from ``metrics``), refuses a key it
does not know (naming the keys it has), and is what the WE launch and the engine entry read (attributes, not string
keys). The job's summary records the mapping the job was given (:meth:`WESettings.as_dict` gives the whole resolved
set).

Examples
--------
>>> settings = WESettings.of({"bins_per_tic": 5, "work_manager": "serial"})
>>> settings.bins_per_tic, settings.work_manager, settings.user_engine, settings.save_every == WESettings().save_every
(5, 'serial', None, True)
>>> WESettings.of(settings) is settings
True
>>> WESettings.of({"bins_per_dim": 5})  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ValueError: unknown we setting(s) ['bins_per_dim'] (config/schema.yaml's we section gives the WE job: ...)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields

from westbench.config import section_defaults

_SCHEMA = section_defaults("we")  # the schema owns the defaults
_COVERAGE_BINS = section_defaults("metrics")["coverage_bins"]
#: Keys of a WE job's settings that are not ``we`` keys: the one coverage grid and a user engine's entry.
_ADDED = ("coverage_bins", "user_engine")


@dataclass(frozen=True)
class WESettings:
    """Every setting one WE job reads (config/schema.yaml's ``we`` section describes each).

    ``max_iterations`` is the engine's own cap (``we.max_iterations_by_engine`` over ``we.max_iterations``);
    ``batch_walkers`` is passed to OpenMM engines only; ``coverage_bins`` (``metrics.coverage_bins``) is passed with
    a ``coverage_target``, else the schema's grid gives the log line's coverage; ``user_engine`` is a user engine's
    ``we.engines`` entry (None for a built-in engine). :meth:`of` builds one from a mapping.
    """

    bins_per_tic: int = _SCHEMA["bins_per_tic"]
    walkers_per_bin: int = _SCHEMA["walkers_per_bin"]
    initial_walkers: int = _SCHEMA["initial_walkers"]
    steps_per_segment: int = _SCHEMA["steps_per_segment"]
    save_every: int = _SCHEMA["save_every"]
    max_iterations: int = _SCHEMA["max_iterations"]
    max_wallclock_s: float | None = _SCHEMA["max_wallclock_s"]
    coverage_target: float | None = _SCHEMA["coverage_target"]
    coverage_check_every: int = _SCHEMA["coverage_check_every"]
    work_manager: str = _SCHEMA["work_manager"]
    batch_walkers: int | str = _SCHEMA["batch_walkers"]
    keep_restarts: int = _SCHEMA["keep_restarts"]
    coverage_bins: int = _COVERAGE_BINS
    user_engine: Mapping | None = None

    @classmethod
    def of(cls, settings: Mapping | WESettings | None = None, **overrides) -> WESettings:
        """The settings from a mapping of the job's keys over the schema's defaults, with ``overrides`` on top; a
        :class:`WESettings` is returned as it is (with the overrides)."""
        if isinstance(settings, WESettings):
            if not overrides:
                return settings
            settings = settings.as_dict()
        given = {**dict(settings or {}), **overrides}
        known = [f.name for f in fields(cls)]
        unknown = sorted(set(given) - set(known))
        if unknown:
            raise ValueError(
                f"unknown we setting(s) {unknown} (config/schema.yaml's we section gives the WE job: "
                f"{', '.join(sorted(set(known) - set(_ADDED)))}; with metrics.coverage_bins as 'coverage_bins' and "
                "a user engine's we.engines entry as 'user_engine')"
            )
        return cls(**given)

    def as_dict(self) -> dict:
        """Every setting as plain JSON values (a user engine's entry as a dict)."""
        return {f.name: _plain(getattr(self, f.name)) for f in fields(self)}


def _plain(value):
    return dict(value) if isinstance(value, Mapping) else value
