"""The known-answer calibration study: which engines it runs and with what (:mod:`westbench.calibration.study`).

The reference potential is :mod:`westbench.cg.reference`; the study's ground truth
:mod:`westbench.calibration.groundtruth`, its exact predictions :mod:`westbench.calibration.reweighting`, its table and
checks :mod:`westbench.calibration.table`, its figures :mod:`westbench.calibration.figures`. The study composes the CG
stage (its engine and models) and the metric stage (its distributions and W1): the one stage allowed both.
"""
