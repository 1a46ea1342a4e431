"""The HTML report: tables, embedded figures, escaped names."""

import base64

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from westbench.report.html_report import EngineSection, Figure, ProteinSection, build_report, html_table  # noqa: E402


def test_report_embeds_tables_and_figures_and_escapes_names(tmp_path):
    figure, ax = plt.subplots()
    ax.plot([0, 1], [1, 0])
    figure.savefig(tmp_path / "f.png")
    plt.close(figure)
    engine = EngineSection(
        "implicit",
        html_table(pd.DataFrame({"weighting": ["we"], "coverage": [0.123456]})),
        [Figure(tmp_path / "f.png", "a caption")],
    )
    protein = ProteinSection("<chignolin>", [Figure(tmp_path / "f.png", "density")], [engine])
    build_report(
        tmp_path / "r.html",
        title="T",
        summary={"seed": 7},
        tables={"W1": pd.DataFrame({"protein": ["chignolin"], "tic0": [float("nan")]})},
        proteins=[protein],
    )
    html = (tmp_path / "r.html").read_text()
    assert '<h2 id="w1">W1</h2>' in html and "<h3>&lt;chignolin&gt;: implicit</h3>" in html
    assert html.count("data:image/png;base64,") == 2
    assert base64.b64encode((tmp_path / "f.png").read_bytes()).decode() in html
    assert "0.1235" in html and "a caption" in html


# ---------------------------------------------------------------------------------------------------------------
# The report from synthetic metrics files in the new format (docs/outputs.md) and in the older one.

import json  # noqa: E402
import re  # noqa: E402
from pathlib import Path  # noqa: E402

from westbench.config import section_defaults  # noqa: E402
from westbench.metrics.tables import divergence_table, read_tidy  # noqa: E402
from westbench.report.html_report import write_report  # noqa: E402

REPO = Path(__file__).resolve().parents[3]
CAPTIONS = {
    "metrics": "metrics.rst",
    "w1": "tables/w1.rst",
    "kl": "tables/kl.rst",
    "coverage": "tables/coverage.rst",
    "groundtruth_throughput_by_protein": "groundtruth_throughput.rst",
}
TIDY = [
    "protein",
    "engine",
    "weighting",
    "distribution",
    "metric",
    "value",
    "ci_low",
    "ci_high",
    "bias",
    "floor",
    "floor_low",
    "floor_high",
    "verdict",
    "note",
]
DIHEDRALS_REASON = "no model frame has four beads"
MSM_REASON = "msm: no connected set at lag 1 (one grid cell)"


def floor(value, low, high):
    return {"value": value, "low": low, "high": high}


