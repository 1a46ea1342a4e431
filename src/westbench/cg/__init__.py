"""Machine-learned C-alpha coarse-grained models (CGSchNet family): prior, network, training, WE engine.

Modules: :mod:`~westbench.cg.internal_coordinates` (bond/angle/dihedral terms in torch),
:mod:`~westbench.cg.prior` (Boltzmann-inverted prior), :mod:`~westbench.cg.schnet`
(graph network), :mod:`~westbench.cg.model` (energy = network + prior, save/load,
user models), :mod:`~westbench.cg.data` (ground-truth frames for force matching),
:mod:`~westbench.cg.train` (force matching), :mod:`~westbench.cg.engine` (batched
Langevin propagator for weighted ensemble).
"""
