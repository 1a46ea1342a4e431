"""docs/bring-your-own.md, run as written: every `file=` block written, every bash block run, in page order,
in a clone-like folder that holds the embedded demo's finished run (what `bash tools/run.sh` leaves)."""

import json
import os
import re
import shutil
import subprocess

import mdtraj
import numpy as np
import pandas as pd
import pytest

from ..conftest import REPO, source_env

pytestmark = [pytest.mark.workflow, pytest.mark.slow]

PAGE = REPO / "docs" / "bring-your-own.md"
FENCE = re.compile(r"^```(\w+)([^\n]*)\n(.*?)^```", re.S | re.M)
#: What a clone holds that the recipes' commands read (the page's commands run from the clone's root).
CLONE = (
    "Snakefile",
    "rules",
    "scripts",
    "src",
    "config",
    "profiles",
    "envs",
    "report",
    "tasks",
    "harbor_plugins",
    "tools",
    ".venv",
)


def recipes():
    """[(title, [(kind, info, text)])] of the page's `## Recipe` sections, blocks in page order."""
    sections = re.split(r"^## ", PAGE.read_text(), flags=re.M)[1:]
    return [
        (section.splitlines()[0], [(m.group(1), m.group(2).strip(), m.group(3)) for m in FENCE.finditer(section)])
        for section in sections
        if section.startswith("Recipe")
    ]


def sample_data(default_run, clone):
    """Recipe 3's files, made from the demo's own runs: ground-truth trajectories and WE frames as plain MD."""
    from westbench.io.frames import read_frames

    runs = default_run / "results" / "chignolin" / "groundtruth" / "runs"
    gt, samples = clone / "data" / "gt" / "chignolin", clone / "data" / "samples" / "chignolin"
    gt.mkdir(parents=True)
    samples.mkdir(parents=True)
    for run in sorted(runs.iterdir()):
        shutil.copy(run / "trajectory.xtc", gt / f"{run.name}.xtc")
    shutil.copy(runs / "s0000" / "topology.pdb", gt / "protein.pdb")
    exported = read_frames(default_run / "results" / "chignolin" / "we" / "implicit" / "frames.h5")
    top = mdtraj.load_topology(str(runs / "s0000" / "topology.pdb"))
    ca_top = top.subset(top.select("name CA"))
    mdtraj.Trajectory(exported["ca"][:1], ca_top).save_pdb(str(samples / "ca.pdb"))
    for n_iter in np.unique(exported["iteration"]):
        rows = exported["iteration"] == n_iter
        mdtraj.Trajectory(exported["ca"][rows], ca_top).save_dcd(str(samples / f"iter{n_iter:03d}.dcd"))
        np.save(samples / f"iter{n_iter:03d}.npy", exported["weight"][rows])


def test_the_page_has_the_six_recipes_each_with_a_command():
    found = recipes()
    assert [title.split(":")[0] for title, _ in found] == [f"Recipe {n}" for n in range(1, 7)]
    for title, blocks in found:
        assert any(kind == "bash" for kind, _, _ in blocks), title


