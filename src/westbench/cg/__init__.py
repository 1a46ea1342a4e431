"""Machine-learned C-alpha coarse-grained models (CGSchNet family): prior, network, training, WE engine.

Modules: :mod:`~westbench.cg.internal_coordinates` (bond/angle/dihedral terms in torch),
:mod:`~westbench.cg.prior` (Boltzmann-inverted prior), :mod:`~westbench.cg.schnet`
(graph network), :mod:`~westbench.cg.model` (energy = network + prior, save/load,
user models), :mod:`~westbench.cg.data` (ground-truth frames for force matching),
:mod:`~westbench.cg.train` (force matching), :mod:`~westbench.cg.engine` (batched
Langevin propagator for weighted ensemble).
"""

from westbench._exports import lazy_exports

#: Each public name and the module it is defined in (loaded on first use).
_NAMES = {
    "CGModel": "westbench.cg.model",
    "ProteinModel": "westbench.cg.model",
    "save_model": "westbench.cg.model",
    "load_energy_model": "westbench.cg.model",
    "SchNet": "westbench.cg.schnet",
    "TorchMDNet": "westbench.cg.torchmdnet",
    "Prior": "westbench.cg.prior",
    "fit_prior": "westbench.cg.prior",
    "ProteinData": "westbench.cg.data",
    "load_protein_data": "westbench.cg.data",
    "train_model": "westbench.cg.train",
    "preset_training": "westbench.cg.train",
    "train_preset": "westbench.cg.training_step",
    "CGEngine": "westbench.cg.engine",
    "UserModel": "westbench.cg.user",
    "ModelContractError": "westbench.cg.user",
    "load_user_model": "westbench.cg.user",
    "check_user_model": "westbench.cg.user",
    "GoModel": "westbench.cg.reference",
    "build_reference": "westbench.cg.reference",
    "force_noise_floor": "westbench.cg.force_matching_floor",
}
__all__ = list(_NAMES)
__getattr__, __dir__ = lazy_exports(__name__, _NAMES)
