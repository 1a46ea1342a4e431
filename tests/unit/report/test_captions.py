"""One caption source per figure: the rules' report() caption files, shown by Snakemake's report and the HTML report.

The workflow is parsed in-process (no DAG, no jobs) to read what the rules declare.
"""

import json
import re
from pathlib import Path
from types import SimpleNamespace

import jinja2
import pandas as pd
import pytest
from docutils.core import publish_parts

from westbench.errors import WestbenchError
from westbench.metrics.figure_list import FIGURES
from westbench.metrics.figure_list import figure as registered_figure
from westbench.report.captions import Captions, caption_config, caption_html, render_caption
from westbench.report.html_report import write_report

REPO = Path(__file__).resolve().parents[3]


def report_outputs(workflow):
    """(rule, output pattern, caption file or None) of every report() output."""
    for rule in workflow.rules:
        for item in rule.output:
            if "report" in item.flags:
                caption = item.flags["report"].caption
                yield (
                    rule.name,
                    str(item),
                    None if caption is None else Path(caption.get_path_or_uri(secret_free=True)).resolve(),
                )


def snakemake_rendering(template, config, wildcards):
    """A caption as Snakemake's report renders it (snakemake/report/__init__.py: jinja2, then docutils' body)."""
    text = (
        jinja2.Environment(trim_blocks=True, lstrip_blocks=True)
        .from_string(template)
        .render(snakemake=SimpleNamespace(config=config, wildcards=SimpleNamespace(**wildcards)))
    )
    return publish_parts(text, writer="html", settings_overrides={"report_level": 5})["body"]


def test_every_figure_the_rules_declare_has_one_existing_caption_file(workflow):
    outputs = list(report_outputs(workflow))
    figures = [(rule, pattern, caption) for rule, pattern, caption in outputs if pattern.endswith(".png")]
    assert figures and all(caption is not None and caption.is_file() for _, _, caption in figures), figures
    # The metric figures: one output per entry of the one list, each with its own caption file.
    metric = {Path(pattern).stem: caption for rule, pattern, caption in figures if rule == "metric_suite"}
    assert list(metric) == list(FIGURES)
    assert all(caption == REPO / "report" / "figures" / f"{name}.rst" for name, caption in metric.items())
    # Every caption file in report/ is declared by some rule (none left behind to drift).
    declared = {caption for _, _, caption in outputs if caption is not None}
    files = {path.resolve() for path in (REPO / "report").rglob("*.rst")} - {(REPO / "report/workflow.rst").resolve()}
    assert files == declared, files ^ declared


def test_the_html_report_renders_the_declared_captions_as_snakemake_does(workflow):
    captions = workflow.globals["declared_captions"]()
    assert {
        *FIGURES,
        "metrics",
        "tic01_density",
        "training_curve",
        "engines_tic01",
        "coverage_vs_compute",
        "w1",
        "kl",
        "coverage",
        "groundtruth_throughput",
        "groundtruth_throughput_by_protein",
        "calibration",
        "resolution",
        "convergence",
    } == set(captions)  # the calibration study's table and figures
    for rule, pattern, caption in report_outputs(workflow):
        if rule in workflow.globals["HTML_REPORT_CAPTION_RULES"]:
            assert captions[Path(pattern).stem] == caption.read_text(), pattern
    # The report job receives only the config keys its captions read, and they render the same.
    subset = workflow.globals["html_report_caption_config"]()
    assert set(subset) < set(workflow.config) and "metrics" in subset
    for engine in ("implicit", "groundtruth"):
        wildcards = {"protein": "chignolin", "engine": engine, "preset": "undertrained"}
        for name, template in captions.items():
            ours = caption_html(render_caption(template, subset, wildcards, name=name))
            assert str(ours) == snakemake_rendering(template, workflow.config, wildcards), name


def test_report_records_name_their_files_in_order(workflow):
    """The html_report job's records (the plan's) name each of its input files, in input order."""
    rule = workflow.get_rule("html_report")
    records, pairs = rule.params.records, dict(rule.input.items())
    for role in ("metrics", "densities", "training_curves", "protein_figures"):
        assert len(records[role]) == len(pairs[role]) > 0, role
    assert all(
        path == f"results/{protein}/metrics/{engine}/metrics.json"
        for (protein, engine), path in zip(records["metrics"], pairs["metrics"])
    )
    assert all(
        path == f"results/{protein}/tica/tic01_density.png"
        for protein, path in zip(records["densities"], pairs["densities"])
    )
    assert all(f"/{preset}/" in path for (_, preset), path in zip(records["training_curves"], pairs["training_curves"]))
    assert all(
        path == f"results/{protein}/figures/{name}.png"
        for (protein, name), path in zip(records["protein_figures"], pairs["protein_figures"])
    )


def fake_metrics(folder: Path, engine: str, used: int) -> Path:
    """A metrics.json (the keys the report reads) with every figure file beside it."""
    values = {
        "coverage": 0.5,
        "w1": {"tic0": 0.1, "tic01": 0.2, "rg": 0.01},
        "kl": {"tic01": 0.3},
        "contact_map_w1_A": 0.4,
        "bonds_outside_share": 0.0,
        "macrostate_populations": {"total_variation": 0.05},
    }
    (folder / "figures").mkdir(parents=True)
    for name in FIGURES:
        (folder / "figures" / f"{name}.png").write_bytes(f"png of {engine} {name}".encode())
    path = folder / "metrics.json"
    path.write_text(
        json.dumps(
            {
                "frames": 10,
                "discarded_iterations": 2,
                "metrics": {"we": values},
                "macrostates": {"requested": 5, "used": used, "why": "few frames" if used < 5 else ""},
                "kl_tic01_by_bins": {"weighting": "we", "values": {"20": 0.1, "50": 0.2}},
            }
        )
    )
    return path