def test_every_recipe_runs_as_written(default_run, tmp_path):
    clone = tmp_path / "clone"
    clone.mkdir()
    for name in CLONE:
        os.symlink(REPO / name, clone / name)
    shutil.copytree(default_run / "results", clone / "results", symlinks=True)
    shutil.copytree(
        default_run / ".snakemake",
        clone / ".snakemake",
        symlinks=True,
        ignore=shutil.ignore_patterns("locks", "incomplete", "conda"),
    )
    sample_data(default_run, clone)
    outputs = {}
    for title, blocks in recipes():
        for kind, info, text in blocks:
            if info.startswith("file="):
                target = clone / info[len("file=") :]
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(text)
            elif kind == "bash":
                for line in filter(None, text.splitlines()):
                    result = subprocess.run(
                        ["bash", "-c", line], cwd=clone, env=source_env(), capture_output=True, text=True, timeout=1800
                    )
                    output = result.stdout + result.stderr
                    assert result.returncode == 0, f"{title}: {line}\n{output[-4000:]}"
                    outputs[title.split(":")[0]] = output
    protein = clone / "results" / "chignolin"
    # Recipe 1: the user's TorchScript model, checked and scored, its file untouched.
    check = json.loads((protein / "cg" / "model_mine" / "check.json").read_text())
    assert check["n_beads"] == 10 and check["prior"] == "fitted" and check["warnings"] == []
    assert pd.read_csv(protein / "metrics" / "cg_mine" / "metrics.csv").shape[0] > 0
    assert not list((clone / "models").glob("*.json"))  # nothing written beside the user's model
    # Recipe 2: the engine class from byo/, through WESTPA and the report.
    run = json.loads((protein / "we" / "elastic" / "run.json").read_text())
    assert {record["engine"] for record in run["engines_used"]} == {"my_engines.elastic:ElasticNetwork"}
    # Recipe 3: imported ground truth, no WE engine, an external engine as the speed-ups' reference.
    assert json.loads((protein / "groundtruth" / "runs" / "s0001" / "summary.json").read_text())
    w1 = pd.read_csv(clone / "results" / "tables" / "w1.csv")
    assert set(w1["engine"]) - {"groundtruth"} == {"my_md"}  # groundtruth: the self-score beside it
    assert "my_md" in (clone / "results" / "report" / "westbench.html").read_text()
    # Recipe 4: the real agent's trials are in the plan.
    assert "terminus-2" in outputs["Recipe 4"]
    # Recipe 5: the dry run shows the user's model on both proteins and the GPU requests of the profile.
    dry = outputs["Recipe 5"]
    assert "cg_model_check" in dry and "trpcage" in dry
    assert re.search(r"gpu=4", dry) and "slurm_partition=gpu" in dry
    # Recipe 6: recipe 1's model and recipe 2's class in the calibration study, scored beside the known answers
    # (kind user, no expected verdict) and read by no check.
    study = clone / "results" / "calibration" / "chignolin"
    table = pd.read_csv(clone / "results" / "tables" / "calibration.csv", keep_default_na=False)
    yours = table[table["engine"].isin(["cg_mine", "elastic"])]
    assert set(yours["engine"]) == {"cg_mine", "elastic"} and set(yours["kind"]) == {"user"}
    assert (yours["expected"] == "").all() and pd.to_numeric(yours["value"]).notna().all()
    assert set(yours["verdict"]) <= {"within noise", "separated", "undetermined"}
    result = json.loads((study / "calibration.json").read_text())
    assert result["user_engines"] == ["cg_mine", "elastic"]
    assert result["agreement"]["rows"] == int((table["expected"] != "").sum())  # your rows are not judged
    check = json.loads((study / "cg" / "model_mine" / "check.json").read_text())
    assert (
        check["n_beads"] == 10 and check["prior"] == "fitted" and (study / "cg" / "model_mine" / "prior.pt").is_file()
    )
    run = json.loads((study / "we" / "elastic" / "run.json").read_text())
    assert {record["engine"] for record in run["engines_used"]} == {"my_engines.elastic:ElasticNetwork"}


@pytest.mark.parametrize(
    "extra, message",
    [
        (
            {"we": {"engines": [{"name": "mine", "class": "nowhere_pkg.mod:Engine", "python_path": "byo"}]}},
            r"we\.engines\[0\] \(mine\): class 'nowhere_pkg.mod:Engine' cannot be imported"
            r".*Fix: set the entry's `python_path`",
        ),
        ({"we": {"engines": [{"name": "implicit", "class": "a.b:C"}]}}, r"we\.engines\[0\]"),
        (
            {
                "we": {"engines": ["cg_mine"]},
                "cg": {"models": {"mine": {"path": "results/chignolin/cg/x/model.pt", "format": "torchscript"}}},
            },
            r"cg\.models\.mine: path 'results/chignolin/cg/x/model.pt' is under results/.*Fix",
        ),
        (
            {
                "we": {"engines": ["cg_fulltrained"]},
                "cg": {"models": {"fulltrained": {"path": "m.pt", "format": "torchscript"}}},
            },
            r"cg\.models \['fulltrained'\] share a name with cg\.presets",
        ),
        ({"we": {"engines": ["cg_yours"]}}, r"no preset 'yours' in cg\.presets .* and no model 'yours' in cg\.models"),
    ],
)
def test_a_wrong_entry_stops_the_dry_run_with_its_name_and_the_fix(tmp_path, extra, message):
    import yaml

    from ..conftest import snakemake

    (tmp_path / "mine.yaml").write_text(yaml.safe_dump(extra))
    result = snakemake(
        tmp_path,
        "-n",
        "--cores",
        "1",
        "--configfile",
        REPO / "config" / "config.yaml",
        tmp_path / "mine.yaml",
        configfile=None,
        timeout=300,
    )
    assert result.returncode != 0
    assert re.search(message, result.output.replace("\n", " ")), result.output[-3000:]