def write_new_format(folder: Path) -> list:
    """metrics.csv and metrics.json of two engines of one protein, as the metrics job writes them now."""
    records = []
    rows = {
        "cg_fulltrained": [
            ["we", "tic0", "w1", 0.375, 0.21, 0.90, 0.05, 0.4, 0.1, 1.63, "within noise", ""],
            ["we", "rg", "w1", 2.5, 2.1, 3.0, 0.6, 0.3, 0.1, 0.7, "separated", ""],
            ["we", "dihedrals", "w1", None, None, None, None, 4.0, 1.0, 9.0, "undetermined", DIHEDRALS_REASON],
            ["we", "tic01", "w1", 0.8, 0.6, 1.1, 0.02, 0.5, 0.2, 0.9, "within noise", ""],
            ["we", "tic0", "kl", 4.08, 3.1, 5.2, 0.3, 0.2, 0.05, 0.6, "separated", ""],
            ["we", "tic01", "kl", 9.5, 8.0, 12.0, 0.5, 1.0, 0.4, 2.0, "separated", ""],
            ["we", "tic01", "coverage", 0.4, None, None, None, None, None, None, "", ""],
        ],
        "explicit": [
            ["we", "tic0", "w1", 0.52, 0.31, 0.95, 0.01, 0.4, 0.1, 1.63, "within noise", ""],
            [
                "we",
                "rg",
                "w1",
                0.9,
                None,
                None,
                None,
                0.3,
                0.1,
                0.7,
                "undetermined",
                "we: fewer than 2 iteration blocks",
            ],
            ["we", "tic01", "kl", 3.0, 2.0, 4.0, 0.1, 1.0, 0.4, 2.0, "separated", ""],
            ["msm", "tic0", "w1", None, None, None, None, None, None, None, "undetermined", MSM_REASON],
            ["msm", "tic01", "kl", None, None, None, None, None, None, None, "undetermined", MSM_REASON],
            ["we", "tic01", "coverage", 0.0, None, None, None, None, None, None, "", ""],
        ],
    }
    for engine, engine_rows in rows.items():
        out = folder / engine
        out.mkdir(parents=True)
        pd.DataFrame([["chignolin", engine, *row] for row in engine_rows], columns=TIDY).to_csv(
            out / "metrics.csv", index=False
        )
        values, intervals, verdicts, floors = {}, {}, {}, {}
        for weighting, dist, metric, value, low, high, bias, med, flow, fhigh, verdict, _ in engine_rows:
            if metric not in ("w1", "kl"):
                continue
            values.setdefault(weighting, {"w1": {}, "kl": {}})[metric][dist] = value
            if low is not None:
                intervals.setdefault(weighting, {"w1": {}, "kl": {}})[metric][dist] = {
                    "low": low,
                    "high": high,
                    "bias": bias,
                    "extended": False,
                }
            verdicts.setdefault(weighting, {"w1": {}, "kl": {}})[metric][dist] = verdict
            if fhigh is not None:
                floors.setdefault(metric, {})[dist] = floor(med, flow, fhigh)
        not_estimable = (
            {"we/w1/dihedrals": DIHEDRALS_REASON}
            if engine == "cg_fulltrained"
            else {"msm": MSM_REASON, "we/intervals": "we: fewer than 2 iteration blocks", "macrostates": "one state"}
        )
        metrics = {
            weighting: {
                "weighting": weighting,
                **values[weighting],
                "intervals": intervals.get(weighting, {}),
                "verdicts": verdicts[weighting],
                "kl_floor": 1e-8,
                "coverage": 0.4,
                "contact_map_w1_A": 0.3,
                "bonds_outside_share": 0.0,
                "macrostate_populations": {"total_variation": 0.1},
            }
            for weighting in values
            if weighting != "msm"
        }
        if engine == "explicit":  # msm not estimable: present with nulls
            metrics["msm"] = {
                "weighting": "msm",
                "w1": {"tic0": None},
                "kl": {"tic01": None},
                "coverage": None,
                "contact_map_w1_A": None,
                "bonds_outside_share": None,
                "macrostate_populations": None,
            }
        record = {
            "protein": "chignolin",
            "engine": engine,
            "frames": 120,
            "frames_left_out": 0,
            "nonfinite_frames_dropped": 3 if engine == "explicit" else 0,
            "groundtruth_frames": 600,
            "discarded_iterations": 0,
            "simulated_ps": {"longest": 8.0, "aggregate": 480.0},
            "macrostates": {
                "requested": 5,
                "used": None if engine == "explicit" else 3,
                "reduced": True,
                "why": "few frames",
                "model": "results/chignolin/metrics/macrostates.npz",
            },
            "kl_tic01_by_bins": {"weighting": "we", "values": {"25": 1.5, "50": None}},
            "settings": {"weightings": ["we", "msm"]},
            "figures": {"weighting": "we", "files": []},
            "resampling": {"groundtruth": "3 runs", "model": "5 iteration blocks", "replicates": 200, "method": "BCa"},
            "noise_floor": {**floors, "splits": 50, "units": 1},
            "not_estimable": not_estimable,
            "metrics": metrics,
        }
        (out / "metrics.json").write_text(json.dumps(record))
        records.append(("chignolin", engine, out / "metrics.json"))
    return records


