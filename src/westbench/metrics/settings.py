"""The metric suite's settings as one typed object: the ``metrics`` section of the config and the suite's seed.

config/schema.yaml owns every default and its description; :class:`MetricSettings` declares each key once with its
type, takes its default from the schema, refuses a key it does not know (naming the schema's keys), and is what the
suite, its resampling, the KL rows and the figures read (attributes, not string keys). ``metrics.json`` records the
mapping the job was given (:meth:`MetricSettings.as_dict` gives the whole resolved set).

Examples
--------
>>> settings = MetricSettings.of({"bins": 50, "weightings": ["we"]}, seed=3)
>>> settings.bins, settings.weightings, settings.seed, settings.msm_bins == MetricSettings().msm_bins
(50, ('we',), 3, True)
>>> MetricSettings.of({"bin": 50})  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ValueError: unknown metrics setting(s) ['bin'] (config/schema.yaml's metrics section has: ...)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields

from westbench.config import section_defaults

_SCHEMA = section_defaults("metrics")  # the schema owns the defaults


@dataclass(frozen=True)
class MetricSettings:
    """Every setting of the metric suite (config/schema.yaml's ``metrics`` section describes each) and its seed.

    Lists of the config are tuples here (the object is frozen); :meth:`of` builds one from a mapping.
    """

    weightings: tuple[str, ...] = tuple(_SCHEMA["weightings"])
    bins: int = _SCHEMA["bins"]
    kl_floor: float = _SCHEMA["kl_floor"]
    kl_estimator: str = _SCHEMA["kl_estimator"]
    kl_neighbours: int = _SCHEMA["kl_neighbours"]
    kl_query_points: int = _SCHEMA["kl_query_points"]
    msm_bins: int = _SCHEMA["msm_bins"]
    msm_lag: int = _SCHEMA["msm_lag"]
    coverage_bins: int = _SCHEMA["coverage_bins"]
    coverage_thresholds: tuple[float, ...] = tuple(_SCHEMA["coverage_thresholds"])
    macrostate_clusters: int = _SCHEMA["macrostate_clusters"]
    macrostates: int = _SCHEMA["macrostates"]
    macrostate_dim: int = _SCHEMA["macrostate_dim"]
    density: str = _SCHEMA["density"]
    kde_bandwidth: float | str | None = _SCHEMA["kde_bandwidth"]
    scatter_max_points: int = _SCHEMA["scatter_max_points"]
    w1_2d_bins: int = _SCHEMA["w1_2d_bins"]
    bootstrap: int = _SCHEMA["bootstrap"]
    bootstrap_blocks: int = _SCHEMA["bootstrap_blocks"]
    block_decorrelation: float = _SCHEMA["block_decorrelation"]
    floor_splits: int = _SCHEMA["floor_splits"]
    discard_iterations: int = _SCHEMA["discard_iterations"]
    min_effective_frames: float = _SCHEMA["min_effective_frames"]
    reference_engine: str = _SCHEMA["reference_engine"]
    kl_sensitivity_bins: tuple[int, ...] = tuple(_SCHEMA["kl_sensitivity_bins"])
    #: Not a config key: the job's seed (the rule's stage seed), from which every draw of the suite derives.
    seed: int = 0

    @classmethod
    def of(cls, settings: Mapping | MetricSettings | None = None, **overrides) -> MetricSettings:
        """The settings from a mapping of ``metrics`` keys (and ``seed``) over the schema's defaults, with
        ``overrides`` on top; a :class:`MetricSettings` is returned as it is (with the overrides)."""
        if isinstance(settings, MetricSettings):
            if not overrides:
                return settings
            settings = settings.as_dict()
        given = {**dict(settings or {}), **overrides}
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(given) - known)
        if unknown:
            raise ValueError(
                f"unknown metrics setting(s) {unknown} (config/schema.yaml's metrics section has: "
                f"{', '.join(sorted(known - {'seed'}))}; the suite's seed is 'seed')"
            )
        return cls(**{name: tuple(value) if isinstance(value, list) else value for name, value in given.items()})

    def as_dict(self) -> dict:
        """Every setting as plain JSON values (tuples as lists)."""
        return {f.name: _plain(getattr(self, f.name)) for f in fields(self)}


def _plain(value):
    return list(value) if isinstance(value, tuple) else value
