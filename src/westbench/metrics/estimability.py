"""What the metric suite could not estimate, and why: a value is null with a reason, never a crash.

:class:`NotEstimable` is raised where a quantity cannot be computed from the data at hand
(no MSM connected set, too few independent units for an interval, one ground-truth run for a
noise floor); :class:`Caveats` collects the reasons of one metrics job under stable keys, which
``metrics.json`` stores as ``not_estimable`` and the report lists at its top.

Examples
--------
>>> caveats = Caveats()
>>> with caveats.guard("msm"):
...     raise NotEstimable("the grid MSM has no transitions at lag 1")
>>> caveats.reasons
{'msm': 'the grid MSM has no transitions at lag 1'}
"""

from __future__ import annotations

from contextlib import contextmanager


class NotEstimable(Exception):
    """A quantity that the data cannot give; the message is the reason shown to the user."""


class Caveats:
    """Reasons by key (``msm``, ``we/intervals``, ``we/w1/tic01``, ``noise_floor``, ``figure/<name>``)."""

    def __init__(self):
        self.reasons: dict[str, str] = {}

    def add(self, key: str, reason: str) -> None:
        self.reasons.setdefault(key, str(reason))

    @contextmanager
    def guard(self, key: str):
        """Record a :class:`NotEstimable` raised inside under ``key`` and go on."""
        try:
            yield
        except NotEstimable as exc:
            self.add(key, str(exc))
