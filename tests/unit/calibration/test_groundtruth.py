"""Ground truth made by the reference potential: seeded, with the reference's forces, native and hot starts."""

import numpy as np
import pytest
import torch

from westbench.calibration.groundtruth import run_reference_groundtruth
from westbench.cg.model import energy_and_forces, load_energy_model
from westbench.cg.native import native_ca
from westbench.cg.reference import build_reference
from westbench.config import section_defaults
from westbench.errors import WestbenchError
from westbench.io.frames import read_frames

LANGEVIN = {**section_defaults("calibration.langevin"), "temperature_k": 300.0}
SHORT = {"equilibration_ps": 0.5, "length_ps": 2.0, "save_interval_ps": 0.2, "hot_ps": 0.5}


@pytest.fixture(scope="module")
def model_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("reference") / "model.pt"
    build_reference("1UAO", section_defaults("calibration.reference"), path)
    return path


def _run(model_path, folder, seed):
    paths = [folder / f"r{i}.h5" for i in range(4)]
    summary = run_reference_groundtruth(model_path, native_ca("1UAO"), paths, LANGEVIN, SHORT, seed=seed)
    return summary, [read_frames(p) for p in paths]


def test_runs_carry_the_references_forces_and_repeat_with_the_seed(model_path, tmp_path):
    summary, runs = _run(model_path, tmp_path / "a", seed=5)
    assert summary["runs"] == 4 and summary["frames_per_run"] == 10 and summary["hot_starts"] == 2
    assert [r.attrs["start"] for r in runs] == ["native", "hot", "native", "hot"]
    model = load_energy_model(model_path)
    energy, forces = energy_and_forces(model, torch.tensor(runs[0]["ca"], dtype=torch.float64))
    assert np.allclose(runs[0]["forces"], forces.numpy(), rtol=1e-4, atol=1e-3)
    assert np.allclose(runs[0]["energy"], energy.detach().numpy())
    assert np.allclose(np.diff(runs[0]["time_ps"]), 0.2)
    _, again = _run(model_path, tmp_path / "b", seed=5)
    assert all(np.array_equal(a["ca"], b["ca"]) for a, b in zip(runs, again))
    _, other = _run(model_path, tmp_path / "c", seed=6)
    assert not np.array_equal(runs[0]["ca"], other[0]["ca"])


def test_one_run_is_refused(model_path, tmp_path):
    with pytest.raises(WestbenchError, match="at least 2"):
        run_reference_groundtruth(model_path, native_ca("1UAO"), [tmp_path / "r.h5"], LANGEVIN, SHORT, seed=1)


def test_a_timestep_that_explodes_is_an_error_naming_the_fix(model_path, tmp_path):
    with pytest.raises(WestbenchError, match="timestep"):
        run_reference_groundtruth(
            model_path,
            native_ca("1UAO"),
            [tmp_path / f"r{i}.h5" for i in range(2)],
            {**LANGEVIN, "timestep_fs": 200.0},
            SHORT,
            seed=1,
        )
