"""The one list of the metric suite's figures: file name (``<name>.png``) and the label the Snakemake report shows.

Kept apart from :mod:`westbench.metrics.figures` (which draws them) so that the rules can read the list
while the workflow is parsed without importing matplotlib. ``rules/metrics.smk`` declares one report
output per entry, with the caption ``report/figures/<name>.rst``.

Examples
--------
>>> FIGURES["macrostates"]
'macrostates'
>>> list(FIGURES)[0]
'tic_densities_1d'
"""

FIGURES = {
    "tic_densities_1d": "TIC 0-3 densities",
    "tic_densities_2d": "TIC pair free energies",
    "tic01_by_iteration": "TIC pairs by WE iteration",
    "structure_distributions": "Rg, bonds, angles, dihedrals",
    "msm_reweighting": "MSM reweighting",
    "contact_map_difference": "contact map difference",
    "macrostates": "macrostates",
}