def render(tmp_path, metrics, csvs, bootstrap=200, controls=None):
    """write_report on the given metrics.json records and metrics.csv files (tables built as rule metric_tables
    builds them), with the caption files of report/ and, when given, a controls.json record; the page's HTML."""
    tidy = read_tidy(csvs)
    tables = {
        "w1": tmp_path / "w1.csv",
        "kl": tmp_path / "kl.csv",
        "coverage": tmp_path / "coverage.csv",
        "throughput": tmp_path / "groundtruth_throughput_by_protein.csv",
    }
    divergence_table(tidy, "w1").to_csv(tables["w1"], index=False)
    divergence_table(tidy, "kl").to_csv(tables["kl"], index=False)
    pd.DataFrame({"protein": ["chignolin"], "engine": ["explicit"], "coverage": [0.0]}).to_csv(
        tables["coverage"], index=False
    )
    pd.DataFrame({"protein": ["chignolin"], "ns_per_day": [1.0]}).to_csv(tables["throughput"], index=False)
    config = {
        "metrics": {**section_defaults("metrics"), "bootstrap": bootstrap},
        "platform": section_defaults("platform"),
    }
    captions = {name: (REPO / "report" / relative).read_text() for name, relative in CAPTIONS.items()}
    write_report(
        tmp_path / "report.html",
        title="T",
        summary={"seed": 1},
        settings={"bootstrap": bootstrap, "discard_iterations": 0},
        tables=tables,
        metrics=metrics,
        captions=captions,
        caption_config=config,
        controls=[("chignolin", write_controls(tmp_path, controls))] if controls is not None else (),
    )
    return (tmp_path / "report.html").read_text()


def write_controls(folder: Path, record: dict) -> Path:
    path = folder / "controls.json"
    path.write_text(json.dumps(record))
    return path


def after_bottom_line(html):
    """The report after its bottom line (which has a figure and tables of its own)."""
    return html.split("<!-- end of the bottom line -->", 1)[-1]


def section(html, heading, tag="h2"):
    """The HTML from ``<tag>heading</tag>`` (with or without an id) to the next heading of that level or above."""
    start = re.search(rf"<{tag}( id=\"[^\"]*\")?>{re.escape(heading)}</{tag}>", html).start()
    ends = [i for i in (html.find("<h2", start + 1), html.find("<h3", start + 1)) if i > 0]
    return html[start : min(ends)] if ends else html[start:]


def cells(table_html):
    """Rows of <td> cells (inner HTML) of the first table in ``table_html``."""
    body = table_html[table_html.index("<tbody>") : table_html.index("</tbody>")]
    return [re.findall(r"<td>(.*?)</td>", row, re.S) for row in re.findall(r"<tr>(.*?)</tr>", body, re.S)]


