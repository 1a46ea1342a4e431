"""Bring your own data: an external engine and an imported ground truth flow through the workflow."""

import json
import shutil

import mdtraj
import numpy as np
import pandas as pd
import pytest
import yaml

from ..conftest import REPO, snakemake

pytestmark = [pytest.mark.workflow, pytest.mark.slow]


def segment_files(run_dir, prepared_pdb, folder):
    """A westbench WE run's segment frames as WESTPA-style per-segment trajectories (C-alpha, mdtraj HDF5)."""
    top = mdtraj.load_topology(str(prepared_pdb))
    ca_top = top.subset(top.select("name CA"))
    for path in sorted((run_dir / "segments").glob("iter_*.frames.npz")):
        n_iter = int(path.name[5:11])
        with np.load(path) as data:
            for seg_id, frames in zip(data["seg_id"], data["frames"]):
                target = folder / "traj_segs" / f"{n_iter:06d}" / f"{int(seg_id):06d}" / "seg.h5"
                target.parent.mkdir(parents=True, exist_ok=True)
                mdtraj.Trajectory(frames, ca_top).save_hdf5(str(target))
    return str(folder / "traj_segs" / "{iteration:06d}" / "{segment:06d}" / "seg.h5")


def write_config(path, **changes):
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    for key, value in changes.items():
        if isinstance(value, dict) and isinstance(config.get(key), dict):
            config[key] = {**config[key], **value}
        else:
            config[key] = value
    path.write_text(yaml.safe_dump(config))
    return path


def test_external_engine_from_a_we_run_scores_like_the_builtin_engine(default_run, tmp_path):
    workdir = tmp_path / "run"
    shutil.copytree(default_run, workdir, symlinks=True)
    protein = workdir / "results" / "chignolin"
    # A single WE run of the demo (implicit runs as 3 replicas, pooled in its export): explicit.
    we_dir = protein / "we" / "explicit"
    segments = segment_files(we_dir, protein / "prepare" / "prepared.pdb", tmp_path / "westpa")
    shutil.copy(we_dir / "west.h5", tmp_path / "westpa" / "west.h5")
    config = write_config(
        tmp_path / "config.yaml",
        external={
            "byo_explicit": {"kind": "westpa", "west_h5": str(tmp_path / "westpa" / "west.h5"), "segments": segments}
        },
    )
    result = snakemake(
        workdir, "--cores", "2", "results/tables/w1.csv", "results/report/westbench.html", configfile=config
    )
    assert result.returncode == 0, result.output[-3000:]
    builtin = json.loads((protein / "metrics" / "explicit" / "metrics.json").read_text())
    external = json.loads((protein / "metrics" / "byo_explicit" / "metrics.json").read_text())
    assert external["frames"] == builtin["frames"] > 0
    # What the built-in engine's frames cannot give (the demo's explicit run: no grid MSM) the same frames
    # imported cannot give either: null, with a reason.
    for weighting in builtin["metrics"]:
        assert (weighting in external["not_estimable"]) == (weighting in builtin["not_estimable"]), weighting
    for weighting, values in builtin["metrics"].items():
        for metric in ("w1", "kl"):
            for name, value in values[metric].items():
                got = external["metrics"][weighting][metric][name]
                if value is None:
                    assert got is None, (weighting, metric, name)
                else:
                    assert got == pytest.approx(value, rel=1e-5, abs=1e-7), (weighting, metric, name)
        if values["coverage"] is None:
            assert external["metrics"][weighting]["coverage"] is None
        else:
            assert external["metrics"][weighting]["coverage"] == pytest.approx(values["coverage"])
    # One coverage grid and one definition: cost.csv's last coverage is the coverage column, for both exports.
    costs = {
        name: pd.read_csv(protein / kind / name / "cost.csv")
        for kind, name in (("we", "explicit"), ("external", "byo_explicit"))
    }
    assert costs["byo_explicit"]["coverage"].tolist() == pytest.approx(costs["explicit"]["coverage"].tolist())
    assert costs["explicit"]["coverage"].iloc[-1] == pytest.approx(builtin["metrics"]["we"]["coverage"])
    w1 = pd.read_csv(workdir / "results" / "tables" / "w1.csv")
    assert {"explicit", "byo_explicit"} <= set(w1["engine"])
    coverage = pd.read_csv(workdir / "results" / "tables" / "coverage.csv").set_index("engine")
    assert coverage.loc["byo_explicit", "segments"] == coverage.loc["explicit", "segments"]
    report = (workdir / "results" / "report" / "westbench.html").read_text()
    assert "byo_explicit" in report


