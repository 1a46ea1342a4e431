"""OpenMM platform selection (westbench.simulation.platforms) on the device policy's GPU platform list."""

from westbench.config import load_schema
from westbench.simulation.platforms import platform_properties


def test_a_library_caller_gets_the_schema_default_determinism():
    """No second default: leaving `deterministic` out means what the workflow's config means (the schema's)."""
    deterministic = load_schema()["properties"]["platform"]["properties"]["deterministic"]["default"]
    expected = {"Threads": "1"} if deterministic else {"Threads": "3"}
    assert platform_properties("CPU", {}, threads=3) == expected
    assert platform_properties("CPU", {"deterministic": False}, threads=3) == {"Threads": "3"}
