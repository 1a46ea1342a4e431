"""Tables across proteins and engines, and the compute to reach coverage."""

import numpy as np
import pandas as pd
import pytest

from westbench.metrics.tables import (
    FIELDS,
    compute_to_coverage,
    coverage_table,
    distributions_of,
    divergence_table,
    read_tidy,
    verdict_summary,
)


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
    values = ["tic0", "rg", "dihedrals"]
    assert list(w1.columns) == [
        "protein",
        "engine",
        "weighting",
        *values,
        *(f"{d}_{part}" for d in values for part in FIELDS),
        "sanity_failed",
    ]
    assert len(w1) == 8
    row = w1[(w1.protein == "trpcage") & (w1.engine == "implicit") & (w1.weighting == "counts")].iloc[0]
    assert (row["dihedrals"], row["tic0"], row["rg"]) == (7, 8, 9)
    kl = divergence_table(tidy_rows(), "kl")
    assert list(kl.columns)[3:7] == ["tic0", "rg", "dihedrals", "tic01"] and list(kl.columns)[-2] == "tic01_note"
    assert set(w1["sanity_failed"]) == {""}  # tidy rows without sanity rows (older records): none failed


def test_the_sanity_failed_column_names_each_engine_s_failed_checks_in_both_tables():
    """metrics.csv's ``sanity`` ``failed`` row (per engine) becomes the ``sanity_failed`` column of every weighting's
    row of the W1 and KL tables; engines whose checks passed read ""; it is never taken for a distribution."""
    failed = pd.DataFrame(
        [
            ["chignolin", "implicit", "", "sanity", "failed", 2.0, "chirality;units"],
            ["chignolin", "groundtruth", "", "sanity", "failed", 0.0, ""],
            ["trpcage", "implicit", "", "sanity", "failed", 1.0, "collapse"],
        ],
        columns=["protein", "engine", "weighting", "distribution", "metric", "value", "note"],
    )
    tidy = read_tidy_frame(pd.concat([tidy_rows().assign(note=""), failed], ignore_index=True))
    for metric in ("w1", "kl"):
        table = divergence_table(tidy, metric).set_index(["protein", "engine", "weighting"])
        assert table.loc[("chignolin", "implicit", "we"), "sanity_failed"] == "chirality;units"
        assert table.loc[("chignolin", "implicit", "counts"), "sanity_failed"] == "chirality;units"
        assert table.loc[("chignolin", "groundtruth", "we"), "sanity_failed"] == ""
        assert table.loc[("trpcage", "implicit", "counts"), "sanity_failed"] == "collapse"
        assert table.loc[("trpcage", "groundtruth", "we"), "sanity_failed"] == ""  # no row: none ran
        assert "sanity" not in table.columns and "sanity_failed" not in distributions_of(table.reset_index())
        assert verdict_summary(table.reset_index())["no verdict"].sum() == len(table) * len(distributions_of(table))


def read_tidy_frame(tidy):
    """The tidy rows as :func:`read_tidy` gives them from CSV files (notes as text)."""
    return tidy.assign(note=tidy["note"].fillna("").astype(str))


def cost(coverage):
    n = len(coverage)
    return pd.DataFrame(
        {
            "iteration": np.arange(1, n + 1),
            "coverage": coverage,
            "cumulative_segments": np.arange(1, n + 1) * 10,
            "cumulative_cpu_seconds": np.arange(1, n + 1) * 2.0,
            "cumulative_wall_seconds": np.arange(1, n + 1) * 3.0,
        }
    )


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


# The new tidy format (docs/outputs.md): interval, bias, noise floor, verdict and note per W1/KL row.
NEW_COLUMNS = [
    "protein",
    "engine",
    "weighting",
    "distribution",
    "metric",
    "value",
    "ci_low",
    "ci_high",
    "bias",
    "floor",
    "floor_low",
    "floor_high",
    "verdict",
    "note",
]


