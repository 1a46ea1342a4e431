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
    engine = EngineSection("implicit", html_table(pd.DataFrame({"weighting": ["we"], "coverage": [0.123456]})),
                           [Figure(tmp_path / "f.png", "a caption")])
    protein = ProteinSection("<chignolin>", [Figure(tmp_path / "f.png", "density")], [engine])
    build_report(tmp_path / "r.html", title="T", summary={"seed": 7},
                 tables={"W1": pd.DataFrame({"protein": ["chignolin"], "tic0": [float("nan")]})}, proteins=[protein])
    html = (tmp_path / "r.html").read_text()
    assert "<h2>W1</h2>" in html and "<h3>&lt;chignolin&gt;: implicit</h3>" in html
    assert html.count("data:image/png;base64,") == 2
    assert base64.b64encode((tmp_path / "f.png").read_bytes()).decode() in html
    assert "0.1235" in html and "a caption" in html
