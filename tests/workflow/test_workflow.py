"""Snakemake runs of small DAGs: the default config end to end, lint, the paper plan, report, bad input."""

import json
import re
import subprocess
import sys

import numpy as np
import pytest
import yaml

from ..conftest import REPO, demo_we_run_dirs, snakemake

pytestmark = pytest.mark.workflow


def job_counts(output):
    """The "Job stats" table of a Snakemake run as {rule: count}."""
    table = output.split("Job stats:", 1)[1].split("\n\n", 1)[0]
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"^(\w+)\s+(\d+)$", table, re.MULTILINE)}


def write_config(path, **changes):
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    config.update(changes)
    path.write_text(yaml.safe_dump(config))
    return path


@pytest.mark.slow
def test_default_config_prepares_chignolin_offline(default_run):
    prepare = default_run / "results" / "chignolin" / "prepare"
    for name in (
        "structure.pdb",
        "prepared.pdb",
        "implicit.xml",
        "implicit_state.xml",
        "explicit.xml",
        "explicit_state.xml",
        "explicit.pdb",
        "summary.json",
    ):
        assert (prepare / name).stat().st_size > 0, name
    summary = json.loads((prepare / "summary.json").read_text())
    assert summary["sequence"] == "GYDPETGTWG"
    assert summary["systems"]["implicit"]["atoms"] == 138
    explicit = summary["systems"]["explicit"]
    assert explicit["net_charge"] == pytest.approx(0) and explicit["waters"] > 1000
    assert explicit["parameters"]["forcefield_files"] == ["amber14-all.xml", "amber14/tip3pfb.xml"]
    assert explicit["minimization"]["energy_after_kj_mol"] < explicit["minimization"]["energy_before_kj_mol"]
    from westbench.seeds import stage_seed

    base = yaml.safe_load((REPO / "config" / "config.yaml").read_text())["seed"]
    assert (
        summary["fix"]["seed"] == stage_seed(base, "chignolin", "fix_structure") != base
    )  # recorded, protein-specific
    assert summary["structure"]["source"] == "sequence"
    for rule in ("acquire_structure", "fix_structure", "build_system_implicit", "build_system_explicit"):
        assert (default_run / "results" / "chignolin" / "benchmarks" / f"{rule}.tsv").is_file()
        assert (default_run / "results" / "chignolin" / "logs" / f"{rule}.log").is_file()
    table = (default_run / "results" / "tables" / "preparation.csv").read_text().splitlines()
    assert table[0].startswith("protein,") and table[1].startswith("chignolin,")


@pytest.mark.slow
def test_default_config_runs_the_ground_truth_and_tica(default_run):
    import mdtraj
    import pandas as pd

    from westbench.io.frames import read_frames
    from westbench.tica import TicaModel

    protein = default_run / "results" / "chignolin"
    starts = pd.read_csv(protein / "groundtruth" / "starts.csv")
    assert list(starts["start"]) == ["s0000", "s0001", "s0002"] and starts["tic0"].notna().all()
    for start in starts["start"]:
        run = protein / "groundtruth" / "runs" / start
        assert (protein / "groundtruth" / "starts" / f"{start}.pdb").is_file()
        trajectory = mdtraj.load(str(run / "trajectory.xtc"), top=str(run / "topology.pdb"))
        frames = read_frames(run / "frames.h5")
        assert trajectory.n_frames == len(frames) == 20  # 2 ps saved every 0.1 ps
        assert frames["forces"].shape == (20, 10, 3)
        summary = json.loads((run / "summary.json").read_text())
        assert summary["ns_per_day"] > 0 and summary["seed"] > 0 and summary["platform"] == "CPU"
        assert (protein / "benchmarks" / f"groundtruth_run_{start}.tsv").is_file()
    model = TicaModel.load(protein / "tica" / "model", protein="chignolin", n_features=45)
    assert model.dim == 10 and model.lag_frames == 2
    projected = read_frames(protein / "tica" / "groundtruth_frames.h5")
    assert projected["tics"].shape == (60, 10) and sorted(set(projected["traj"])) == [0, 1, 2]
    assert (protein / "tica" / "tic01_density.png").stat().st_size > 5000
    throughput = pd.read_csv(default_run / "results" / "tables" / "groundtruth_throughput.csv")
    assert list(throughput["start"]) == ["s0000", "s0001", "s0002"] and (throughput["ns_per_day"] > 0).all()
    per_protein = pd.read_csv(default_run / "results" / "tables" / "groundtruth_throughput_by_protein.csv")
    assert per_protein.loc[0, "runs"] == 3
    assert per_protein.loc[0, "median_ns_per_day"] == pytest.approx(throughput["ns_per_day"].median())


