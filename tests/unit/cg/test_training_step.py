"""The CG training step from files, as the cg_train rule runs it."""

import json

import numpy as np
import pytest

from westbench.cg.model import load_energy_model
from westbench.cg.training_step import train_preset
from westbench.config import validate_config
from westbench.io.frames import write_frames
from westbench.structures.peptide import write_extended_peptide

from .toy import harmonic_chain


def test_train_preset_writes_the_model_its_record_history_and_curve(tmp_path):
    sequence = "GYDPETGT"
    write_extended_peptide(sequence, tmp_path / "prepared.pdb")
    positions, forces, _ = harmonic_chain(n_beads=len(sequence), n_frames=60, seed=2)
    runs = []
    for run, rows in enumerate((slice(0, 30), slice(30, 60))):
        runs.append(tmp_path / f"run{run}.h5")
        write_frames(runs[-1], positions[rows], np.arange(30) * 1.0, forces=forces[rows])
    cg = validate_config(
        {
            "proteins": [{"id": "toy", "name": "Toy", "sequence": sequence, "source": "sequence"}],
            "cg": {
                "model": {"embedding": 8, "interaction_layers": 1, "rbf": 4},
                "training": {"max_epochs": 2, "batch_size": 16},
                "presets": {"tiny": {"frame_fraction": 0.5}},
            },
        }
    )["cg"]
    out = {
        "model_path": tmp_path / "cg" / "model.pt",
        "history_path": tmp_path / "cg" / "training.csv",
        "figure_path": tmp_path / "cg" / "training_curve.png",
    }
    summary = train_preset(
        {"toy": {"frames": runs, "topology": tmp_path / "prepared.pdb"}}, cg, "tiny", seed=4, threads=1, **out
    )
    record = json.loads((tmp_path / "cg" / "model.json").read_text())
    assert record["preset"] == "tiny" and record["proteins"] == ["toy"] and record["seed"] == 4
    assert summary["frames"]["toy"]["used"] == 30  # the preset's frame_fraction of the 60 frames
    assert len(open(out["history_path"]).read().splitlines()) >= 2 and out["figure_path"].stat().st_size > 1000
    assert load_energy_model(out["model_path"], protein="toy") is not None
    # the floor is estimated unless the caller knows it (the calibration study's exact forces: 0)
    assert summary["force_noise_floor_source"].startswith("estimated") and summary["force_noise_floor"] > 0
    assert summary["force_mean_square"] == pytest.approx(np.mean(forces**2), rel=1e-4)
    known = train_preset(
        {"toy": {"frames": runs, "topology": tmp_path / "prepared.pdb"}},
        cg,
        "tiny",
        seed=4,
        threads=1,
        known_noise_floor=0.0,
        **out,
    )
    assert known["force_noise_floor"] == 0.0 and known["force_noise_floor_source"] == "known"
    assert json.loads((tmp_path / "cg" / "model.json").read_text())["training_summary"]["force_noise_floor"] == 0.0
