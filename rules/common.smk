# Shared setup: validated config, protein lookups and input functions.

import sys
from pathlib import Path

sys.path.insert(0, str(Path(workflow.basedir) / "src"))

from westbench import config as wb_config  # noqa: E402
from westbench.errors import ConfigError  # noqa: E402

try:
    config = wb_config.validate_config(
        config,
        wb_config.load_schema(Path(workflow.basedir) / "config" / "schema.yaml"),
        sources=[*workflow.configfiles, *(["--config"] if workflow.config_settings.config else [])],
    )
except ConfigError as exc:
    raise WorkflowError(str(exc)) from None

PROTEINS = wb_config.protein_ids(config)
SOLVENTS = ["implicit", "explicit"]


wildcard_constraints:
    protein=r"[a-z0-9][a-z0-9_-]*",
    solvent="|".join(SOLVENTS),


def protein(wildcards):
    """The spec of the target's protein; a clear error for an id not in the config."""
    try:
        return wb_config.protein_spec(config, wildcards.protein)
    except ConfigError as exc:
        files = ", ".join(map(str, workflow.configfiles)) or "none"
        raise WorkflowError(f"{exc} Config files read: {files}.") from None


def structure_input(wildcards):
    """A `file` source is an input of acquisition, so editing it reruns the protein."""
    spec = protein(wildcards)
    return {"source": spec.path} if spec.source == "file" else {}


def structure_params(wildcards):
    """Acquisition settings that change what a protein's structure is."""
    spec = protein(wildcards)
    return {"source": spec.source, "pdb_id": spec.pdb_id, "sequence": spec.sequence,
            "chains": spec.chains, "residues": spec.residues, "path": spec.path}


def prepared_outputs(protein_id):
    return f"results/{protein_id}/prepare/summary.json"


def all_outputs():
    return [prepared_outputs(p) for p in PROTEINS] + ["results/tables/preparation.csv"]
