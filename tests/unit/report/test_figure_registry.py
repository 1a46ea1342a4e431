"""A new figure is added by following CONTRIBUTING.md alone ("Add a figure"): a drawing function, ONE
registry entry (westbench.metrics.figure_list) and the caption file it names. Nothing else is edited, and the
rules' outputs, the drawing jobs, the HTML report (order, width, ground-truth placement) and the captions all
pick it up.

The workflow is parsed in-process (no DAG, no jobs) with the new entries registered.
"""

import json
import os
import re
from pathlib import Path

import matplotlib.image
import numpy as np
import pandas as pd
import pytest

from westbench.errors import WestbenchError
from westbench.metrics.figure_list import ENGINE, FIGURES, PROTEIN, Figure, figures, registered
from westbench.metrics.figures import ProteinFigureData, write_metric_figures, write_protein_figures
from westbench.plan import Plan
from westbench.report.captions import Captions, caption_config
from westbench.report.html_report import write_report

REPO = Path(__file__).resolve().parents[3]


# CONTRIBUTING, step 1: the drawing function, draw(data, path), from the job's data (computed once).
def draw_toy_spread(data, path):
    import matplotlib.pyplot as plt

    figure, ax = plt.subplots(figsize=(4, 3), dpi=80)
    ax.hist(data.model_tics[:, 0], bins=20, weights=data.weights, color="tab:orange")
    ax.set_title(data.label)
    figure.savefig(path)
    plt.close(figure)


def draw_toy_engines(data, path):
    import matplotlib.pyplot as plt

    figure, ax = plt.subplots(figsize=(6, 3), dpi=80)
    ax.bar(list(data.engines), [len(tics) for tics, _ in data.engines.values()])
    figure.savefig(path)
    plt.close(figure)


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    """CONTRIBUTING, steps 2 and 3: one registry entry per figure and the caption file it names; the workflow
    parsed with them registered."""
    from snakemake.api import SnakemakeApi
    from snakemake.settings.types import OutputSettings, ResourceSettings

    folder = tmp_path_factory.mktemp("captions")
    spread_caption, engines_caption = folder / "toy_spread.rst", folder / "toy_engines.rst"
    spread_caption.write_text(
        "Toy spread of TIC 0 for *{{ snakemake.wildcards.engine }}*, {{ snakemake.config['metrics']['bins'] }} bins.\n"
    )
    engines_caption.write_text("Toy count of frames per engine of {{ snakemake.wildcards.protein }}.\n")
    entries = (
        Figure("toy_spread", "toy spread", draw_toy_spread, wide=False, groundtruth=False, caption=str(spread_caption)),
        Figure("toy_engines", "toy engines", draw_toy_engines, scope=PROTEIN, caption=str(engines_caption)),
    )
    cwd = os.getcwd()
    with registered(*entries):
        try:
            with SnakemakeApi(OutputSettings()) as api:
                workflow = api.workflow(
                    resource_settings=ResourceSettings(),
                    snakefile=REPO / "Snakefile",
                    workdir=tmp_path_factory.mktemp("parsed"),
                )._workflow
                yield workflow, spread_caption, engines_caption
        finally:
            os.chdir(cwd)


def unconstrained(pattern) -> str:
    """An output pattern without its wildcards' constraints (``{protein,[a-z]+}`` -> ``{protein}``)."""
    return re.sub(r"\{(\w+),[^}]*\}", r"{\1}", str(pattern))


def test_the_rules_declare_the_new_figures_with_their_captions(toy):
    workflow, spread_caption, engines_caption = toy
    for rule, name, pattern, caption in (
        ("metric_suite", "toy_spread", "results/{protein}/metrics/{engine}/figures/toy_spread.png", spread_caption),
        ("protein_figures", "toy_engines", "results/{protein}/figures/toy_engines.png", engines_caption),
    ):
        outputs = dict(workflow.get_rule(rule).output.items())
        assert unconstrained(outputs[name]) == pattern
        drawn = [key for key in outputs if key in {figure.name for figure in figures()}]
        assert drawn[-1] == name  # in registry order: the last figure (snakefmt puts the figures before json, csv)
        report = outputs[name].flags["report"]
        assert Path(report.caption.get_path_or_uri(secret_free=True)).resolve() == caption.resolve()
        assert report.labels["figure"] == name.replace("_", " ")
    calibration = dict(workflow.get_rule("calibration_metrics").output.items())
    assert sorted(calibration) == ["csv", "json"]  # the study's engines draw none: no report shows them
    # The report's records and inputs: the new across-engine figure of every protein, after the registered ones.
    plan = Plan.from_config(workflow.config)
    records, proteins = plan.targets.protein_figure_records(), plan.roster.proteins
    assert records == [[p, e.name] for p in proteins for e in figures(PROTEIN)]
    assert [proteins[0], "toy_engines"] in records
    report = workflow.get_rule("html_report")
    assert report.params.records["protein_figures"] == records
    assert f"results/{proteins[0]}/figures/toy_engines.png" in dict(report.input.items())["protein_figures"]


