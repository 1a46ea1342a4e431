"""CUDA graphs of the CG force call: one captured per batch-size bucket, replayed with the batch padded to it.

Used by the CG engine (:mod:`westbench.cg.engine`); a capture that fails is an error
(:class:`CaptureError`) unless the engine asks to go on eagerly (``cg.cuda_graphs: auto``).
"""

from __future__ import annotations

import logging

import torch

from westbench.errors import WestbenchError
from westbench.runtime.console import declare_chatty

log = logging.getLogger(__name__)
declare_chatty(__name__)  # one line per captured bucket: the job's log file only


class CaptureError(WestbenchError):
    """The CG force call could not be captured in a CUDA graph and ``cg.cuda_graphs`` is true."""


#: Bucket step above the powers of two (walkers): 147 walkers pad to 192, not 256.
BUCKET_STEP = 64


def bucket(n: int) -> int:
    """Batch-size bucket of ``n`` walkers: the next power of two up to :data:`BUCKET_STEP`, then the
    next multiple of it (padding at most 63 walkers, instead of up to n - 1).

    Examples
    --------
    >>> [bucket(n) for n in (1, 2, 3, 33, 64, 65, 120, 128, 147, 1200)]
    [1, 2, 4, 64, 64, 128, 128, 128, 192, 1216]
    """
    n = max(1, int(n))
    if n <= BUCKET_STEP:
        return 1 << (n - 1).bit_length()
    return BUCKET_STEP * -(-n // BUCKET_STEP)


class BucketedForces:
    """A batch force call, padded to its bucket (:func:`bucket`) and, with ``capture``, replayed as a
    CUDA graph captured once per bucket (static input and output buffers; the forward pass and
    ``autograd.grad`` inside the graph). Padding rows repeat the first walker (valid positions, finite
    forces) and are dropped.

    Capture runs with the input's device as the current device and on a side stream of that device
    (``torch.cuda.graph``'s own default stream belongs to whichever device was current when it was
    first made). ``on_failure``: ``"raise"`` turns a failed capture into :class:`CaptureError` with
    the whole message; ``"eager"`` logs it and runs every later call eagerly (:meth:`summary` says so).

    Examples
    --------
    >>> import torch
    >>> padded = BucketedForces(lambda x: -2.0 * x, pad=True)
    >>> x = torch.randn(3, 5, 3)
    >>> torch.equal(padded(x), -2.0 * x), padded.sizes
    (True, [4])
    >>> padded.summary()["captured_buckets"]
    []
    """

    def __init__(self, forces, capture: bool = False, pad: bool = False, on_failure: str = "raise"):
        if on_failure not in ("raise", "eager"):
            raise ValueError(f"on_failure must be 'raise' or 'eager', not {on_failure!r}")
        self.eager, self.capture, self.pad, self.on_failure = forces, capture, pad or capture, on_failure
        self.graphs: dict[int, tuple] = {}
        self.sizes: list[int] = []
        self.failure: str | None = None
        self._streams: dict = {}

    def summary(self) -> dict:
        """Buckets seen, captured and run eagerly, and the capture failure (None if none)."""
        return {
            "buckets": sorted(self.sizes),
            "captured_buckets": sorted(self.graphs),
            "eager_buckets": sorted(set(self.sizes) - set(self.graphs)),
            "capture_failure": self.failure,
        }

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        n = len(x)
        if not self.pad:
            return self.eager(x)
        size = bucket(n)
        if size not in self.sizes:
            self.sizes.append(size)
        if not self.capture:
            padded = torch.cat([x, x[:1].expand(size - n, *x.shape[1:])]) if size > n else x
            return self.eager(padded)[:n]
        if size not in self.graphs:
            try:
                self.graphs[size] = self._capture(size, x)
            except Exception as error:  # a model that cannot be captured (host syncs, dynamic shapes, a device mix-up)
                message = (
                    f"CUDA graph capture of the CG force call for {size} walkers on {x.device} failed: "
                    f"{type(error).__name__}: {error}"
                )
                if self.on_failure == "raise":
                    raise CaptureError(
                        f"{message}. Fix: make the model capturable (no host synchronisation, "
                        "static shapes), or set cg.cuda_graphs to auto (eager where capture "
                        "fails, recorded in run.json) or false."
                    ) from error
                log.error("%s; cg.cuda_graphs is auto: eager force calls from now on", message)
                self.failure, self.capture = message, False
                return self(x)
        graph, static_x, static_f = self.graphs[size]
        static_x[:n].copy_(x)
        if size > n:
            static_x[n:].copy_(x[:1].expand(size - n, *x.shape[1:]))
        graph.replay()
        return static_f[:n].clone()

    def _capture(self, size: int, x: torch.Tensor):
        device = x.device
        with torch.cuda.device(device):
            static_x = x[:1].expand(size, *x.shape[1:]).clone()
            stream = self._streams.setdefault(device, torch.cuda.Stream(device=device))
            stream.wait_stream(torch.cuda.current_stream(device))
            with torch.cuda.stream(stream):
                for _ in range(3):  # warm-up (autograd and cuBLAS workspaces) outside the graph
                    self.eager(static_x)
            torch.cuda.current_stream(device).wait_stream(stream)
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph, stream=stream):
                static_f = self.eager(static_x)
            torch.cuda.current_stream(device).wait_stream(stream)
        log.info("captured the CG force call for %d walkers on %s", size, device)
        return graph, static_x, static_f
