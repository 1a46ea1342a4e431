"""Snakemake entry point: the HTML report of this configuration (tables, then figures per protein and engine)."""

import _library  # noqa: F401  (puts src/ on sys.path)

import json
from pathlib import Path

import pandas as pd

from westbench.html_report import EngineSection, Figure, ProteinSection, build_report, html_table
from westbench.metrics.figures import FIGURES
from westbench.workflow import run_script

FIGURE_CAPTIONS = {
    "tic_densities_1d": "TIC 0-3 densities: ground truth (grey) and the engine (orange), {weighting} weights.",
    "tic_densities_2d": "Ground-truth free energy per TIC pair (grey scale) with the engine's contours (kT), "
                        "{weighting} weights.",
    "tic01_by_iteration": "The engine's frames in TIC 0/1 coloured by WE iteration, over the ground truth (grey).",
    "contact_map_difference": "Mean C-alpha distance per residue pair, engine minus ground truth (Angstrom; red: "
                              "farther apart in the engine).",
    "macrostates": "Ground-truth macrostates (KMeans on 10 TICs, MSM, PCCA+); engine frames assigned to them.",
}
HEADLINE = ("w1", "kl")


def engine_section(metrics_json: str) -> EngineSection:
    metrics = json.loads(Path(metrics_json).read_text())
    folder = Path(metrics_json).parent / "figures"
    weighting = metrics["figures"]["weighting"]
    rows = []
    for name, values in metrics["metrics"].items():
        rows.append({"weighting": name, "frames": metrics["frames"], "coverage": values["coverage"],
                     "W1 TIC 0": values["w1"].get("tic0"), "W1 Rg (nm)": values["w1"].get("rg"),
                     "KL TIC 0/1": values["kl"].get("tic01"), "|contact diff| (Å)": values["contact_map_mean_abs_diff_A"],
                     "bonds outside 3.5-4.5 Å": values["bonds_outside_share"],
                     "macrostate TV": values["macrostate_populations"]["total_variation"]})
    figures = [Figure(folder / f"{name}.png", FIGURE_CAPTIONS[name].format(weighting=weighting)) for name in FIGURES]
    return EngineSection(metrics["engine"], html_table(pd.DataFrame(rows)), figures)


def main(snakemake):
    sections = {}
    for metrics_json in snakemake.input.metrics:
        protein = Path(metrics_json).parts[-4]  # results/<protein>/metrics/<engine>/metrics.json
        sections.setdefault(protein, ProteinSection(protein)).engines.append(engine_section(metrics_json))
    for curve in snakemake.input.training_curves:
        # results/<protein>/cg/<preset>/training_curve.png, or results/cg/<preset>/... for models over all proteins
        parts = Path(curve).parts
        protein, preset = (parts[-4], parts[-2]) if parts[-3] == "cg" and len(parts) >= 5 else ("all proteins", parts[-2])
        sections.setdefault(protein, ProteinSection(protein)).figures.append(Figure(
            curve, f"CG model, preset {preset}: force-matching loss on the training and validation frames by epoch."))
    for density in snakemake.input.densities:
        protein = Path(density).parts[-3]
        sections[protein].figures.insert(0, Figure(density, "Ground truth: TIC 0/1 free energy (kT); red crosses: "
                                                         "the starting points of its runs."))
    tables = {"Wasserstein-1 (W1)": pd.read_csv(snakemake.input.w1), "KL(ground truth || model)": pd.read_csv(snakemake.input.kl),
              "Coverage of the ground truth's TIC 0/1 plane and compute to reach it": pd.read_csv(snakemake.input.coverage),
              "Ground-truth throughput": pd.read_csv(snakemake.input.throughput)}
    build_report(snakemake.output[0], title=snakemake.params.title, summary=snakemake.params.summary, tables=tables,
                 proteins=list(sections.values()))


run_script(snakemake, main)  # noqa: F821 (injected by Snakemake)