def write_new_format(path):
    rows = [
        [
            "chignolin",
            "cg_fulltrained",
            "we",
            "tic0",
            "w1",
            0.375,
            0.21,
            0.90,
            0.05,
            0.4,
            0.1,
            1.63,
            "within noise",
            "",
        ],
        ["chignolin", "cg_fulltrained", "we", "rg", "w1", 2.5, 2.1, 3.0, 0.6, 0.3, 0.1, 0.7, "separated", ""],
        [
            "chignolin",
            "cg_fulltrained",
            "we",
            "dihedrals",
            "w1",
            None,
            None,
            None,
            None,
            4.0,
            1.0,
            9.0,
            "undetermined",
            "no model frame has four beads",
        ],
        ["chignolin", "cg_fulltrained", "we", "tic01", "kl", 1.2, 0.9, 1.8, 0.1, 0.2, 0.05, 0.5, "separated", ""],
        [
            "chignolin",
            "cg_fulltrained",
            "msm",
            "tic0",
            "w1",
            None,
            None,
            None,
            None,
            None,
            None,
            None,
            "undetermined",
            "msm: no connected set at lag 1",
        ],
        ["chignolin", "cg_fulltrained", "we", "tic01", "coverage", 0.4, None, None, None, None, None, None, "", ""],
    ]
    pd.DataFrame(rows, columns=NEW_COLUMNS).to_csv(path, index=False)


def test_new_format_tables_carry_bounds_floor_verdict_and_the_reason_of_a_missing_value(tmp_path):
    write_new_format(tmp_path / "metrics.csv")
    tidy = read_tidy([tmp_path / "metrics.csv"])
    w1 = divergence_table(tidy, "w1").set_index(["weighting"])
    we = w1.loc["we"]
    assert (we["tic0"], we["tic0_ci_low"], we["tic0_ci_high"], we["tic0_bias"]) == (0.375, 0.21, 0.90, 0.05)
    assert (we["tic0_floor"], we["tic0_floor_low"], we["tic0_floor_high"]) == (0.4, 0.1, 1.63)
    assert we["tic0_verdict"] == "within noise" and we["rg_verdict"] == "separated" and we["tic0_note"] == ""
    assert np.isnan(we["dihedrals"]) and we["dihedrals_floor_high"] == 9.0
    assert we["dihedrals_verdict"] == "undetermined" and we["dihedrals_note"] == "no model frame has four beads"
    assert np.isnan(w1.loc["msm", "tic0"]) and w1.loc["msm", "tic0_note"] == "msm: no connected set at lag 1"
    assert "tic01" not in w1  # the 2-D TIC 0/1 row here is a KL row only
    kl = divergence_table(tidy, "kl")
    assert kl[["weighting", "tic01", "tic01_ci_high", "tic01_verdict"]].values.tolist() == [
        ["we", 1.2, 1.8, "separated"]
    ]
    # Written and read back as the rule writes results/tables/w1.csv: the same cells.
    w1.reset_index().to_csv(tmp_path / "w1.csv", index=False)
    again = pd.read_csv(tmp_path / "w1.csv", keep_default_na=False, na_values={"tic0": [""]})
    assert again.loc[0, "tic0_verdict"] == "within noise" and again.loc[0, "dihedrals_note"].startswith("no model")


def test_old_format_tables_get_the_new_columns_empty(tmp_path):
    old = tidy_rows().assign(ci_low=lambda t: t["value"] - 1, ci_high=lambda t: t["value"] + 1)
    old.to_csv(tmp_path / "metrics.csv", index=False)
    w1 = divergence_table(read_tidy([tmp_path / "metrics.csv"]), "w1")
    assert (w1["tic0_ci_high"] - w1["tic0"]).eq(1).all()  # the intervals the old rows had
    for part in ("bias", "floor", "floor_low", "floor_high"):
        assert w1[f"tic0_{part}"].isna().all(), part
    assert w1["tic0_verdict"].eq("").all() and w1["rg_note"].eq("").all()
    summary = verdict_summary(w1)
    assert summary[["separated", "within noise", "undetermined"]].eq(0).all().all()
    assert summary["no verdict"].eq(3).all()


def test_verdict_summary_counts_each_engine_s_verdicts(tmp_path):
    write_new_format(tmp_path / "metrics.csv")
    tidy = read_tidy([tmp_path / "metrics.csv"])
    summary = verdict_summary(divergence_table(tidy, "w1")).set_index("weighting")
    assert summary.loc["we", ["separated", "within noise", "undetermined", "no verdict"]].tolist() == [1, 1, 1, 0]
    assert summary.loc["msm", ["separated", "within noise", "undetermined"]].tolist() == [0, 0, 1]
    by_engine = verdict_summary(divergence_table(tidy, "w1"), by=["protein", "engine"])
    assert by_engine.to_dict("records") == [
        {
            "protein": "chignolin",
            "engine": "cg_fulltrained",
            "separated": 1,
            "within noise": 1,
            "undetermined": 2,
            "no verdict": 0,
        }
    ]
