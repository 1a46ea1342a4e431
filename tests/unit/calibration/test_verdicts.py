"""The verdict a known answer predicts against the noise floor and the engine's own interval, and agreement."""

from hypothesis import given
from hypothesis import strategies as st

from westbench.calibration.verdicts import CLEAR, CLEAR_WIDTHS, NEGLIGIBLE, agrees, expected_verdict


@given(floor=st.floats(1e-3, 10.0), share=st.floats(0.0, 5.0))
def test_expected_verdicts_follow_the_prediction_against_the_floor(floor, share):
    verdict = expected_verdict(share * floor, floor)
    if share > CLEAR:
        assert verdict == "separated"
    elif share < NEGLIGIBLE:
        assert verdict == "within noise"
    else:
        assert verdict == "either"
    assert expected_verdict(float("nan"), floor) == "undetermined"


@given(floor=st.floats(1e-3, 10.0), share=st.floats(0.0, 20.0), width=st.floats(0.0, 10.0))
def test_a_prediction_is_expected_separated_only_where_the_engines_interval_resolves_it(floor, share, width):
    """The engine's own interval width is a resolution too: a wide one turns an expected separation into either,
    never into within noise, and a narrow one changes nothing."""
    alone, sized = expected_verdict(share * floor, floor), expected_verdict(share * floor, floor, width)
    if share * floor <= floor + CLEAR_WIDTHS * width and alone == "separated":
        assert sized == "either"
    else:
        assert sized == alone


def test_an_undetermined_verdict_never_agrees():
    assert not agrees("undetermined", "either") and not agrees("", "within noise")
    assert agrees("within noise", "within noise") and not agrees("separated", "within noise")
