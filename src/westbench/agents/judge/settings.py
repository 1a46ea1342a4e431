"""The judge's endpoint and limits, read from the environment and the config; the secrets it must never show.

The endpoint comes from environment variables whose names the config gives (model, base URL, key); every
other setting is a key of ``agents.judge`` (``config/schema.yaml`` owns the defaults). The key is sent in
the Authorization header only (:mod:`~westbench.agents.judge.endpoint`): it is never written to results,
logs, prompts or the cache, and neither is any other secret-looking value of the judge's environment
(:func:`secret_values`), which the evidence is scrubbed of before it reaches a prompt.

Examples
--------
>>> settings = JudgeSettings.from_env({"WESTBENCH_JUDGE_MODEL": "m", "WESTBENCH_JUDGE_BASE_URL": "http://x",
...                                     "WESTBENCH_JUDGE_API_KEY": "sk-secret-value"}, repeats=1)
>>> settings.configured, "sk-secret" in repr(settings), "sk-secret-value" in settings.secret_values
(True, False, True)
>>> settings.max_windows, settings.file_limit_bytes == 4 * settings.max_chars * settings.max_windows
(8, True)
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Mapping

from westbench.config import section_defaults
from westbench.errors import WestbenchError

#: The schema's ``agents.judge`` defaults (config/schema.yaml owns them).
JUDGE_DEFAULTS = section_defaults("agents.judge")
DEFAULT_ENV = {
    "model": "WESTBENCH_JUDGE_MODEL",
    "base_url": "WESTBENCH_JUDGE_BASE_URL",
    "api_key": "WESTBENCH_JUDGE_API_KEY",
}
#: Environment variables whose values are secrets by their name (API keys, tokens, passwords, ...).
SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSW|CREDENTIAL|AUTH|COOKIE|PRIVATE", re.IGNORECASE)
#: Values shorter than this are not treated as secrets (they would redact ordinary words).
MIN_SECRET_CHARS = 8


class JudgeError(WestbenchError):
    """The judge endpoint failed or answered something unusable."""


def secret_values(environ: Mapping[str, str]) -> frozenset[str]:
    """The values of ``environ`` whose variable names say they are secrets (at least 8 characters).

    >>> sorted(secret_values({"OPENAI_API_KEY": "sk-abcdefgh", "HOME": "/home/someone", "GH_TOKEN": "short"}))
    ['sk-abcdefgh']
    """
    return frozenset(
        value for name, value in environ.items() if SECRET_NAME.search(name) and len(value) >= MIN_SECRET_CHARS
    )


@dataclass(frozen=True)
class JudgeSettings:
    """One judge: its endpoint (``model``, ``base_url``, ``api_key``) and the ``agents.judge`` settings.

    Parameters
    ----------
    model, base_url, api_key : str or None
        The endpoint; without a model and a base URL nothing is judged (:attr:`configured`).
    repeats : int
        Times each criterion is judged.
    temperature, timeout_s : float
        Sampling temperature and the seconds one call may take.
    max_chars : int
        Characters of the instruction and evidence one call shows (one window).
    max_windows : int
        The most windows the evidence may need; longer evidence is not judged and its criteria are not
        met (:mod:`~westbench.agents.judge.evidence`).
    aggregate : str
        ``majority`` or ``mean`` over the repeats (:func:`~westbench.agents.judge.rubric.criterion_met`).
    likert_threshold : int
        A Likert criterion is met at this value or above.
    secret_values : frozenset of str
        Values redacted from the evidence wherever they occur (the key and the environment's secrets).
    """

    model: str | None
    base_url: str | None
    api_key: str | None
    repeats: int = JUDGE_DEFAULTS["repeats"]
    temperature: float = float(JUDGE_DEFAULTS["temperature"])
    timeout_s: float = float(JUDGE_DEFAULTS["timeout_s"])
    max_chars: int = JUDGE_DEFAULTS["max_chars"]
    max_windows: int = JUDGE_DEFAULTS["max_windows"]
    aggregate: str = JUDGE_DEFAULTS["aggregate"]
    likert_threshold: int = JUDGE_DEFAULTS["likert_threshold"]
    secret_values: frozenset = field(default=frozenset(), repr=False)

    @classmethod
    def from_env(
        cls, environ: Mapping[str, str], env_names: Mapping[str, str] | None = None, **settings
    ) -> "JudgeSettings":
        """The endpoint from ``environ`` (variable names ``env_names``, default :data:`DEFAULT_ENV`)."""
        names = {**DEFAULT_ENV, **(env_names or {})}
        api_key = environ.get(names["api_key"]) or None
        extra = frozenset(settings.pop("secret_values", ()))
        secrets = secret_values(environ) | ({api_key} if api_key else set()) | extra
        return cls(
            environ.get(names["model"]) or None,
            environ.get(names["base_url"]) or None,
            api_key,
            **settings,
            secret_values=frozenset(secrets),
        )

    @classmethod
    def from_section(cls, environ: Mapping[str, str], section: Mapping) -> "JudgeSettings":
        """The endpoint from ``environ`` and every setting from the config's ``agents.judge`` ``section``.

        >>> from westbench.config import section_defaults
        >>> section = {**section_defaults("agents.judge"), "env": section_defaults("agents.judge.env"), "repeats": 1}
        >>> JudgeSettings.from_section({}, section)
        JudgeSettings(model=None, configured=False, repeats=1)
        """
        keys = ("repeats", "temperature", "timeout_s", "max_chars", "max_windows", "aggregate", "likert_threshold")
        return cls.from_env(environ, section.get("env"), **{key: section[key] for key in keys if key in section})

    @property
    def configured(self) -> bool:
        """Whether an endpoint is set (a model and a base URL)."""
        return bool(self.model and self.base_url)

    @property
    def file_limit_bytes(self) -> int:
        """The most bytes read of one file: more than every window together could show (4 bytes a character)."""
        return 4 * self.max_chars * self.max_windows

    @property
    def call_settings(self) -> dict:
        """The settings a verdict depends on (part of every cache key)."""
        return {"temperature": self.temperature, "max_chars": self.max_chars, "max_windows": self.max_windows}

    def __repr__(self) -> str:  # never show the key
        return f"JudgeSettings(model={self.model!r}, configured={self.configured}, repeats={self.repeats})"
