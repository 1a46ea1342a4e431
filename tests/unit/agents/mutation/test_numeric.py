"""One number's mistakes: a plausible constant and a number written with the precision of another (hypothesis)."""

import math
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from westbench.agents.mutation import format_like, plausible_constant

from .strategies import finite


@given(finite)
def test_a_plausible_constant_is_a_round_number_near_the_value_and_never_the_value(value):
    constant = plausible_constant(value)
    if constant is None:
        assert float(f"{value:.0e}") == pytest.approx(value, rel=1e-9)
        return
    assert constant != value and math.copysign(1, constant) == math.copysign(1, value)
    assert abs(constant - value) <= 0.5 * 10 ** math.floor(math.log10(abs(value))) + 1e-9 * abs(value)
    assert len(f"{constant:.0e}".split("e")[0].lstrip("-")) == 1  # one significant figure


@given(finite, st.sampled_from(["0.300000", "1e-4", "7", "-12.5", "0.002"]))
def test_a_formatted_number_reads_back_as_the_number(value, original):
    if re.fullmatch(r"-?\d+", original) and not float(value).is_integer():
        value = round(value)
    assert float(format_like(value, original)) == pytest.approx(value, rel=1e-3, abs=1e-9 + 1e-3 * abs(value))
