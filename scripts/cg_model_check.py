"""Snakemake entry point: check a user's CG model (cg.models.<name>) against the model contract."""

import logging

import _library  # noqa: F401  (puts src/ on sys.path)

from westbench.cg.engine import basis_from_pdb
from westbench.cg.user import check_user_model
from westbench.workflow import run_script


def main(snakemake):
    basis, _ = basis_from_pdb(snakemake.input.basis)
    spec = {**snakemake.params.model, "path": snakemake.input.model}
    record = check_user_model(
        spec,
        snakemake.wildcards.name,
        basis,
        protein=snakemake.wildcards.protein,
        prior_path=snakemake.input.get("prior"),
        record_path=snakemake.output.check,
    )
    for warning in record["warnings"]:
        logging.getLogger("westbench").warning("cg.models.%s: %s", snakemake.wildcards.name, warning)


run_script(snakemake, main)  # noqa: F821 (injected by Snakemake)
