"""One protein's preparation summary and the table across proteins, written by the library calls the rules make."""

import json

import pandas as pd

from westbench.prepare.records import write_preparation_table, write_summary


def test_summary_and_table_from_the_preparation_records(tmp_path):
    records = {
        "structure.json": {"protein": "p", "source": "sequence"},
        "fix.json": {"protein": "p", "sequence": "GYDP", "added_residues": 1, "added_heavy_atoms": 7},
        "implicit.json": {"solvent": "implicit", "atoms": 60, "protein_net_charge": -1.0},
        "explicit.json": {
            "solvent": "explicit",
            "atoms": 3000,
            "waters": 980,
            "ions": {"NA": 2, "CL": 1},
            "net_charge": 0.0,
        },
    }
    for name, record in records.items():
        (tmp_path / name).write_text(json.dumps(record))
    summary = write_summary(
        tmp_path / "structure.json",
        tmp_path / "fix.json",
        [tmp_path / "implicit.json", tmp_path / "explicit.json"],
        tmp_path / "p" / "summary.json",
    )
    assert json.loads((tmp_path / "p" / "summary.json").read_text()) == summary
    assert summary["structure"] == records["structure.json"] and set(summary["systems"]) == {"implicit", "explicit"}
    table = write_preparation_table([tmp_path / "p" / "summary.json"], tmp_path / "preparation.csv")
    written = pd.read_csv(tmp_path / "preparation.csv")
    assert written.to_dict("records") == table.to_dict("records")
    assert written.loc[0, "residues"] == 4 and written.loc[0, "explicit_ions"] == "CL:1 NA:2"
    assert written.loc[0, "added_heavy_atoms"] == 7 and written.loc[0, "protein_net_charge"] == -1.0
