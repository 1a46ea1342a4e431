"""The known-answer calibration study: which engines it runs and with what (:mod:`westbench.calibration.study`).

The reference potential is :mod:`westbench.cg.reference`; the study's ground truth
:mod:`westbench.calibration.groundtruth`, its known answers :mod:`westbench.calibration.reweighting` and
:mod:`westbench.calibration.known_answer`, its table and checks :mod:`westbench.calibration.table` (which lists
the modules of each part in reading order), its figures :mod:`westbench.calibration.figures`. The study composes the CG
stage (its engine and models) and the metric stage (its distributions and W1): the one stage allowed both.
"""

from westbench._exports import lazy_exports

#: Each public name and the module it is defined in (loaded on first use).
_NAMES = {
    "engines": "westbench.calibration.study",
    "run_reference_groundtruth": "westbench.calibration.groundtruth",
    "reweighting_weights": "westbench.calibration.reweighting",
    "write_reweighting": "westbench.calibration.reweighting",
    "calibration_table": "westbench.calibration.table",
    "resolution_figure": "westbench.calibration.figures",
    "convergence_figure": "westbench.calibration.figures",
}
__all__ = list(_NAMES)
__getattr__, __dir__ = lazy_exports(__name__, _NAMES)
