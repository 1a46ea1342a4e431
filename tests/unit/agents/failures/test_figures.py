"""The failure analysis's figures: each a PNG of its documented size, drawing what its table holds; an empty table
gives a small figure saying so."""

import matplotlib.colors
import matplotlib.image
import numpy as np
import pandas as pd
import pytest

from westbench.agents.failures.breaches import SIGNATURES
from westbench.agents.failures.figures import (
    OUTCOME_COLORS,
    SIGNATURE_COLORS,
    plot_breaches,
    plot_failures,
    plot_process,
)
from westbench.agents.process.capabilities import CAPABILITIES

EMPTY_SHAPE = (240, 720)  # 6 x 2 inches at 120 dpi


def pixels(path):
    image = matplotlib.image.imread(path)
    assert image.ndim == 3
    return image[..., :3]


def share_of_colour(image, colour, tolerance=0.02):
    rgb = np.array(matplotlib.colors.to_rgb(colour))
    return float((np.abs(image - rgb).max(axis=-1) < tolerance).mean())


def breaches(rows):
    columns = [f"signature_{name.replace(' ', '_')}" for name in SIGNATURES]
    return pd.DataFrame(
        [
            {"tag": tag, "value": value, "not_passed": sum(counts.values()), **dict.fromkeys(columns, 0), **counts}
            for tag, value, counts in rows
        ]
    )


def test_empty_tables_give_the_small_figure_that_says_so(tmp_path):
    empty = pd.DataFrame()
    plot_breaches(empty, tmp_path / "b.png")
    plot_failures(empty, empty, tmp_path / "f.png")
    plot_process(empty, empty, empty, tmp_path / "p.png")
    for name in ("b", "f", "p"):
        assert pixels(tmp_path / f"{name}.png").shape[:2] == EMPTY_SHAPE, name


def test_breaches_stack_the_signatures_present_one_panel_per_tag(tmp_path):
    both = breaches(
        [
            ("category", "setup", {"signature_failed_check": 3, "signature_missing_deliverable": 1}),
            ("category", "analysis", {"signature_failed_check": 2}),
            ("difficulty", "hard", {"signature_failed_check": 5, "signature_missing_deliverable": 1}),
        ]
    )
    plot_breaches(both, tmp_path / "both.png")
    plot_breaches(both[both["tag"] == "category"], tmp_path / "one.png")
    image, one = pixels(tmp_path / "both.png"), pixels(tmp_path / "one.png")
    assert image.shape[:2] == (576, 1560) and one.shape[:2] == (576, 780)  # 6.5 inches a panel, 4.8 high, 120 dpi
    assert share_of_colour(image, SIGNATURE_COLORS["failed check"]) > 0.01
    assert share_of_colour(image, SIGNATURE_COLORS["missing deliverable"]) > 0.001
    assert share_of_colour(image, SIGNATURE_COLORS["judge shortfall"]) == 0  # no trial with it: not drawn


def test_breaches_of_passed_trials_only_are_no_breach(tmp_path):
    table = breaches([("category", "setup", {})])
    plot_breaches(table, tmp_path / "b.png")
    assert pixels(tmp_path / "b.png").shape[:2] == EMPTY_SHAPE


def rates(column, passed, failed):
    return pd.DataFrame(
        {
            "agent": ["a", "a"],
            "model": ["m", "m"],
            "outcome": ["passed", "not passed"],
            column: [passed, failed],
            f"{column}_lo": [passed / 2, failed / 2],
            f"{column}_hi": [min(1.0, passed * 1.5), min(1.0, failed * 1.5)],
        }
    )


@pytest.mark.parametrize("with_tool_errors", [True, False])
def test_failures_draw_both_outcomes_in_their_colours(tmp_path, with_tool_errors):
    completion = rates("claim_rate", 0.9, 0.6)
    tool_errors = rates("errors_per_100_results", 3.0, 8.0) if with_tool_errors else pd.DataFrame()
    plot_failures(completion, tool_errors, tmp_path / "f.png")
    image = pixels(tmp_path / "f.png")
    assert image.shape[:2] == (540, 1440)
    for colour in OUTCOME_COLORS.values():
        assert share_of_colour(image, colour) > 0.005


def test_process_against_score_is_drawn_only_for_judged_trials(tmp_path):
    rng = np.random.default_rng(0)
    measures = [*CAPABILITIES, "process", "process_coverage_adjusted"]
    estimate = rng.uniform(0.2, 0.8, len(measures))
    summary = pd.DataFrame(
        {"agent": "a", "model": "m", "measure": measures, "estimate": estimate, "lo": estimate - 0.1, "hi": estimate}
    )
    process = pd.DataFrame(
        {"agent": "a", "model": "m", "process": rng.uniform(size=8), "task_score": rng.uniform(size=8)}
    )
    correlation = pd.DataFrame([{"scope": "overall", "spearman": 0.4, "lo": -0.3, "hi": 0.8, "trials": 8, "note": ""}])
    plot_process(summary, process, correlation, tmp_path / "p.png")
    assert pixels(tmp_path / "p.png").shape[:2] == (576, 1560)  # 13 x 4.8 inches at 120 dpi
    plot_process(summary, process.assign(process=np.nan), correlation, tmp_path / "unjudged.png")
    assert pixels(tmp_path / "unjudged.png").shape[:2] == EMPTY_SHAPE
