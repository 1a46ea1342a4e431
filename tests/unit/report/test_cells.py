"""Cells of the report: an estimate with its interval, verdict and noise floor, or why it is missing."""

import re
from decimal import Decimal

import numpy as np

from westbench.report.cells import MARKS, Estimate, Footnotes, estimate_cell, large_bias, value_cell


def printed(cell):
    """(estimate, low, high) as printed in a cell, as Decimals."""
    match = re.search(r">([-+0-9.e]+) \[([-0-9.e]+), ([-0-9.e]+)\]<", str(cell))
    return tuple(Decimal(x) for x in match.groups())


def test_printed_interval_contains_the_printed_estimate_over_many_scales():
    rng = np.random.default_rng(7)
    for _ in range(2000):
        scale = 10.0 ** rng.uniform(-2.5, 3.5)
        low, value, high = (float(x) for x in np.sort(rng.uniform(0, 1, 3)) * scale)
        if rng.uniform() < 0.2:
            low = value  # the estimate on a bound (a BCa bound moved to the estimate)
        shown_value, shown_low, shown_high = printed(estimate_cell(Estimate(value, low=low, high=high)))
        assert shown_low <= shown_value <= shown_high, (low, value, high)
        assert shown_low <= Decimal(repr(low)) and Decimal(repr(high)) <= shown_high  # rounded outward


def test_the_noise_floor_is_rounded_up_so_that_floor_le_stays_true():
    cell = str(estimate_cell(Estimate(0.5, low=0.4, high=0.6, floor_high=1.6301, verdict="within noise")))
    assert "floor ≤ 1.64" in cell


def test_each_verdict_has_its_mark_and_none_when_the_source_has_no_verdict():
    for verdict, mark in MARKS.items():
        cell = str(estimate_cell(Estimate(1.0, low=0.5, high=1.5, floor_high=2.0, verdict=verdict)))
        assert f">{mark}</span>" in cell and verdict in cell
    old = str(estimate_cell(Estimate(1.0, low=0.5, high=1.5)))
    assert "verdict" not in old and "floor" not in old and "no interval" not in old


def test_missing_parts_of_a_scored_value_are_stated_with_their_reason():
    notes = Footnotes("t")
    no_floor = str(estimate_cell(Estimate(1.0, low=0.5, high=1.5, verdict="undetermined", note="one run"), notes))
    assert "floor not estimable" in no_floor and 'title="one run"' in no_floor and "1.00 [0.5, 1.5]" in no_floor
    missing = str(estimate_cell(Estimate(None, verdict="undetermined", note="one run"), notes))
    assert missing.startswith('<span class="not-estimable" title="one run">not estimable</span>')
    assert notes.reasons == ["one run"]  # one footnote for one reason
    assert str(estimate_cell(Estimate(None))) == ""  # nothing scored: a blank cell, as before


def test_bias_is_shown_only_when_larger_than_half_the_interval():
    assert large_bias(Estimate(1.0, low=0.9, high=1.3, bias=-0.25))
    assert "bias -0.25" in str(estimate_cell(Estimate(1.0, low=0.9, high=1.3, bias=-0.25)))
    assert "bias" not in str(estimate_cell(Estimate(1.0, low=0.9, high=1.3, bias=0.19)))


def test_an_exact_zero_reads_zero():
    cell = str(estimate_cell(Estimate(0.0, low=0.0, high=0.0, floor_high=1.63, verdict="within noise")))
    assert ">0 [0, 0]<" in cell and "floor ≤ 1.63" in cell


def test_plain_values():
    assert value_cell(0.123456) == "0.1235" and value_cell(np.int64(7)) == "7" and value_cell(float("nan")) == ""
    assert 'title="a reason"' in str(value_cell(None, "a reason"))