def test_new_format_cells_show_bounds_verdict_floor_and_large_bias(tmp_path):
    metrics = write_new_format(tmp_path / "m")
    html = render(tmp_path, metrics, [path.with_suffix(".csv") for _, _, path in metrics])
    assert "±" not in html
    w1 = section(html, "Wasserstein-1 (W1)")
    assert "<th>Rg (Å)</th>" in w1 and "<th>dihedrals (°)</th>" in w1 and "<th>TIC 0</th>" in w1
    rows = {(row[1], row[2]): row for row in cells(w1)}  # (engine, weighting)
    tic0 = rows[("cg_fulltrained", "we")][3]
    assert "0.375 [0.21, 0.90]" in tic0 and "floor ≤ 1.63" in tic0
    assert 'class="verdict v-within-noise"' in tic0 and "≈" in tic0 and "bias" not in tic0  # bias 0.05 < 0.345
    rg = rows[("cg_fulltrained", "we")][4]
    assert "2.50 [2.1, 3.0]" in rg and 'class="verdict v-separated"' in rg and "◆" in rg
    assert "bias +0.60" in rg and "floor ≤ 0.700" in rg  # bias 0.6 > half the width (0.45)
    dihedrals = rows[("cg_fulltrained", "we")][5]
    assert "not estimable" in dihedrals and f'title="{DIHEDRALS_REASON}"' in dihedrals
    assert "floor" not in dihedrals and "[" not in dihedrals
    # The footnote below the table gives the same reason.
    assert re.search(rf'<ol class="footnotes"><li id="w1-1">{DIHEDRALS_REASON}</li>', w1)  # in reading order
    assert '<sup><a href="#w1-1">1</a></sup>' in dihedrals
    # A value without an interval: the value, "no interval" with the reason, the undetermined mark.
    explicit_rg = rows[("explicit", "we")][4]
    assert explicit_rg.startswith("0.900 [") and "no interval" in explicit_rg and "v-undetermined" in explicit_rg
    assert "fewer than 2 iteration blocks" in explicit_rg
    # A whole weighting not estimable: every cell of its row says so.
    assert "not estimable" in rows[("explicit", "msm")][3] and MSM_REASON in w1
    kl = section(html, "KL(ground truth || model)")
    assert re.findall(r"<th>(.*?)</th>", kl) == ["protein", "engine", "weighting", "TIC 0", "TIC 0/1"]
    assert "9.50 [8.0, 12.0]" in kl and "4.08 [3.1, 5.2]" in kl
    assert "50 bins: not estimable" in kl and "25 bins: 1.5" in kl
    assert "fixed per protein" in kl and "min(1e-08" in kl  # the caption: fixed bins and the floor rule


def test_new_format_has_a_caveats_box_at_the_top_listing_every_not_estimable_entry(tmp_path):
    metrics = write_new_format(tmp_path / "m")
    html = render(tmp_path, metrics, [path.with_suffix(".csv") for _, _, path in metrics])
    box = html[html.index('<div class="caveats">') :]
    box = box[: box.index("</div>\n</div>")]
    assert html.index('<div class="caveats">') < html.index('<h2 id="wasserstein-1-w1">Wasserstein-1 (W1)</h2>')
    assert cells(box) == [
        ["chignolin", "cg_fulltrained", "we/w1/dihedrals", DIHEDRALS_REASON],
        ["chignolin", "explicit", "msm", MSM_REASON],
        ["chignolin", "explicit", "we/intervals", "we: fewer than 2 iteration blocks"],
        ["chignolin", "explicit", "macrostates", "one state"],
        [
            "chignolin",
            "explicit",
            "nonfinite_frames_dropped",
            "3 frames with non-finite coordinates dropped before scoring",
        ],
    ]


def test_new_format_verdict_summary_and_engine_tables(tmp_path):
    metrics = write_new_format(tmp_path / "m")
    html = render(tmp_path, metrics, [path.with_suffix(".csv") for _, _, path in metrics])
    summary = section(html, "Verdicts against the noise floor")
    header = re.findall(r"<th>(.*?)</th>", summary)
    assert header[:6] == ["protein", "engine", "weighting", "W1 separated", "W1 within noise", "W1 undetermined"]
    counts = {(row[1], row[2]): row[3:9] for row in cells(summary)}
    assert counts[("cg_fulltrained", "we")] == ["1", "2", "1", "2", "0", "0"]
    assert counts[("explicit", "msm")] == ["0", "0", "1", "0", "0", "1"]
    # An engine's own table, from metrics.json: the same cells, the msm row not estimable with its reason.
    engine = section(html, "chignolin: explicit", "h3")
    assert "<th>W1 Rg (Å)</th>" in engine and "(nm)" not in html
    # Two tables, each fitting the page: the divergences, then coverage, structure and macrostates.
    divergences, others = engine.split("</table>")[:2]
    assert "<th>frames</th>" in others and "<th>W1 TIC 0</th>" in divergences
    rows = {row[0]: row for row in cells(divergences)}
    assert "0.520 [0.31, 0.95]" in rows["we"][1] and "floor ≤ 1.63" in rows["we"][1]
    assert "no interval" in rows["we"][3] and "fewer than 2 iteration blocks" in rows["we"][3]
    assert all("not estimable" in cell for cell in rows["msm"][1:]), rows["msm"]
    rest = {row[0]: row for row in cells(others)}
    assert all("not estimable" in cell for cell in rest["msm"][2:6]), rest["msm"]
    assert MSM_REASON in rows["msm"][1] and "one state" in rest["we"][-1]  # macrostates used: not estimable
    # The caption says what the job resampled and how the floor was made.
    assert "200 BCa replicates resampling the ground truth's 3 runs and the model's 5 iteration blocks" in engine
    assert "the noise floor over 50 split halves (1 ground-truth run in the pseudo-model half)" in engine
    assert "3 frames with non-finite coordinates were dropped" in engine


