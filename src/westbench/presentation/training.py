"""The one wording of a CG training run's failure to learn, for every place that shows it: the training curve's title
(:func:`westbench.cg.training_step.train_preset`), the ``not_estimable.training`` caveat of ``metrics.json``
(:mod:`westbench.metrics.score`) and the report's bottom line and figure captions. All read the same training
record (``best_epoch``, ``relative_drop``, ``min_relative_drop``, ``learned``: the ``training_summary`` of a model's
``model.json``, copied into ``metrics.json`` as ``training``), so a figure can no longer say "epoch 0 kept" where the
model kept epoch 30.

Examples
--------
>>> record = {"learned": False, "best_epoch": 30, "relative_drop": 5.1e-05, "min_relative_drop": 0.05}
>>> failure_to_learn(record, "title")
"FAILURE TO LEARN (epoch 30 kept, validation loss 0.0051 % below the start's)"
>>> failure_to_learn(record, "flag")
"failed to learn: epoch 30 kept, validation loss 0.0051 % below the start's"
>>> failure_to_learn({**record, "learned": True}), failure_to_learn(None)
('', '')
"""

from __future__ import annotations

from typing import Mapping

#: The forms :func:`failure_to_learn` writes: where each is shown.
FORMS = ("caveat", "title", "flag")


def percent(share) -> str:
    """A share as the training wording writes it: three significant digits and " %"; unknown when None.

    Examples
    --------
    >>> percent(5.1e-05), percent(0.0), percent(None)
    ('0.0051 %', '0 %', 'an unknown share')
    """
    return "an unknown share" if share is None else f"{100 * float(share):.3g} %"


def learned(record: Mapping | None) -> bool | None:
    """Whether the training record says the model learned (None without a record: not a trained engine)."""
    if not record:
        return None
    return bool(record.get("learned", False))


def failure_to_learn(record: Mapping | None, form: str = "caveat") -> str:
    """What a training run that did not learn is called (``""`` when it learned, or for no record).

    ``form``: ``caveat`` (the full sentence of ``not_estimable.training``, with the threshold and what the scores
    then are), ``title`` (the training curve's title suffix) or ``flag`` (the words beside the engine's name wherever
    the bottom line names it).

    Examples
    --------
    >>> record = {"learned": False, "best_epoch": 0, "relative_drop": 0.0, "min_relative_drop": 0.05}
    >>> print(failure_to_learn(record))  # doctest: +NORMALIZE_WHITESPACE
    failure to learn: training kept epoch 0, its validation loss 0 % below the start's (a model learned at 5 % or
    more, cg.training.min_relative_drop): its scores are the network on its prior's, not a trained model's
    """
    if form not in FORMS:
        raise ValueError(f"form must be one of {', '.join(FORMS)}, got {form!r}")
    if learned(record) is not False:
        return ""
    epoch, drop = record.get("best_epoch"), percent(record.get("relative_drop"))
    if form == "title":
        return f"FAILURE TO LEARN (epoch {epoch} kept, validation loss {drop} below the start's)"
    if form == "flag":
        return f"failed to learn: epoch {epoch} kept, validation loss {drop} below the start's"
    return (
        f"failure to learn: training kept epoch {epoch}, its validation loss {drop} below the start's (a model "
        f"learned at {percent(record.get('min_relative_drop'))} or more, cg.training.min_relative_drop): its scores "
        "are the network on its prior's, not a trained model's"
    )
