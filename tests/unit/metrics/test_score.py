"""One engine scored against the ground truth: the files the metric_suite rule writes, with the caller's identity."""

import json

import numpy as np
import pandas as pd
import pytest

from westbench.io.frames import write_frames
from westbench.metrics.score import score_engine

KEYS = {
    "protein",
    "engine",
    "frames",
    "discarded_iterations",
    "simulated_ps",
    "macrostates",
    "kl_tic01_by_bins",
    "frames_left_out",
    "weight_left_out",
    "nonfinite_frames_dropped",
    "groundtruth_frames",
    "resampling",
    "noise_floor",
    "not_estimable",
    "sanity",
    "settings",
    "figures",
    "metrics",
}


def score_into(folder, groundtruth, model, settings, figures_dir, engine="implicit"):
    """score_engine writing metrics.json and metrics.csv into ``folder``."""
    return score_engine(
        groundtruth,
        model,
        settings,
        protein="chignolin",
        engine=engine,
        json_path=folder / "metrics.json",
        csv_path=folder / "metrics.csv",
        figures_dir=figures_dir,
    )


@pytest.fixture(scope="module")
def scored(tmp_path_factory):
    folder = tmp_path_factory.mktemp("score")
    rng = np.random.default_rng(4)
    centre = np.repeat(np.tile([0.0, 3.0], 4), 50)  # two states visited in turn
    for name in ("groundtruth", "model"):
        extra = {"ok": np.r_[np.zeros(30, np.int8), np.ones(370, np.int8)]} if name == "model" else {}
        write_frames(
            folder / f"{name}.h5",
            ca=np.cumsum(rng.normal(0, 0.2, (400, 6, 3)), axis=1),
            weight=np.full(400, 1 / 400),
            traj=np.repeat(np.arange(8), 50),
            time_ps=np.arange(400.0),
            iteration=np.repeat(np.arange(1, 9), 50),
            tics=centre[:, None] + rng.normal(0, 0.3, (400, 4)),
            **extra,
        )
    settings = {
        "weightings": ["we", "counts"],
        "macrostate_clusters": 10,
        "macrostates": 2,
        "coverage_bins": 20,
        "kl_sensitivity_bins": [10, 20],
        "bootstrap": 0,
        "seed": 3,
    }
    record = score_into(folder, folder / "groundtruth.h5", folder / "model.h5", settings, folder / "figures")
    return folder, record, settings


def test_the_json_record_is_returned_and_written_with_every_key(scored):
    folder, record, settings = scored
    assert json.loads((folder / "metrics.json").read_text()) == json.loads(json.dumps(record))
    assert set(record) == KEYS and (record["protein"], record["engine"]) == ("chignolin", "implicit")
    assert record["frames_left_out"] == 30 and record["frames"] == 370 and record["groundtruth_frames"] == 400
    assert record["weight_left_out"] == pytest.approx(30 / 400) and "ended_walkers" in record["not_estimable"]
    assert record["settings"] == {k: v for k, v in settings.items() if k != "weightings"}  # the seed included
    assert sorted(record["metrics"]) == ["counts", "we"] and record["figures"]["weighting"] == "we"
    assert sorted(record["kl_tic01_by_bins"]["values"]) == [10, 20]
    assert all((folder / "figures" / name).is_file() for name in record["figures"]["files"])


def test_the_tidy_table_carries_the_identity_and_the_coverage_column(scored):
    folder, record, _ = scored
    table = pd.read_csv(folder / "metrics.csv")
    assert list(table.columns[:2]) == ["protein", "engine"] and set(table["protein"]) == {"chignolin"}
    for weighting in ("we", "counts"):
        row = table.query("weighting == @weighting and distribution == 'tic01' and metric == 'coverage'")
        assert row["value"].item() == pytest.approx(record["metrics"][weighting]["coverage"])
    time = table.query("distribution == 'time'").set_index("metric")["value"]
    assert time["longest_simulated_ps"] == record["simulated_ps"]["longest"]