def test_old_format_files_render_with_bounds_and_no_verdicts(tmp_path):
    folder = tmp_path / "implicit"
    folder.mkdir()
    pd.DataFrame(
        {
            "protein": ["chignolin"] * 3,
            "engine": ["implicit"] * 3,
            "weighting": ["we"] * 3,
            "distribution": ["tic0", "rg", "tic01"],
            "metric": ["w1", "w1", "kl"],
            "value": [0.12345, 0.05, 2.0],
            "ci_low": [0.1, 0.04, 1.5],
            "ci_high": [0.2, 0.07, 2.5],
        }
    ).to_csv(folder / "metrics.csv", index=False)
    (folder / "metrics.json").write_text(
        json.dumps(
            {
                "frames": 10,
                "discarded_iterations": 0,
                "macrostates": {"requested": 5, "used": 5, "why": ""},
                "metrics": {
                    "we": {
                        "coverage": 0.5,
                        "w1": {"tic0": 0.12345, "tic01": 0.2, "rg": 0.05},
                        "kl": {"tic01": 2.0},
                        "contact_map_w1_A": 0.4,
                        "bonds_outside_share": 0.0,
                        "macrostate_populations": {"total_variation": 0.05},
                    }
                },
            }
        )
    )
    html = render(tmp_path, [("chignolin", "implicit", folder / "metrics.json")], [folder / "metrics.csv"])
    assert "±" not in html and "Verdicts against the noise floor" not in html
    w1 = section(html, "Wasserstein-1 (W1)")
    row = cells(w1)[0]
    assert "0.123 [0.10, 0.20]" in row[3] and "verdict" not in row[3] and "floor" not in row[3]
    assert "not estimable" not in w1 and "footnotes" not in w1
    assert "None: every metric of every engine was estimated" in html
    divergences, others = section(html, "chignolin: implicit", "h3").split("</table>")[:2]
    assert cells(divergences)[0][1] == "0.123" and cells(others)[0][2] == "0.5"


def test_no_bootstrap_says_so_instead_of_showing_intervals(tmp_path):
    metrics = write_new_format(tmp_path / "m")
    html = render(tmp_path, metrics, [path.with_suffix(".csv") for _, _, path in metrics], bootstrap=0)
    assert "metrics.bootstrap is 0: no intervals" in section(html, "Wasserstein-1 (W1)")


# ---------------------------------------------------------------------------------------------------------------
# What the run could detect, sanity failures and pinned KL values reach the page; figures before the long tables;
# every quantity defined.

from markupsafe import Markup  # noqa: E402

from westbench.report.definitions import DEFINITIONS, anchor, terms_of  # noqa: E402

from .evidence_data import controls_record  # noqa: E402


