"""Tables across proteins and engines, and the compute to reach coverage."""

import numpy as np
import pandas as pd
import pytest

from westbench.metrics.tables import compute_to_coverage, coverage_table, divergence_table


def tidy_rows():
    rows = []
    for protein in ("chignolin", "trpcage"):
        for engine in ("implicit", "groundtruth"):
            for weighting in ("we", "counts"):
                for i, distribution in enumerate(("dihedrals", "tic0", "rg")):
                    rows.append([protein, engine, weighting, distribution, "w1", i + len(protein)])
                    rows.append([protein, engine, weighting, distribution, "kl", -i])
                rows.append([protein, engine, weighting, "tic01", "kl", 9.0])
                rows.append([protein, engine, weighting, "tic01", "coverage", 0.5 if engine == "implicit" else 1.0])
    return pd.DataFrame(rows, columns=["protein", "engine", "weighting", "distribution", "metric", "value"])


def test_divergence_tables_have_one_row_per_run_and_published_column_order():
    w1 = divergence_table(tidy_rows(), "w1")
    assert list(w1.columns) == ["protein", "engine", "weighting", "tic0", "rg", "dihedrals"]
    assert len(w1) == 8
    row = w1[(w1.protein == "trpcage") & (w1.engine == "implicit") & (w1.weighting == "counts")].iloc[0]
    assert (row["dihedrals"], row["tic0"], row["rg"]) == (7, 8, 9)
    assert list(divergence_table(tidy_rows(), "kl").columns)[-1] == "tic01"


def cost(coverage):
    n = len(coverage)
    return pd.DataFrame({"iteration": np.arange(1, n + 1), "coverage": coverage,
                         "cumulative_segments": np.arange(1, n + 1) * 10,
                         "cumulative_cpu_seconds": np.arange(1, n + 1) * 2.0,
                         "cumulative_wall_seconds": np.arange(1, n + 1) * 3.0})


def test_compute_to_coverage_takes_the_first_iteration_reaching_each_threshold():
    reached = compute_to_coverage(cost([0.1, 0.2, 0.49, 0.5, 0.9]), [0.2, 0.5, 0.95], gpu=True)
    assert reached["iteration"].tolist()[:2] == [2, 4] and np.isnan(reached["iteration"].iloc[2])
    assert reached["segments"].tolist()[:2] == [20, 40]
    assert reached["cpu_seconds"].tolist()[:2] == [4.0, 8.0] and reached["gpu_seconds"].tolist()[:2] == [6.0, 12.0]
    assert compute_to_coverage(cost([0.1, 0.3]), [0.2])["gpu_seconds"].tolist() == [0.0]  # CPU platform


def test_coverage_table_joins_metrics_and_costs():
    costs = {("chignolin", "implicit"): cost([0.1, 0.3, 0.5]), ("trpcage", "implicit"): cost([0.0, 0.1])}
    table = coverage_table(tidy_rows(), costs, [0.2, 0.5], platform="CUDA").set_index(["protein", "engine"])
    assert table.loc[("chignolin", "implicit"), "coverage"] == 0.5
    assert table.loc[("chignolin", "implicit"), "segments_to_20%"] == 20
    assert table.loc[("chignolin", "implicit"), "gpu_seconds_to_50%"] == 9.0
    assert pd.isna(table.loc[("trpcage", "implicit"), "segments_to_20%"])
    assert table.loc[("chignolin", "groundtruth"), "coverage"] == 1.0
    assert pd.isna(table.loc[("chignolin", "groundtruth"), "segments"])
    assert table.loc[("trpcage", "implicit"), "segments"] == pytest.approx(20)
