"""Configuration: schema validation, defaults, protein lookup."""

import copy

import pytest
import yaml

from westbench.config import protein_spec, section_defaults, validate_config
from westbench.errors import ConfigError

MINIMAL = {"proteins": [{"id": "chignolin", "name": "Chignolin", "sequence": "GYDPETGTWG", "source": "sequence"}]}


def _load(repo, name):
    return yaml.safe_load((repo / "config" / name).read_text())


def test_defaults_are_the_published_parameters():
    cfg = validate_config(MINIMAL)
    prep = cfg["preparation"]
    assert prep["forcefield"] == ["amber14-all.xml"] and prep["water_model"] == "amber14/tip3pfb.xml"
    assert prep["implicit_solvent"] == "implicit/gbn2.xml"
    assert (prep["padding_nm"], prep["ionic_strength_molar"], prep["ewald_error_tolerance"]) == (1.0, 0.15, 5e-4)
    assert (prep["hydrogen_mass_amu"], prep["timestep_fs"], prep["barostat_interval"]) == (1.5, 4.0, 25)
    assert prep["ph"] == 7.0 and cfg["download"]["retries"] == 3
    assert section_defaults("preparation") == prep


def test_validation_does_not_modify_its_input():
    original = copy.deepcopy(MINIMAL)
    validate_config(MINIMAL)
    assert MINIMAL == original


def test_shipped_configs_validate(repo):
    default = validate_config(_load(repo, "config.yaml"))
    assert [p["source"] for p in default["proteins"]] == ["sequence"]
    paper = validate_config(_load(repo, "paper.yaml"))
    assert len(paper["proteins"]) == 9
    assert {p["pdb_id"] for p in paper["proteins"]} >= {"1FME", "1E0L", "1PRB", "1ENH", "1PGA", "2A3D", "1LMB"}


@pytest.mark.parametrize(
    "change, location",
    [
        ({"source": "ftp"}, "proteins[0].source"),
        ({"sequence": "GYDPETGTWZ"}, "proteins[0].sequence"),
        ({"id": "Bad Id"}, "proteins[0].id"),
        ({"source": "rcsb"}, "pdb_id"),
        ({"source": "file"}, "path"),
        ({"colour": "red"}, "colour"),
    ],
)
def test_schema_violations_name_the_entry_and_the_file(change, location):
    cfg = copy.deepcopy(MINIMAL)
    cfg["proteins"][0].update(change)
    with pytest.raises(ConfigError) as err:
        validate_config(cfg, sources=["my.yaml"])
    message = str(err.value)
    assert "my.yaml" in message and location in message and "schema" in message


def test_wrong_type_in_a_section_is_reported():
    cfg = {**copy.deepcopy(MINIMAL), "preparation": {"padding_nm": "wide"}}
    with pytest.raises(ConfigError, match=r"preparation\.padding_nm"):
        validate_config(cfg)


def test_a_removed_key_names_the_key_that_replaced_it():
    """we.coverage_bins is gone: one grid, metrics.coverage_bins, for the coverage column, cost.csv and the stop."""
    cfg = {**copy.deepcopy(MINIMAL), "we": {"coverage_bins": 50}}
    with pytest.raises(
        ConfigError,
        match=r"my\.yaml sets removed keys:\n  - we\.coverage_bins was removed: set "
        r"metrics\.coverage_bins",
    ):
        validate_config(cfg, sources=["my.yaml"])
    assert validate_config({**MINIMAL, "metrics": {"coverage_bins": 50}})["metrics"]["coverage_bins"] == 50
    assert "coverage_bins" not in validate_config(MINIMAL)["we"]


def test_the_old_cgml_section_is_refused_naming_cg():
    """The CG section is named like the package (westbench.cg), the rules (rules/cg.smk) and the engines (cg_*)."""
    cfg = {**copy.deepcopy(MINIMAL), "cgml": {"device": "cpu"}}
    with pytest.raises(ConfigError, match=r"my\.yaml sets removed keys:\n  - config key 'cgml' was renamed to 'cg'"):
        validate_config(cfg, sources=["my.yaml"])
    assert validate_config({**MINIMAL, "cg": {"device": "cpu"}})["cg"]["device"] == "cpu"


def test_duplicate_ids_and_chain_count_mismatch():
    cfg = copy.deepcopy(MINIMAL)
    cfg["proteins"].append(copy.deepcopy(cfg["proteins"][0]))
    with pytest.raises(ConfigError, match="unique.*chignolin"):
        validate_config(cfg)
    cfg = copy.deepcopy(MINIMAL)
    cfg["proteins"][0].update(chains=["A", "B"])
    with pytest.raises(ConfigError, match="'/'"):
        validate_config(cfg)


def test_protein_spec_and_unknown_id():
    cfg = validate_config(
        {
            "proteins": [
                {
                    "id": "lambda",
                    "name": "L",
                    "pdb_id": "1lmb",
                    "sequence": "AC/DE",
                    "chains": ["3", "4"],
                    "residues": "6-85",
                    "source": "rcsb",
                }
            ]
        }
    )
    spec = protein_spec(cfg, "lambda")
    assert spec.pdb_id == "1LMB" and spec.residues == (6, 85) and spec.chain_sequences == ("AC", "DE")
    with pytest.raises(ConfigError, match="unknown protein 'nosuch'.*lambda"):
        protein_spec(cfg, "nosuch")


def test_key_order_does_not_change_the_validated_config():
    reordered = {
        "proteins": [dict(reversed(list(MINIMAL["proteins"][0].items())))],
        "platform": {"fallback": ["CPU"], "name": "CPU"},
    }
    plain = {"platform": {"name": "CPU", "fallback": ["CPU"]}, "proteins": MINIMAL["proteins"]}
    assert repr(validate_config(reordered)) == repr(validate_config(plain))


def test_command_line_strings_are_read_as_the_schema_types_them(repo):
    """snakemake --config 'calibration={enabled: false, we: {replicas: 2}}' hands nested values as strings."""
    config = _load(repo, "config.yaml")
    config["calibration"] = {"enabled": "false", "we": {"replicas": "2", "max_iterations": "10"}}
    config["we"] = {**config.get("we", {}), "coverage_target": "null"}
    checked = validate_config(config)
    assert checked["calibration"]["enabled"] is False
    assert checked["calibration"]["we"]["replicas"] == 2 and checked["calibration"]["we"]["max_iterations"] == 10
    assert checked["we"]["coverage_target"] is None
    assert checked["calibration"]["protein"] == "chignolin"  # a string key stays a string
    config["calibration"]["enabled"] = "maybe"  # not a boolean however it is read: the schema's error
    with pytest.raises(ConfigError, match="calibration.enabled"):
        validate_config(config)


@pytest.mark.parametrize("runs, valid", [(0, True), (2, False), (3, False), (4, True), (128, True)])
def test_a_perturbations_own_sample_has_no_runs_or_enough_to_resample(runs, valid):
    cfg = {**copy.deepcopy(MINIMAL), "calibration": {"groundtruth": {"perturbed_runs": runs}}}
    if valid:
        assert validate_config(cfg)["calibration"]["groundtruth"]["perturbed_runs"] == runs
    else:
        with pytest.raises(ConfigError, match=r"calibration\.groundtruth\.perturbed_runs"):
            validate_config(cfg, sources=["my.yaml"])