def pinned_and_failed(folder: Path) -> list:
    """The new-format records with the explicit engine failing its chirality check and cg_fulltrained's KL of TIC
    0/1 floored at 15 nats (pinned by the bin floor: 600 frames, kl_floor 1e-8)."""
    metrics = write_new_format(folder)
    for _, engine, path in metrics:
        record = json.loads(path.read_text())
        record["settings"]["kl_floor"] = 1e-8
        if engine == "explicit":
            record["sanity"] = {
                "passed": False,
                "failed": ["chirality"],
                "checks": {"chirality": {"message": "mirror"}},
            }
        path.write_text(json.dumps(record))
        if engine == "cg_fulltrained":
            table = pd.read_csv(path.with_suffix(".csv"))
            table.loc[(table["metric"] == "kl") & (table["distribution"] == "tic01"), "floor_high"] = 15.0
            table.to_csv(path.with_suffix(".csv"), index=False)
    return metrics


def test_the_report_names_failed_engines_marks_pinned_kl_and_says_what_the_run_could_detect(tmp_path):
    metrics = pinned_and_failed(tmp_path / "m")
    controls = controls_record({"collapse": None, "mirror": None, "scale": None})
    html = render(tmp_path, metrics, [path.with_suffix(".csv") for _, _, path in metrics], controls=controls)
    bottom = html.split("<!-- end of the bottom line -->")[0]
    assert "This run cannot rank engines on chignolin." in bottom and "mirror image: cannot tell" in bottom
    assert "Failed its sanity checks, so not ranked and no score of it reads as fine: explicit (chirality: mirror)" in (
        bottom
    )
    assert "With this ground truth, a known-bad engine would be caught" in bottom
    detection = html[html.index('<h2 id="detection">') : html.index('<h2 id="run">')]
    assert "collapse (3 conformations repeated)" in detection and "cannot tell" in detection
    kl = section(html, "KL(ground truth || model)")
    rows = {(row[1], row[2]): row for row in cells(kl)}
    assert "pinned by the bin floor" in rows[("cg_fulltrained", "we")][4] and "9.50 [" not in kl
    w1 = section(html, "Wasserstein-1 (W1)")
    assert "failed sanity check: chirality" in w1 and "not distinguishable" in w1


def test_the_figures_come_before_the_long_tables(tmp_path):
    figure, ax = plt.subplots()
    figure.savefig(tmp_path / "density.png")
    plt.close(figure)
    protein = ProteinSection("chignolin", [Figure(tmp_path / "density.png", "the density")], [])
    build_report(
        tmp_path / "r.html",
        title="T",
        summary={"seed": 1},
        tables={"W1": pd.DataFrame({"protein": ["chignolin"], "tic0": [0.1]})},
        proteins=[protein],
        overview=Markup("<h2>Bottom line</h2>"),
        detection=Markup('<h2 id="detection">What this run could detect</h2>'),
    )
    html = (tmp_path / "r.html").read_text()
    order = [
        html.index(marker)
        for marker in (
            "<!-- end of the bottom line -->",
            '<h2 id="figures">',
            '<h2 id="detection">',
            '<h2 id="caveats">',
            '<h2 id="w1">',
            '<h2 id="definitions">',
        )
    ]
    assert order == sorted(order)
    assert '<h2 id="chignolin">' not in html  # a protein without engine sections has no empty section


def test_every_column_of_every_table_of_the_report_is_defined(tmp_path):
    metrics = pinned_and_failed(tmp_path / "m")
    controls = controls_record({"collapse": True, "mirror": None, "scale": True})
    html = render(tmp_path, metrics, [path.with_suffix(".csv") for _, _, path in metrics], controls=controls)
    headings = [
        re.sub(r"<[^>]+>", "", th).strip()
        for head in re.findall(r"<thead>(.*?)</thead>", html, re.S)
        for th in re.findall(r"<th[^>]*>(.*?)</th>", head, re.S)
    ]
    assert len(headings) > 40
    undefined = sorted({h for h in headings if not terms_of(h)})
    assert undefined == [], "define these in westbench.report.definitions"
    for term in {t for h in headings for t in terms_of(h)}:
        assert term in DEFINITIONS and f'id="{anchor(term)}"' in html
    assert html.count('class="defined note"') >= 6  # a definitions line beside every table