def test_html_captions_equal_the_rendered_caption_files(workflow, tmp_path):
    config = workflow.config
    captions = workflow.globals["declared_captions"]()
    metrics = [
        ("chignolin", engine, fake_metrics(tmp_path / engine, engine, used))
        for engine, used in (("implicit", 3), ("groundtruth", 5))
    ]
    figure = {}
    for name in ("tic01_density", "training_curve", "engines_tic01"):  # named as the rules name them
        figure[name] = tmp_path / f"{name}.png"
        figure[name].write_bytes(name.encode())
    tables = {}
    for role, frame in {
        "w1": pd.DataFrame({"protein": ["chignolin"], "engine": ["implicit"], "tic0": [0.1]}),
        "kl": pd.DataFrame({"protein": ["chignolin"], "engine": ["implicit"], "tic0": [0.2]}),
        "coverage": pd.DataFrame(
            {"protein": ["chignolin"], "engine": ["implicit"], "coverage": [0.5], "segments_to_50%": [7]}
        ),
        "throughput": pd.DataFrame({"protein": ["chignolin"], "ns_per_day": [1.0]}),
    }.items():
        # Named as the rules name them: a table's caption is found by its file's name.
        tables[role] = tmp_path / ("groundtruth_throughput_by_protein.csv" if role == "throughput" else f"{role}.csv")
        frame.to_csv(tables[role], index=False)
    settings = workflow.get_rule("html_report").params.metrics
    write_report(
        tmp_path / "report.html",
        title="T",
        summary={"seed": 1},
        settings=settings,
        tables=tables,
        metrics=metrics,
        densities=[("chignolin", figure["tic01_density"])],
        training_curves=[("all", "undertrained", figure["training_curve"])],
        protein_figures=[("chignolin", "engines_tic01", figure["engines_tic01"])],
        captions=captions,
        caption_config=caption_config(config, captions.values()),
    )
    html = (tmp_path / "report.html").read_text().split("<!-- end of the bottom line -->", 1)[-1]
    # Identity from the records: no path here names the protein.
    assert "<h3>chignolin: implicit</h3>" in html and "<h3>chignolin: ground truth</h3>" in html
    shown = re.findall(r"<figcaption>(.*?)</figcaption>", html, re.S)

    def rendered(relative, wildcards, **extra):
        text = (REPO / "report" / relative).read_text()
        return str(caption_html(render_caption(text, config, wildcards, **extra)))

    # The figures section first (each protein's, then the model's over all proteins), then each engine's figures.
    expected = [
        rendered("tic01_density.rst", {"protein": "chignolin"}),
        rendered("figures/engines_tic01.rst", {"protein": "chignolin"}),
        rendered("cg_training_curve.rst", {"preset": "undertrained"}),
    ]
    for _, engine, path in metrics:
        runtime = json.loads(path.read_text())["macrostates"]
        expected += [
            rendered(
                f"figures/{name}.rst",
                {"protein": "chignolin", "engine": engine},
                macrostates_used=runtime["used"],
                macrostates_why=runtime["why"],
            )
            for name in FIGURES
            if not (engine == "groundtruth" and not registered_figure(name).groundtruth)
        ]
    assert shown == expected
    assert '<h3 id="figures-all-proteins">all proteins</h3>' in html
    # The runtime values reach the caption; the ground truth gets its own branch of the same file.
    assert "Here: 3 of" in html and "few frames" in html
    assert "coloured by run" in html and "sanity check" in html
    notes = re.findall(r'<div class="note">(.*?)</div>', html, re.S)
    # The tables' notes (w1, kl, coverage, its per-threshold part, throughput) start with their caption files.
    for shown_note, caption in zip(
        notes,
        ["tables/w1.rst", "tables/kl.rst", "tables/coverage.rst", None, "groundtruth_throughput.rst"],
        strict=False,
    ):
        assert caption is None or shown_note.startswith(rendered(caption, {})), caption
    assert "Binning sensitivity, once: KL(TIC 0/1) of chignolin / implicit" in notes[1]
    assert notes[5:] == [
        rendered("metrics.rst", {"protein": "chignolin", "engine": engine}, discarded_iterations=2)
        for engine in ("implicit", "groundtruth")
    ]
    assert "The first 2 WE iterations are left out" in notes[5]


def test_a_caption_naming_an_unknown_value_fails_with_its_name():
    with pytest.raises(WestbenchError, match="figures/x.rst"):
        render_caption("{{ snakemake.config['metrics']['nope'] }}", {"metrics": {}}, name="figures/x.rst")
    with pytest.raises(WestbenchError, match="no caption template for figure 'y'"):
        Captions({}, {}).html("y")


def test_without_docutils_a_caption_is_plain_escaped_paragraphs(monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "docutils.core", None)  # import fails as if not installed
    html = str(caption_html("First <line>\nwrapped.\n\nSecond."))
    assert html == "<p>First &lt;line&gt; wrapped.</p>\n<p>Second.</p>\n"
