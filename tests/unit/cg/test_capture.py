"""CUDA-graph capture of the CG force call (westbench.cg.capture)."""

import pytest
import torch


def test_capture_failure_is_an_error_unless_auto():
    """A CPU build of torch cannot capture: the same failure a broken capture on a GPU gives."""
    from westbench.cg.capture import BucketedForces, CaptureError

    x = torch.randn(3, 5, 3)
    strict = BucketedForces(lambda y: -2.0 * y, capture=True)
    with pytest.raises(CaptureError, match="cg.cuda_graphs"):
        strict(x)
    lenient = BucketedForces(lambda y: -2.0 * y, capture=True, on_failure="eager")
    assert torch.equal(lenient(x), -2.0 * x) and torch.equal(lenient(x), -2.0 * x)
    summary = lenient.summary()
    assert summary["captured_buckets"] == [] and summary["eager_buckets"] == [4]
    assert "for 4 walkers" in summary["capture_failure"]