def test_the_captions_come_from_the_entry(toy):
    workflow, spread_caption, engines_caption = toy
    captions = workflow.globals["declared_captions"]()
    assert captions["toy_spread"] == spread_caption.read_text()
    assert captions["toy_engines"] == engines_caption.read_text()
    # Only the config keys the captions read go to the report job: the new caption's included.
    assert "bins" in workflow.globals["html_report_caption_config"]()["metrics"]
    html = str(Captions(captions, workflow.config).html("toy_spread", {"protein": "p", "engine": "implicit"}))
    assert html == f"<p>Toy spread of TIC 0 for <em>implicit</em>, {workflow.config['metrics']['bins']} bins.</p>\n"
    # A report given captions without it says where the registered figure's caption comes from.
    with pytest.raises(WestbenchError, match=r"registered .* caption .*toy_spread\.rst, declared by rule metric_suite"):
        Captions({}, {}).rst("toy_spread")


def synthetic(n, shift, seed):
    rng = np.random.default_rng(seed)
    ca = np.cumsum(rng.normal(0, 0.22, size=(n, 8, 3)), axis=1).astype(np.float32)
    tics = (rng.normal(0, 0.3, (n, 4)) + shift).astype(np.float32)
    return {
        "ca": ca,
        "tics": tics,
        "weight": np.full(n, 1 / n),
        "traj": np.repeat(np.arange(n // 50), 50),
        "iteration": np.repeat(np.arange(n // 100) + 1, 100),
    }


def test_the_jobs_draw_the_new_figures_and_the_report_shows_them(toy, tmp_path):
    from westbench.metrics.suite import MetricSuite

    workflow = toy[0]
    config = workflow.config
    groundtruth = synthetic(400, 0.0, 1)
    metrics = []
    for engine, model in (("implicit", synthetic(300, 0.5, 2)), ("groundtruth", groundtruth)):
        suite = MetricSuite(groundtruth, model, {"macrostate_clusters": 5, "macrostates": 2, "seed": 3})
        values, _ = suite.score("we")
        paths = write_metric_figures(
            tmp_path / engine / "figures",
            groundtruth,
            model,
            suite.weights("we"),
            values,
            suite.macrostates(),
            {"bins": 20, "scatter_max_points": 500},
            label=engine,
            msm_weights=lambda: suite.weights("msm"),
        )
        assert list(paths) == list(FIGURES) and list(FIGURES)[-1] == "toy_spread"
        assert matplotlib.image.imread(paths["toy_spread"]).shape[:2] == (240, 320)  # drawn by its function
        record = {
            "frames": len(model["ca"]),
            "metrics": {"we": {"coverage": 0.5}},
            "macrostates": {"requested": 2, "used": 2},
        }
        (tmp_path / engine / "metrics.json").write_text(json.dumps(record))
        metrics.append(("chignolin", engine, tmp_path / engine / "metrics.json"))
    data = ProteinFigureData(groundtruth["tics"], groundtruth["weight"], {"implicit": (groundtruth["tics"], None)})
    protein = {e.name: tmp_path / f"{e.name}.png" for e in figures(PROTEIN)}
    write_protein_figures(data, protein)
    assert all(path.stat().st_size > 0 for path in protein.values())

    tables = {}
    for role, frame in {
        "w1": pd.DataFrame({"protein": ["chignolin"], "engine": ["implicit"], "tic0": [0.1]}),
        "kl": pd.DataFrame({"protein": ["chignolin"], "engine": ["implicit"], "tic0": [0.2]}),
        "coverage": pd.DataFrame({"protein": ["chignolin"], "engine": ["implicit"], "coverage": [0.5]}),
        "throughput": pd.DataFrame({"protein": ["chignolin"], "ns_per_day": [1.0]}),
    }.items():
        tables[role] = tmp_path / ("groundtruth_throughput_by_protein.csv" if role == "throughput" else f"{role}.csv")
        frame.to_csv(tables[role], index=False)
    captions = workflow.globals["declared_captions"]()
    settings = workflow.get_rule("html_report").params.metrics
    write_report(
        tmp_path / "report.html",
        title="T",
        summary={},
        settings=settings,
        tables=tables,
        metrics=metrics,
        protein_figures=[("chignolin", name, path) for name, path in protein.items()],
        captions=captions,
        caption_config=caption_config(config, captions.values()),
    )
    html = (tmp_path / "report.html").read_text().split("<!-- end of the bottom line -->", 1)[-1]
    shown = re.findall(r'<figure( class="wide")?><img\s+src="data:image/png;base64,[^"]*" alt="([^"]*)">', html)
    alts = [alt for _, alt in shown]
    spread = "Toy spread of TIC 0 for implicit, {} bins.".format(config["metrics"]["bins"])
    # The protein's figures in registry order, the new one last and wide; then each engine's, the new one last
    # and not wide, and (groundtruth=False) not for the ground truth scored against itself.
    across, per_engine = len(figures(PROTEIN)), len(figures(ENGINE))
    assert alts[across - 1] == "Toy count of frames per engine of chignolin." and shown[across - 1][0]
    assert alts[across + per_engine - 1] == spread and not shown[across + per_engine - 1][0]
    assert alts.count(spread) == 1 and "Toy spread of TIC 0 for groundtruth" not in html
    assert len(shown) == across + per_engine + per_engine - 2  # the ground truth: no contact map, no toy