@pytest.mark.slow
def test_default_config_runs_weighted_ensemble_with_both_engines(default_run, tmp_path):
    import h5py
    import pandas as pd

    from westbench.io.frames import read_frames

    caps = yaml.safe_load((REPO / "config" / "config.yaml").read_text())["we"]["max_iterations_by_engine"]
    for engine in ("implicit", "explicit"):
        iterations = caps[engine]
        export_dir = default_run / "results" / "chignolin" / "we" / engine
        run_dirs = demo_we_run_dirs(default_run, engine)  # the demo runs implicit as 3 replicas (we.replicas_by_engine)
        frames = read_frames(export_dir / "frames.h5")
        assert frames["tics"].shape[1] == 10 and frames["ca"].shape[1:] == (10, 3)
        # Each iteration's segment weights sum to 1 (10 frames per segment); replicas of equal length 1/n each.
        for n in range(1, iterations + 1):
            assert frames["weight"][frames["iteration"] == n].sum() == pytest.approx(10.0)
        cost = pd.read_csv(export_dir / "cost.csv")
        assert list(cost["iteration"]) == list(range(1, iterations + 1)) and cost["coverage"].is_monotonic_increasing
        seeds = []
        for replica, run_dir in enumerate(run_dirs):
            run = json.loads((run_dir / "run.json").read_text())
            assert run["iterations"] == iterations and run["stopped_because"] == "max_iterations"
            seeds.append(run["seed"])
            mine = frames["replica"] == replica if len(run_dirs) > 1 else np.ones(len(frames), bool)
            with h5py.File(run_dir / "west.h5", "r") as handle:  # frames carry the pcoord WESTPA binned
                last = handle[f"iterations/iter_{iterations:08d}"]
                rows = mine & (frames["iteration"] == iterations)
                assert np.allclose(
                    frames["tics"][rows][frames["frame"][rows] == 10][:, :2],
                    last["pcoord"][()][np.unique(frames["seg_id"][rows]), -1],
                    atol=1e-4,
                )
        assert len(set(seeds)) == len(run_dirs)  # independent replicas
        if len(run_dirs) > 1:
            assert sorted(set(frames["replica"].tolist())) == list(range(len(run_dirs)))
            assert frames.attrs["seed"] == seeds[0]
    result = subprocess.run(
        [sys.executable, "-m", "westpa.cli.tools.w_pdist", "-W", "west.h5", "-o", str(tmp_path / "p.h5")],
        cwd=demo_we_run_dirs(default_run, "implicit")[0],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr[-2000:]


@pytest.mark.slow
def test_default_config_scores_each_engine_and_the_ground_truth_itself(default_run):
    """metrics.json agrees with values recomputed independently from the exported frames (scipy, numpy)."""
    from scipy.stats import wasserstein_distance

    from westbench.io.frames import read_frames

    protein = default_run / "results" / "chignolin"
    itself = json.loads((protein / "metrics" / "groundtruth" / "metrics.json").read_text())["metrics"]["we"]
    assert all(v == 0 for v in itself["w1"].values()) and itself["coverage"] == 1.0
    groundtruth = read_frames(protein / "tica" / "groundtruth_frames.h5")
    for engine in ("implicit", "explicit"):
        metrics = json.loads((protein / "metrics" / engine / "metrics.json").read_text())["metrics"]
        model = read_frames(protein / "we" / engine / "frames.h5")
        expected = wasserstein_distance(groundtruth["tics"][:, 0], model["tics"][:, 0], None, model["weight"])
        assert metrics["we"]["w1"]["tic0"] == pytest.approx(expected, rel=1e-6)
        rg = lambda ca: np.sqrt(((ca - ca.mean(axis=1, keepdims=True)) ** 2).sum(axis=2).mean(axis=1))  # noqa: E731
        assert metrics["counts"]["w1"]["rg"] == pytest.approx(  # Rg in Angstrom
            10 * wasserstein_distance(rg(groundtruth["ca"]), rg(model["ca"])), rel=1e-4
        )
        assert set(metrics) == {"we", "msm", "counts"}


def test_every_engine_is_scored_and_every_missing_number_has_a_reason(default_run):
    """Whatever trajectories this CPU produced: every engine's metrics.json exists, a null value or interval is
    explained in not_estimable, every interval holds its estimate, and every verdict is one of the three."""
    from westbench.presentation.verdicts import VERDICTS

    protein = default_run / "results" / "chignolin"
    for engine in ("implicit", "explicit", "cg_undertrained", "cg_fulltrained", "groundtruth"):
        record = json.loads(
            (protein / "metrics" / engine / "metrics.json").read_text(),
            parse_constant=lambda name: pytest.fail(f"{engine}: metrics.json holds {name}"),
        )
        reasons = record["not_estimable"]
        for weighting, values in record["metrics"].items():
            for metric in ("w1", "kl"):
                for name, value in values[metric].items():
                    assert values["verdicts"][metric][name] in VERDICTS
                    if value is None:
                        assert {weighting, f"{weighting}/{metric}/{name}"} & set(reasons), (engine, weighting, name)
                        continue
                    interval = values["intervals"][metric].get(name)
                    if interval is None:
                        assert f"{weighting}/intervals" in reasons or weighting in reasons, (engine, weighting)
                    else:
                        assert interval["low"] <= value <= interval["high"], (engine, weighting, metric, name)
        assert record["noise_floor"] or "noise_floor" in reasons, engine


@pytest.mark.slow
def test_default_config_writes_tables_figures_and_the_html_report(default_run):
    """Combined tables agree with each run's metrics and with coverage recomputed from the exported frames."""
    import pandas as pd

    from westbench.io.frames import ok_frames, read_frames

    results = default_run / "results"
    w1, kl = pd.read_csv(results / "tables" / "w1.csv"), pd.read_csv(results / "tables" / "kl.csv")
    coverage = pd.read_csv(results / "tables" / "coverage.csv").set_index("engine")
    engines = ["implicit", "explicit", "cg_undertrained", "cg_fulltrained"]
    assert set(w1["engine"]) == set(coverage.index) == {*engines, "groundtruth"}
    groundtruth = read_frames(results / "chignolin" / "tica" / "groundtruth_frames.h5")
    edges = [np.linspace(groundtruth["tics"][:, d].min(), groundtruth["tics"][:, d].max(), 101) for d in (0, 1)]
    reference = np.histogram2d(*groundtruth["tics"][:, :2].T, bins=edges)[0] > 0
    for engine in engines:
        metrics = json.loads((results / "chignolin" / "metrics" / engine / "metrics.json").read_text())["metrics"]
        row = w1[(w1.engine == engine) & (w1.weighting == "we")].iloc[0]
        assert row["tic0"] == metrics["we"]["w1"]["tic0"] and row["dihedrals"] == metrics["we"]["w1"]["dihedrals"]
        assert kl[(kl.engine == engine) & (kl.weighting == "we")].iloc[0]["tic01"] == metrics["we"]["kl"]["tic01"]
        model = ok_frames(read_frames(results / "chignolin" / "we" / engine / "frames.h5"))
        visited = np.histogram2d(*model["tics"][:, :2].T, bins=edges)[0] > 0
        assert coverage.loc[engine, "coverage"] == pytest.approx((visited & reference).sum() / reference.sum())
        cost = pd.read_csv(results / "chignolin" / "we" / engine / "cost.csv")
        assert coverage.loc[engine, "segments"] == cost["segments"].sum()
        reached = cost[cost["coverage"] >= 0.2]
        expected = cost["segments"].cumsum()[reached.index[0]] if len(reached) else None
        if expected is None:
            assert pd.isna(coverage.loc[engine, "segments_to_20%"])
        else:
            assert coverage.loc[engine, "segments_to_20%"] == expected
        figures = results / "chignolin" / "metrics" / engine / "figures"
        assert sorted(p.name for p in figures.iterdir()) == sorted(
            f"{name}.png"
            for name in (
                "tic_densities_1d",
                "tic_densities_2d",
                "tic01_by_iteration",
                "structure_distributions",
                "msm_reweighting",
                "contact_map_difference",
                "macrostates",
            )
        )
    html = (results / "report" / "westbench.html").read_text()
    # seven figures per WE engine, six for the ground truth itself (no all-zero contact map), the
    # ground-truth density, the training curves of the two CG presets, the two figures across engines and the
    # calibration study's two (resolution, convergence), and the bottom line's forest plot
    assert html.count("data:image/png;base64,") == 4 * 7 + 6 + 1 + 2 + 2 + 2 + 1
    assert "Wasserstein-1" in html and "KL(ground truth || model)" in html


@pytest.mark.slow
def test_default_config_trains_both_cg_presets_and_runs_we_with_them(default_run):
    """Deliverable 4 of the CG issue: both presets trained on the ground truth, sampled by WE and scored."""
    import pandas as pd
    import torch

    from westbench.cg.model import load_energy_model
    from westbench.io.frames import ok_frames, read_frames

    protein = default_run / "results" / "chignolin"
    for preset, frames_used in (("undertrained", 6), ("fulltrained", 60)):  # 10 % / all of 3 runs x 20 frames
        folder = protein / "cg" / preset
        record = json.loads((folder / "model.json").read_text())
        summary = record["training_summary"]
        assert record["preset"] == preset and len(record["data_sha256"]) == 64
        assert summary["frames"]["chignolin"]["used"] == frames_used
        assert summary["training"]["lr_schedule"] == {"undertrained": "constant", "fulltrained": "plateau"}[preset]
        history = pd.read_csv(folder / "training.csv")
        assert history["validation_loss"].min() <= history.loc[0, "validation_loss"]
        assert (folder / "training_curve.png").stat().st_size > 5000
        model = load_energy_model(folder / "model.pt", protein="chignolin")
        groundtruth = torch.tensor(read_frames(protein / "tica" / "groundtruth_frames.h5")["ca"][:2])
        assert torch.isfinite(model(groundtruth)).all()
        engine = f"cg_{preset}"
        run = json.loads((demo_we_run_dirs(default_run, engine)[0] / "run.json").read_text())
        assert run["iterations"] == 10 and run["engine"] == "westbench.cg.engine:CGEngine"
        frames = read_frames(protein / "we" / engine / "frames.h5")
        assert frames["ca"].shape[1:] == (10, 3) and np.isfinite(frames["ca"]).all()
        assert (frames["ok"] == 0).sum() == 10 * sum(run["ended_segments"].values())
        kept = ok_frames(frames)
        bonds = np.linalg.norm(np.diff(kept["ca"], axis=1), axis=-1)
        assert 0.25 <= bonds.min() and bonds.max() <= 0.60  # within the explosion bounds
        metrics = json.loads((protein / "metrics" / engine / "metrics.json").read_text())
        assert metrics["frames"] == len(kept)
        for distribution in ("tic0", "tic1", "bonds", "angles", "dihedrals"):
            assert np.isfinite(metrics["metrics"]["we"]["w1"][distribution])
            assert np.isfinite(metrics["metrics"]["we"]["kl"][distribution])
        assert (protein / "benchmarks" / f"cg_train_{preset}.tsv").is_file()


@pytest.mark.slow
def test_default_config_tabulates_resource_requests_and_benchmarks_for_admins(default_run):
    import pandas as pd

    tables = default_run / "results" / "tables"
    requests = pd.read_csv(tables / "resource_requests.csv").set_index("rule")
    for rule in ("groundtruth_run", "we_run", "build_system", "cg_train"):
        assert requests.loc[rule, "gpu"] == 1 and requests.loc[rule, "partition"] == "gpu", rule
    assert requests.loc["metric_tables", "gpu"] == 0
    measured = pd.read_csv(tables / "benchmarks_by_rule.csv").set_index("rule")
    we_runs = sum(
        len(demo_we_run_dirs(default_run, engine))
        for engine in ("implicit", "explicit", "cg_undertrained", "cg_fulltrained")
    )
    assert measured.loc["groundtruth_run", "jobs"] == 3
    assert measured.reindex(["we_run", "we_run_replica"])["jobs"].fillna(0).sum() == we_runs
    assert (measured["wall_s_total"] > 0).all() and "we" not in measured.index
    assert set(measured.index) <= set(requests.index)  # every benchmark file attributed to a real rule


@pytest.mark.slow
def test_rerun_has_nothing_to_do_and_report_builds(default_run):
    result = snakemake(default_run, "-n", "--cores", "2")
    assert result.returncode == 0 and "Nothing to be done" in result.output
    report = default_run / "report.html"
    result = snakemake(default_run, "--report", report)
    assert result.returncode == 0, result.output[-2000:]
    assert report.stat().st_size > 10_000
    text = report.read_text()
    for caption in (
        "thresholded contact fraction",
        "with the WE compute spent in total",
        "PCCA+ into",
        "Wasserstein-1 distance between the ground truth and each engine",
    ):
        assert caption in text, caption


def test_lint_is_clean(tmp_path):
    result = snakemake(tmp_path, "--lint")
    assert result.returncode == 0, result.output
    assert "Congratulations" in result.output


def test_paper_config_plans_the_full_dag(tmp_path, shared_structures):
    result = snakemake(
        tmp_path,
        "-n",
        "--cores",
        "2",
        "--config",
        f"structures_dir={shared_structures}",
        configfile=REPO / "config" / "paper.yaml",
    )
    assert result.returncode == 0, result.output[-2000:]
    out = result.output
    for protein in ("chignolin", "trpcage", "bba", "ww", "proteinb", "homeodomain", "proteing", "a3d", "lambda"):
        assert f"results/{protein}/prepare/summary.json" in out
    counts = job_counts(out)
    assert counts["build_system"] == 18 and counts["fit_tica"] == 9
    # One production job per start: 372 + 2,560 + 7 x 1,000 (config/paper.yaml).
    assert counts["groundtruth_run"] == 9932
    assert counts["cg_train"] == 18 and counts["we_run"] == 27  # implicit and two CG presets per protein


def test_calibration_paper_config_plans_the_all_atom_null_test(tmp_path, shared_structures):
    """config/calibration-paper.yaml: implicit-solvent WE against an implicit-solvent ground truth (docs/cluster.md)."""
    result = snakemake(
        tmp_path,
        "-n",
        "--cores",
        "2",
        "--config",
        f"structures_dir={shared_structures}",
        configfile=REPO / "config" / "calibration-paper.yaml",
    )
    assert result.returncode == 0, result.output[-2000:]
    counts = job_counts(result.output)
    assert counts["groundtruth_run"] == 372 and counts["we_run"] == 1 and counts["metric_suite"] == 2
    assert counts["calibration_we_run"] == 7 and counts["calibration_table"] == 1  # null, 4 perturbations, 2 presets
    assert counts["calibration_equilibrium_sample"] == 4  # each perturbation's own sample of its equilibrium
    config = yaml.safe_load((REPO / "config" / "calibration-paper.yaml").read_text())
    assert config["groundtruth"]["solvent"] == "implicit" and config["we"]["engines"] == ["implicit"]


def test_unknown_protein_in_a_target(tmp_path):
    result = snakemake(tmp_path, "-n", "results/nosuch/prepare/summary.json")
    assert result.returncode != 0
    assert "unknown protein 'nosuch'" in result.output and "chignolin" in result.output
    assert "config.yaml" in result.output


def test_config_breaking_the_schema(tmp_path):
    config = write_config(tmp_path / "bad.yaml", preparation={"padding_nm": -1}, platform={"name": "GPU"})
    result = snakemake(tmp_path, "-n", configfile=config)
    assert result.returncode != 0
    assert "bad.yaml breaks the schema" in result.output
    assert "preparation.padding_nm" in result.output and "platform.name" in result.output


@pytest.mark.slow
def test_bad_structure_fails_alone_and_keeps_what_was_computed(default_run, tmp_path):
    """A malformed file for a second protein: its job fails with a message naming it; chignolin is untouched."""
    broken = tmp_path / "broken.pdb"
    broken.write_text("HEADER    NOT REALLY\nATOM      1  N   GLY A   1      xx.xxx  1.000  1.000  1.00  0.00\n")
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    config["proteins"].append(
        {"id": "broken", "name": "Broken", "sequence": "GG", "source": "file", "path": str(broken)}
    )
    path = tmp_path / "two.yaml"
    path.write_text(yaml.safe_dump(config))
    summary = default_run / "results" / "chignolin" / "prepare" / "summary.json"
    before = summary.stat().st_mtime_ns
    result = snakemake(default_run, "--cores", "2", "--keep-going", configfile=path)
    assert result.returncode != 0
    log = (default_run / "results" / "broken" / "logs" / "acquire_structure.log").read_text()
    assert "broken.pdb does not parse" in log and "broken.pdb does not parse" in result.output
    assert "Traceback" not in log
    assert summary.stat().st_mtime_ns == before
    assert (default_run / "results" / "chignolin" / "prepare" / "explicit.xml").is_file()


@pytest.mark.slow
def test_all_shared_structures_prepare_through_the_workflow(tmp_path, shared_structures):
    """The paper's nine entries plus 1UAO and 1L2Y: every summary has sensible counts and charges."""
    config = yaml.safe_load((REPO / "config" / "paper.yaml").read_text())
    config["proteins"] += [
        {
            "id": "chignolin-wt",
            "name": "Chignolin (1UAO)",
            "pdb_id": "1UAO",
            "sequence": "GYDPETGTWG",
            "source": "rcsb",
        },
        {
            "id": "trpcage-wt",
            "name": "Trp-cage (1L2Y)",
            "pdb_id": "1L2Y",
            "sequence": "NLYIQWLKDGGPSSGRPPPS",
            "source": "rcsb",
        },
    ]
    config.update(
        structures_dir=str(shared_structures),
        platform={"name": "CPU"},
        preparation={"box_shape": "dodecahedron", "minimize_max_iterations": 5},
    )
    path = tmp_path / "eleven.yaml"
    path.write_text(yaml.safe_dump(config))
    result = snakemake(tmp_path, "--cores", "2", "prepare", configfile=path)
    assert result.returncode == 0, result.output[-3000:]
    used = {p["pdb_id"] for p in config["proteins"]}
    assert used == {p.stem for p in shared_structures.glob("*.pdb")}
    for protein in config["proteins"]:
        summary = json.loads((tmp_path / "results" / protein["id"] / "prepare" / "summary.json").read_text())
        sequence = protein["sequence"]
        charge = sum(sequence.count(a) for a in "KR") - sum(sequence.count(a) for a in "DE")
        implicit, explicit = summary["systems"]["implicit"], summary["systems"]["explicit"]
        assert summary["sequence"] == sequence
        assert 10 * len(sequence) < implicit["atoms"] < 22 * len(sequence), protein["id"]
        assert implicit["protein_net_charge"] == pytest.approx(charge, abs=1e-4), protein["id"]
        assert explicit["net_charge"] == pytest.approx(0, abs=1e-4) and explicit["waters"] > 300
        assert explicit["minimization"]["energy_after_kj_mol"] < 0
