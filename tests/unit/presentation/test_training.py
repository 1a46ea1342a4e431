"""One wording of a CG model's failure to learn: the training curve's title, the Caveats' entry and the bottom line's
flag all name the epoch the model kept and its loss drop, from the same record (the default run's figure once said
"epoch 0 kept" where the model kept epoch 27)."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from westbench.presentation.training import FORMS, failure_to_learn, percent

RECORDS = st.fixed_dictionaries(
    {
        "learned": st.just(False),
        "best_epoch": st.integers(0, 500),
        "relative_drop": st.one_of(st.none(), st.floats(0, 0.049, allow_nan=False)),
        "min_relative_drop": st.floats(0.001, 0.5, allow_nan=False),
    }
)


@given(record=RECORDS)
def test_every_form_names_the_kept_epoch_and_the_drop_of_the_record(record):
    for form in FORMS:
        text = failure_to_learn(record, form)
        assert f"epoch {record['best_epoch']}" in text
        assert percent(record["relative_drop"]) in text
    assert "cg.training.min_relative_drop" in failure_to_learn(record, "caveat")


@given(record=RECORDS)
def test_a_model_that_learned_or_no_record_has_no_failure_text(record):
    assert all(failure_to_learn({**record, "learned": True}, form) == "" for form in FORMS)
    assert failure_to_learn(None) == "" and failure_to_learn({}) == ""


def test_the_training_curve_title_and_the_metrics_caveat_use_this_wording():
    """The two places that once disagreed call the one owner (no copy of the wording is left in them)."""
    from pathlib import Path

    import westbench.cg.training_step as training_step
    import westbench.metrics.engine_scoring as engine_scoring

    for module in (training_step, engine_scoring):
        source = Path(module.__file__).read_text()
        assert "failure_to_learn(" in source and "epoch 0 kept" not in source


def test_an_unknown_form_is_refused_with_the_forms():
    with pytest.raises(ValueError, match="caveat, title, flag"):
        failure_to_learn({"learned": False}, "headline")