def test_imported_ground_truth_and_plain_trajectories_flow_to_the_report(default_run, tmp_path):
    from westbench.io.frames import read_frames

    runs = default_run / "results" / "chignolin" / "groundtruth" / "runs"
    gt = tmp_path / "gt"
    gt.mkdir()
    for run in sorted(runs.iterdir()):
        shutil.copy(run / "trajectory.xtc", gt / f"{run.name}.xtc")
    samples = tmp_path / "samples"
    samples.mkdir()
    exported = read_frames(default_run / "results" / "chignolin" / "we" / "implicit" / "frames.h5")
    top = mdtraj.load_topology(str(runs / "s0000" / "topology.pdb"))
    ca_top = top.subset(top.select("name CA"))
    mdtraj.Trajectory(exported["ca"][:1], ca_top).save_pdb(str(samples / "ca.pdb"))
    for n_iter in np.unique(exported["iteration"]):
        rows = exported["iteration"] == n_iter
        mdtraj.Trajectory(exported["ca"][rows], ca_top).save_dcd(str(samples / f"iter{n_iter:03d}.dcd"))
        np.save(samples / f"iter{n_iter:03d}.npy", exported["weight"][rows])
    config = write_config(
        tmp_path / "config.yaml",
        groundtruth={
            "source": "import",
            "import": {"trajectories": str(gt / "*.xtc"), "topology": str(runs / "s0000" / "topology.pdb")},
        },
        we={"engines": []},
        calibration={
            "enabled": False
        },  # the study reads no ground truth of the user's: it is tested on its own (CI time)
        external={
            "plain": {
                "kind": "trajectories",
                "trajectories": str(samples / "iter*.dcd"),
                "topology": str(samples / "ca.pdb"),
                "weights": str(samples / "{name}.npy"),
            }
        },
    )
    workdir = tmp_path / "run"
    result = snakemake(workdir, "--cores", "2", "results/report/westbench.html", configfile=config)
    assert result.returncode == 0, result.output[-3000:]
    protein = workdir / "results" / "chignolin"
    frames = read_frames(protein / "groundtruth" / "runs" / "s0001" / "frames.h5")
    original = read_frames(runs / "s0001" / "frames.h5")
    assert frames.attrs["source"] == "import" and np.allclose(frames["ca"], original["ca"], atol=6e-4)
    assert not (protein / "groundtruth" / "starts.csv").exists()  # no starts were generated
    # TICA knows its runs were imported (the fix messages name imported trajectories, not starts), and keeps all
    # 45 pairs of the small protein, as the generated ground truth's model does.
    tica = json.loads((protein / "tica" / "model.json").read_text())
    generated = json.loads((default_run / "results" / "chignolin" / "tica" / "model.json").read_text())
    assert tica["runs_from"] == "import" and generated["runs_from"] == "generate"
    assert tica["features"]["selection"] == generated["features"]["selection"] == "all"
    assert read_frames(protein / "tica" / "groundtruth_frames.h5").attrs["runs_from"] == "import"
    metrics = json.loads((protein / "metrics" / "plain" / "metrics.json").read_text())
    assert metrics["frames"] == len(exported["ca"])
    report = (workdir / "results" / "report" / "westbench.html").read_text()
    assert "plain" in report
    # CG training needs forces, which this import has not: it says so and names the file.
    result = snakemake(workdir, "--cores", "1", "results/chignolin/cg/undertrained/model.pt", configfile=config)
    log = (protein / "logs" / "cg_train_undertrained.log").read_text()
    assert result.returncode != 0 and "s0000" in log and "has no forces" in log
