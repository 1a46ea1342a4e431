"""How results are worded and drawn, the same in every stage: the verdict vocabulary and the columns of the W1/KL
tables (:mod:`~westbench.presentation.verdicts`, written by the metric stage, read by the report) and text that
fits its figure (:mod:`~westbench.presentation.figure_layout`), and the one wording of a CG model's failure to learn
(:mod:`~westbench.presentation.training`). It imports nothing of westbench's: every stage
may use it.
"""

from westbench._exports import lazy_exports

#: Each public name and the module it is defined in (loaded on first use).
_NAMES = {
    "VERDICTS": "westbench.presentation.verdicts",
    "DISTRIBUTIONS": "westbench.presentation.verdicts",
    "verdict_summary": "westbench.presentation.verdicts",
    "distributions_of": "westbench.presentation.verdicts",
    "fit_titles": "westbench.presentation.figure_layout",
    "fits": "westbench.presentation.figure_layout",
    "failure_to_learn": "westbench.presentation.training",
}
__all__ = list(_NAMES)
__getattr__, __dir__ = lazy_exports(__name__, _NAMES)
