"""Counter-based Gaussian noise on the device: walker ``i``'s numbers depend only on its seed and the
step, bead and axis they are for, so a batch draws every walker's noise in one vectorized call (no
generator per walker, no loop over walkers) and a walker's trajectory does not depend on its batch.

The generator is SplitMix64 (Steele, Lea and Flood, 2014) of ``hash(seed) + counter`` in int64
arithmetic (wrapping multiplication, masked right shifts); each hash gives two 24-bit uniforms and
Box-Muller turns them into two normals (float32).

Examples
--------
>>> import torch
>>> seeds = torch.tensor([1, 2])
>>> a = gaussian(seeds, torch.arange(3), (4, 3))
>>> a.shape, torch.equal(a[:, 0], gaussian(seeds[:1], torch.arange(3), (4, 3))[:, 0])
(torch.Size([3, 2, 4, 3]), True)
>>> bool(abs(gaussian(torch.tensor([5]), torch.arange(2000), (10, 3)).std() - 1) < 0.01)
True
"""

from __future__ import annotations

import math

import torch


def _signed(value: int) -> int:
    return value - (1 << 64) if value >= 1 << 63 else value


GOLDEN, MIX1, MIX2 = (_signed(v) for v in (0x9E3779B97F4A7C15, 0xBF58476D1CE4E5B9, 0x94D049BB133111EB))


def _shift(z: torch.Tensor, bits: int) -> torch.Tensor:
    """Logical right shift of int64 (torch's ``>>`` is arithmetic)."""
    return (z >> bits) & ((1 << (64 - bits)) - 1)


def splitmix64(z: torch.Tensor) -> torch.Tensor:
    z = z + GOLDEN
    z = (z ^ _shift(z, 30)) * MIX1
    z = (z ^ _shift(z, 27)) * MIX2
    return z ^ _shift(z, 31)


def gaussian(
    seeds: torch.Tensor, steps: torch.Tensor, shape: tuple[int, ...], dtype: torch.dtype = torch.float32
) -> torch.Tensor:
    """Standard normal numbers (len(steps), len(seeds), *shape) on the seeds' device.

    ``seeds``: int64 (n_walkers,); ``steps``: int64 (n_steps,), any non-negative counters.
    """
    size = math.prod(shape)
    per_step = (size + 1) // 2  # one 64-bit hash gives two uniforms, and Box-Muller two normals
    keys = splitmix64(seeds.to(torch.int64))  # (walkers,)
    counter = (
        steps.to(keys.device, torch.int64)[:, None] * per_step
        + torch.arange(per_step, device=keys.device, dtype=torch.int64)[None]
    )  # (steps, per_step)
    z = splitmix64(keys[None, :, None] + counter[:, None, :])
    scale = 1.0 / float(1 << 24)
    u1 = (_shift(z, 40).to(torch.float32) + 0.5) * scale  # bits 40-63
    u2 = (((z >> 16) & 0xFFFFFF).to(torch.float32) + 0.5) * scale  # bits 16-39
    radius, angle = torch.sqrt(-2.0 * torch.log(u1)), (2.0 * math.pi) * u2
    normal = torch.cat([radius * torch.cos(angle), radius * torch.sin(angle)], dim=-1)[..., :size]
    return normal.to(dtype).reshape(len(steps), len(seeds), *shape)
