"""The same seed on the same machine reproduces every number of the calibration study: a tiny study run twice from
scratch in two folders gives byte-identical tables, checks, known answers, WE exports and metrics. On another CPU
the trajectories differ (floating-point order), so the numbers differ while their distribution does not; this test is
what makes a number recorded on one machine checkable there."""

import json

import numpy as np
import pandas as pd
import pytest
import yaml

from westbench.io.frames import read_frames

from ..conftest import REPO, snakemake

pytestmark = [pytest.mark.slow, pytest.mark.workflow]

#: A study small enough to run twice in a few minutes, with every kind of known answer: the null (uniform weights),
#: an own sample (temperature) and a dynamics-only engine (friction), and enough WE iterations for intervals.
TINY = {
    "seed": 5,
    "calibration": {
        "presets": [],
        "perturbations": {"temperature_120": {"temperature_scale": 1.2}, "friction_x5": {"friction_scale": 5.0}},
        "groundtruth": {"runs": 16, "equilibration_ps": 20.0, "length_ps": 40.0, "perturbed_runs": 8},
        "we": {"max_iterations": 12, "walkers_per_bin": 2, "basis_states": 16},
    },
    "metrics": {"bootstrap": 20, "floor_splits": 10},
}


def run_study(folder):
    raw = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    for key, value in TINY.items():
        raw[key] = {**raw.get(key, {}), **value} if isinstance(value, dict) else value
    folder.mkdir(parents=True)
    config = folder / "tiny.yaml"
    config.write_text(yaml.safe_dump(raw))
    result = snakemake(folder, "calibration", "--cores", "2", configfile=config)
    assert result.returncode == 0, result.output[-3000:]
    return folder / "results"


def numbers(results):
    """Every number the study wrote: the table, the checks, each engine's metrics (less the run's wall times) and
    every array of its frames files (WE exports, known answers, ground truth)."""
    study = results / "calibration" / "chignolin"
    out = {
        "calibration.csv": pd.read_csv(results / "tables" / "calibration.csv"),
        "calibration.json": json.loads((study / "calibration.json").read_text()),
    }
    for path in sorted(study.glob("metrics/*/metrics.json")):
        out[str(path.relative_to(study))] = json.loads(path.read_text())
    for path in sorted(
        [*study.glob("we/*/frames.h5"), *study.glob("known/*/frames.h5"), study / "tica" / "groundtruth_frames.h5"]
    ):
        frames = read_frames(path)
        out[str(path.relative_to(study))] = {key: np.asarray(frames[key]) for key in frames}
    return out


def test_the_same_seed_on_the_same_machine_reproduces_every_number(tmp_path):
    first = numbers(run_study(tmp_path / "first"))
    second = numbers(run_study(tmp_path / "second"))
    assert first.keys() == second.keys()
    assert len([k for k in first if k.startswith("we/")]) == 3 and any(k.startswith("known/") for k in first)
    pd.testing.assert_frame_equal(first.pop("calibration.csv"), second.pop("calibration.csv"), check_exact=True)
    table_numbers = first["calibration.json"]
    assert table_numbers["agreement"]["rows"] > 0
    for key, value in first.items():
        if isinstance(value, dict) and all(isinstance(v, np.ndarray) for v in value.values()):
            assert value.keys() == second[key].keys(), key
            for name, array in value.items():
                np.testing.assert_array_equal(array, second[key][name], err_msg=f"{key}: {name}")
        else:
            assert value == second[key], key
