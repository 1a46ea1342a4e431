"""Snakemake entry point: the HTML report of this configuration (tables, then figures per protein and engine)."""

import _library  # noqa: F401  (puts src/ on sys.path)

import json
from pathlib import Path

import pandas as pd

from westbench.report.html_report import EngineSection, Figure, ProteinSection, build_report, html_table
from westbench.metrics.figures import FIGURES
from westbench.workflow import run_script

FIGURE_CAPTIONS = {
    "tic_densities_1d": "TIC 0-3 densities: ground truth (grey) and the engine (orange), {weighting} weights.",
    "tic_densities_2d": "Ground-truth free energy per TIC pair (grey scale) with the engine's free-energy contours "
                        "(coloured lines at 1-5 kT), {weighting} weights.",
    "tic01_by_iteration": "The engine's frames in TIC 0/1, 1/2 and 2/3 coloured by WE iteration, over the ground "
                          "truth's histogram (grey scale).",
    "structure_distributions": "Radius of gyration, C-alpha bond lengths (green: 3.5-4.5 Å), angles and dihedrals: "
                               "ground truth (grey) and the engine (orange), {weighting} weights.",
    "msm_reweighting": "MSM reweighting: log10 transition matrix of the grid MSM over TIC 0/1, MSM against raw weight "
                       "per cell, and the TIC 0/1 free energy under raw and MSM weights.",
    "contact_map_difference": "Mean C-alpha distance per residue pair, engine minus ground truth (Angstrom; red: "
                              "farther apart in the engine).",
    "macrostates": "Ground-truth macrostates (KMeans on the leading TICs, MSM, PCCA+; {macrostates}); engine frames "
                   "assigned to them.",
}
PROTEIN_FIGURE_CAPTIONS = {
    "engines_tic01": "Every engine's TIC 0/1 free-energy contours (1-5 kT, coloured lines) over the ground truth's "
                     "(grey scale), side by side, each engine with its exported (WE) weights.",
    "coverage_vs_compute": "Coverage of the ground truth's TIC 0/1 plane against cumulative WE segments and "
                           "CPU/GPU seconds, every engine; dotted lines: the coverage thresholds (20/50/80 %).",
}
GROUNDTRUTH_CAPTIONS = {
    "tic01_by_iteration": "The ground truth's frames coloured by run (its starting point) in TIC 0/1, 1/2 and 2/3, "
                          "and TIC 0/1 coloured by TIC 3.",
}
WIDE = {"tic_densities_1d", "tic_densities_2d", "tic01_by_iteration", "structure_distributions", "msm_reweighting",
        "macrostates"}
# Figures that carry no information for the ground truth scored against itself.
NOT_FOR_GROUNDTRUTH = {"contact_map_difference"}
GROUNDTRUTH_NOTE = (
    "Sanity check: the ground truth scored against itself. Under the 'we' and 'counts' weightings (the ground "
    "truth's own uniform weights) every divergence is 0 and coverage 1 by construction. The 'msm' row is not an "
    "error of the check: it reweights the ground truth by a grid MSM over its runs, which are short and seldom "
    "interconvert, so the MSM's stationary distribution moves weight between regions and drops cells outside its "
    "largest connected set (lower coverage); it shows what MSM reweighting does to data with few transitions. The "
    "contact-map difference (zero everywhere) is left out.")


def engine_section(metrics_json: str) -> EngineSection:
    metrics = json.loads(Path(metrics_json).read_text())
    folder = Path(metrics_json).parent / "figures"
    weighting = metrics["figures"]["weighting"]
    macro = metrics.get("macrostates", {})
    used = f"{macro.get('used')} of {macro.get('requested')} requested sets" if macro else "see metrics.json"
    if macro.get("reduced"):
        used += f" ({macro['why']})"
    rows = []
    for name, values in metrics["metrics"].items():
        rows.append({"weighting": name, "frames": metrics["frames"], "coverage": values["coverage"],
                     "W1 TIC 0": values["w1"].get("tic0"), "W1 TIC 0/1": values["w1"].get("tic01"),
                     "W1 Rg (nm)": values["w1"].get("rg"),
                     "KL TIC 0/1": values["kl"].get("tic01"), "|contact diff| (Å)": values["contact_map_mean_abs_diff_A"],
                     "bonds outside 3.5-4.5 Å": values["bonds_outside_share"],
                     "macrostate TV": values["macrostate_populations"]["total_variation"],
                     "macrostates used": macro.get("used")})
    engine = metrics["engine"]
    names = [n for n in FIGURES if (folder / f"{n}.png").is_file()
             and not (engine == "groundtruth" and n in NOT_FOR_GROUNDTRUTH)]
    captions = {**FIGURE_CAPTIONS, **(GROUNDTRUTH_CAPTIONS if engine == "groundtruth" else {})}
    figures = [Figure(folder / f"{name}.png", captions[name].format(weighting=weighting, macrostates=used),
                      wide=name in WIDE) for name in names]
    note = GROUNDTRUTH_NOTE if engine == "groundtruth" else ""
    if metrics.get("discarded_iterations"):
        note += f" The first {metrics['discarded_iterations']} WE iterations are left out of every weighting."
    return EngineSection(engine, html_table(pd.DataFrame(rows)), figures, note=note.strip())


