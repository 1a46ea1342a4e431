"""Derive independent, reproducible seeds from the config's base seed.

Examples
--------
>>> derive_seed(2024, "chignolin", "s0001") == derive_seed(2024, "chignolin", "s0001")
True
>>> derive_seed(2024, "chignolin", "s0001") != derive_seed(2024, "chignolin", "s0002")
True
"""

from __future__ import annotations

import zlib

import numpy as np


def derive_seed(base: int, *keys: str | int) -> int:
    """A seed in [1, 2**31 - 1] determined by ``base`` and ``keys`` (OpenMM reads 0 as 'random')."""
    entropy = [int(base)] + [k if isinstance(k, int) else zlib.crc32(str(k).encode()) for k in keys]
    value = int(np.random.SeedSequence(entropy).generate_state(1, dtype=np.uint32)[0]) % (2**31 - 1)
    return value + 1