def test_without_a_figures_folder_the_same_numbers_and_no_figure(scored, tmp_path):
    """The calibration study scores its engines with ``figures_dir=None``: the same record, no figure drawn."""
    folder, record, settings = scored
    bare = score_into(tmp_path, folder / "groundtruth.h5", folder / "model.h5", settings, None)
    assert bare["figures"] == {"weighting": "we", "files": []} and record["figures"]["files"]
    assert bare["metrics"] == record["metrics"] and bare["kl_tic01_by_bins"] == record["kl_tic01_by_bins"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["metrics.csv", "metrics.json"]
    assert (tmp_path / "metrics.csv").read_text() == (folder / "metrics.csv").read_text()


@pytest.mark.parametrize("draws", [True, False])
def test_an_engine_whose_walkers_all_ended_gets_null_values_and_the_reason(scored, tmp_path, draws):
    """Every exported frame belongs to a walker the engine ended: every value null with the reason, and each figure
    a placeholder saying why where the rule draws them (none where it does not)."""
    folder, _, settings = scored
    rng = np.random.default_rng(9)
    write_frames(
        tmp_path / "ended.h5",
        ca=rng.normal(0, 1, (20, 6, 3)),
        weight=np.full(20, 1 / 20),
        traj=np.zeros(20, int),
        time_ps=np.arange(20.0),
        iteration=np.ones(20, int),
        tics=rng.normal(0, 1, (20, 4)),
        ok=np.zeros(20, np.int8),
    )
    figures_dir = tmp_path / "figures" if draws else None
    record = score_into(
        tmp_path, folder / "groundtruth.h5", tmp_path / "ended.h5", settings, figures_dir, "cg_undertrained"
    )
    assert "all 20 exported frames belong to walkers the engine ended" in json.dumps(record)
    table = pd.read_csv(tmp_path / "metrics.csv")
    assert table["value"].isna().all() and (table["verdict"] == "undetermined").all()
    drawn = sorted(p.name for p in (tmp_path / "figures").glob("*.png")) if draws else []
    assert record["figures"]["files"] == drawn and (bool(drawn) == draws)
    assert (tmp_path / "figures").exists() == draws


@pytest.fixture(scope="module")
def protein_like(tmp_path_factory):
    """A chiral C-alpha ground truth and an honest engine of it, with TICs from one distribution (within noise)."""
    from ..geometry.chains import chain_ensemble

    folder = tmp_path_factory.mktemp("sanity")
    rng = np.random.default_rng(8)
    for name, seed in (("groundtruth", 1), ("model", 2)):
        write_frames(
            folder / f"{name}.h5",
            ca=chain_ensemble(10, 400, seed),
            weight=np.full(400, 1 / 400),
            traj=np.repeat(np.arange(8), 50),
            time_ps=np.tile(np.arange(50.0), 8),
            iteration=np.repeat(np.arange(1, 9), 50),
            tics=rng.normal(0, 1, (400, 4)),
        )
    settings = {"weightings": ["we"], "macrostate_clusters": 10, "macrostates": 2, "bootstrap": 30, "seed": 3}
    return folder, settings


def test_an_engine_that_fails_a_sanity_check_reads_nowhere_as_fine(protein_like, tmp_path):
    """The mirror image of an honest engine: metrics.json names the failed check (sanity, not_estimable), and no
    verdict reads within noise (each is undetermined with the failure as its reason); its honest twin passes."""
    from westbench.io.frames import read_frames

    folder, settings = protein_like
    (tmp_path / "honest").mkdir()
    honest = score_into(tmp_path / "honest", folder / "groundtruth.h5", folder / "model.h5", settings, None)
    assert honest["sanity"]["passed"] is True and honest["sanity"]["failed"] == []
    assert set(honest["sanity"]["checks"]) == {"collapse", "chirality", "units", "exploded"}
    assert not any(key.startswith("sanity/") for key in honest["not_estimable"])
    assert "within noise" in honest["metrics"]["we"]["verdicts"]["w1"].values()  # so the mirror's would read fine
    model = read_frames(folder / "model.h5")
    write_frames(
        tmp_path / "mirror.h5",
        **{**{k: v for k, v in model.items() if k != "ca"}, "ca": model["ca"] * np.array([-1, 1, 1], np.float32)},
    )
    (tmp_path / "mirror").mkdir()
    record = score_into(tmp_path / "mirror", folder / "groundtruth.h5", tmp_path / "mirror.h5", settings, None)
    assert record["sanity"]["passed"] is False and record["sanity"]["failed"] == ["chirality"]
    check = record["sanity"]["checks"]["chirality"]
    assert check["passed"] is False and check["value"] < -0.25 and "mirror image" in check["message"]
    assert "mirror image" in record["not_estimable"]["sanity/chirality"]
    verdicts = record["metrics"]["we"]["verdicts"]
    assert "within noise" not in [v for by_name in verdicts.values() for v in by_name.values()]
    undetermined = 0
    for metric, by_name in verdicts.items():
        for name, decided in by_name.items():
            if decided == "undetermined":  # within noise, or no verdict to begin with
                undetermined += "chirality" in record["metrics"]["we"]["verdict_notes"][metric][name]
    assert verdicts["w1"]["tic0"] == "undetermined" and undetermined >= 4  # TICs are blind to a mirror image
    assert record["metrics"]["we"]["w1"]["tic0"] == honest["metrics"]["we"]["w1"]["tic0"]  # the numbers stay
    table = pd.read_csv(tmp_path / "mirror" / "metrics.csv")
    assert "within noise" not in set(table["verdict"].dropna())
    row = table.query("distribution == 'sanity' and metric == 'failed'")
    assert row["note"].tolist() == ["chirality"] and row["value"].tolist() == [1.0]
    honest_row = pd.read_csv(tmp_path / "honest" / "metrics.csv").query("distribution == 'sanity'")
    assert honest_row["value"].tolist() == [0.0] and honest_row["note"].isna().all()