def with_intervals(table: pd.DataFrame, digits: int = 3) -> pd.DataFrame:
    """W1/KL table for reading: each value rounded, as value ± half-width of its 95 % interval when there is one."""
    shown = table[[c for c in table.columns if not c.endswith(("_ci_low", "_ci_high"))]].copy()
    for column in shown.columns:
        if column in ("protein", "engine", "weighting"):
            continue
        low, high = table.get(f"{column}_ci_low"), table.get(f"{column}_ci_high")
        cells = []
        for i, value in enumerate(table[column]):
            if pd.isna(value):
                cells.append("")
            elif low is not None and pd.notna(low.iloc[i]):
                cells.append(f"{value:.{digits}g} ± {(high.iloc[i] - low.iloc[i]) / 2:.2g}")
            else:
                cells.append(f"{value:.{digits}g}")
        shown[column] = cells
    return shown


def kl_sensitivity(metrics_jsons) -> str:
    """One sentence: the KL of TIC 0/1 of the first model engine at several bin counts."""
    for path in metrics_jsons:
        metrics = json.loads(Path(path).read_text())
        example = metrics.get("kl_tic01_by_bins")
        if metrics["engine"] != "groundtruth" and example:
            values = ", ".join(f"{bins} bins: {value:.3g}" for bins, value in example["values"].items())
            return (f"Binning sensitivity, once: KL(TIC 0/1) of {metrics['protein']} / {metrics['engine']} "
                    f"({example['weighting']} weights) is {values}.")
    return ""


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
            curve, f"CG model, preset {preset}: force-matching loss on the training and validation frames by epoch; "
                   "dashed red: the noise floor estimated from the data (a curve flat near it has converged)."))
    for density in snakemake.input.densities:
        protein = Path(density).parts[-3]
        sections[protein].figures.insert(0, Figure(density, "Ground truth: TIC 0/1 free energy (kT); red crosses: "
                                                         "the starting points of its runs."))
    for figure in snakemake.input.get("protein_figures", []):
        protein, name = Path(figure).parts[-3], Path(figure).stem
        sections.setdefault(protein, ProteinSection(protein)).figures.append(
            Figure(figure, PROTEIN_FIGURE_CAPTIONS[name], wide=True))
    settings = snakemake.params.metrics
    w1, kl = "Wasserstein-1 (W1)", "KL(ground truth || model)"
    coverage = "Coverage of the ground truth's TIC 0/1 plane and compute spent"
    reach = "Compute to reach each coverage threshold, and speed-up against the reference engine"
    full = pd.read_csv(snakemake.input.coverage)
    per_threshold = [c for c in full.columns if "_to_" in c]
    # Split so that each table fits a 1,400 px window: totals, then the per-threshold compute.
    tables = {w1: with_intervals(pd.read_csv(snakemake.input.w1)), kl: with_intervals(pd.read_csv(snakemake.input.kl)),
              coverage: full.drop(columns=per_threshold),
              reach: full[["protein", "engine", *per_threshold]],
              "Ground-truth throughput": pd.read_csv(snakemake.input.throughput)}
    interval = (f" Value ± half-width of the 95 % bootstrap interval ({settings['bootstrap']} replicates resampling "
                "ground-truth runs and WE iterations; full precision and the bounds in the CSV).") \
        if settings["bootstrap"] else ""
    table_notes = {
        w1: "1-D W1 on the raw values; tic01: 2-D W1 by exact optimal transport (POT) between "
            f"{settings['w1_2d_bins']} x {settings['w1_2d_bins']} histograms." + interval,
        kl: f"Shared bins over the union of both samples' ranges ({settings['bins']} per axis); model bins empty "
            f"where the ground truth has mass get {settings['kl_floor']:g} before renormalizing, so KL is finite but "
            "large when the model misses regions. " + kl_sensitivity(snakemake.input.metrics) + interval,
        reach: f"Speed-up: compute of the reference engine ({settings['reference_engine']}) to reach a threshold "
                  "divided by this engine's (> 1 = faster); empty where a threshold was not reached.",
        coverage: "Longest simulated time: iterations x segment length for WE (the longest lineage), the longest "
                  "run otherwise; aggregate: all frames' time summed.",
    }
    discard = settings["discard_iterations"]
    notes = [f"Weights: WE weights sum to one within each iteration; all iterations are pooled with their weights "
             f"as exported and normalized once, so every iteration counts equally. Leading iterations left out: "
             f"{discard if discard else 'none'} (metrics.discard_iterations)."]
    build_report(snakemake.output[0], title=snakemake.params.title, summary=snakemake.params.summary, tables=tables,
                 proteins=list(sections.values()), notes=notes, table_notes=table_notes)


run_script(snakemake, main)  # noqa: F821 (injected by Snakemake)
