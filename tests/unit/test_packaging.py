"""An installed westbench (a built wheel, no repository beside it) carries its config schema."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_installed_wheel_validates_configs_with_its_own_schema(tmp_path):
    source = tmp_path / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, source / name)
    shutil.copytree(
        REPO / "src", source / "src", symlinks=True, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info")
    )
    shutil.copytree(REPO / "config", source / "config")
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    subprocess.run(
        [*pip, "wheel", "--no-deps", "--no-build-isolation", "-w", str(tmp_path / "wheel"), str(source)],
        check=True,
        cwd=tmp_path,
    )
    site = tmp_path / "site"
    wheel = next((tmp_path / "wheel").glob("westbench-*.whl"))
    subprocess.run([*pip, "install", "--no-deps", "--target", str(site), str(wheel)], check=True, cwd=tmp_path)
    shutil.rmtree(source)  # nothing of the repository is left to fall back on
    probe = (
        "import westbench, westbench.config as c; print(westbench.__file__); print(c.SCHEMA_PATH); "
        "print(c.section_defaults('platform')['name']); "
        "print(c.validate_config({'proteins': [{'id': 'p', 'name': 'P', "
        "'sequence': 'GYDPETGTWG', 'source': 'sequence'}]})"
        "['preparation']['padding_nm'])"
    )
    env = {**os.environ, "PYTHONPATH": str(site)}
    out = subprocess.run(
        [sys.executable, "-c", probe], env=env, cwd=tmp_path, capture_output=True, text=True, check=True
    ).stdout.split("\n")
    module, schema, platform, padding = out[:4]
    assert Path(module).is_relative_to(site) and Path(schema).is_relative_to(site)
    assert Path(schema).read_text() == (REPO / "config" / "schema.yaml").read_text()
    assert platform == "CPU" and float(padding) == 1.0
