"""The GPU platform list has one owner (westbench.simulation.platforms) that every other place asks."""

import re

from westbench.config import load_schema
from westbench.engines.devices import resolve_batch_walkers
from westbench.simulation.platforms import GPU_PLATFORMS, is_gpu_platform, platform_properties

from ...conftest import REPO


def test_every_gpu_platform_is_treated_as_one():
    for name in GPU_PLATFORMS:
        assert is_gpu_platform(name)
        assert platform_properties(name, {"precision": "single"})["Precision"] == "single"
        assert resolve_batch_walkers("auto", name, 64) == 64
    for name in ("CPU", "Reference"):
        assert not is_gpu_platform(name)
        assert resolve_batch_walkers("auto", name, 64) == 1


def test_schema_accepts_every_gpu_platform():
    platform = load_schema()["properties"]["platform"]["properties"]
    assert set(GPU_PLATFORMS) <= set(platform["name"]["enum"])
    assert set(GPU_PLATFORMS) <= set(platform["fallback"]["items"]["enum"])


def test_no_other_copy_of_the_platform_list():
    """No module or rule spells the GPU platforms out itself (the list drifted about HIP before)."""
    pattern = re.compile(r"""["']CUDA["']\s*,\s*["']OpenCL["']""")
    files = [*(REPO / "src").rglob("*.py"), *(REPO / "rules").glob("*.smk"), *(REPO / "scripts").glob("*.py")]
    copies = [str(f.relative_to(REPO)) for f in files if pattern.search(f.read_text())]
    assert copies == ["src/westbench/simulation/platforms.py"]


def test_a_library_caller_gets_the_schema_default_determinism():
    """No second default: leaving `deterministic` out means what the workflow's config means (the schema's)."""
    deterministic = load_schema()["properties"]["platform"]["properties"]["deterministic"]["default"]
    expected = {"Threads": "1"} if deterministic else {"Threads": "3"}
    assert platform_properties("CPU", {}, threads=3) == expected
    assert platform_properties("CPU", {"deterministic": False}, threads=3) == {"Threads": "3"}
