"""Load and validate the westbench configuration.

The schema (``config/schema.yaml``) is JSON Schema written in YAML; validating
fills in its defaults, so the rest of the code reads one complete mapping.

Examples
--------
>>> from westbench.config import validate_config, protein_spec
>>> cfg = validate_config({"proteins": [{"id": "chignolin", "name": "Chignolin",
...     "sequence": "GYDPETGTWG", "source": "sequence"}]})
>>> cfg["preparation"]["padding_nm"]
1.0
>>> protein_spec(cfg, "chignolin").chain_sequences
('GYDPETGTWG',)
"""

from __future__ import annotations

import copy
import functools
import importlib.resources
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping

import jsonschema
import yaml

from westbench.errors import ConfigError

# config/schema.yaml, carried inside the package (src/westbench/schema.yaml links to it) so that an
# installed westbench validates and fills configs without the repository.
SCHEMA_PATH = Path(str(importlib.resources.files("westbench") / "schema.yaml"))


#: libyaml's parser where PyYAML has it (the same safe constructor, the same values; several times faster on the
#: schema, read by every job), else PyYAML's own.
_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_schema(path: str | Path = SCHEMA_PATH) -> dict:
    """Read the configuration schema."""
    with open(path) as handle:
        return yaml.load(handle, Loader=_SAFE_LOADER)


@functools.lru_cache(maxsize=1)
def _packaged_schema() -> dict:
    return load_schema()


def _section(section: str, schema: Mapping | None = None) -> Mapping:
    """The schema node of a dotted section; ``""`` is the top level, ``*`` an entry of a mapping (``cg.models.*``)."""
    node = _packaged_schema() if schema is None else schema
    for part in section.split(".") if section else []:
        node = node["additionalProperties"] if part == "*" else node["properties"][part]
    return node


def default(key: str, schema: Mapping | None = None):
    """The schema's default of one dotted key, e.g. ``"on_nonfinite"`` or ``"groundtruth.import.stride"``.

    >>> default("on_nonfinite"), default("cg.models.*.returns")
    ('error', 'energy')
    """
    section, _, name = key.rpartition(".")
    return section_defaults(section, schema)[name]


def section_keys(section: str, schema: Mapping | None = None) -> tuple[str, ...]:
    """The keys of one schema section (dotted, e.g. ``"groundtruth.starts"``), in schema order.

    >>> section_keys("tica")[:3]
    ('lag_frames', 'dim', 'density_bins')
    """
    return tuple(_section(section, schema)["properties"])


def section_defaults(section: str, schema: Mapping | None = None) -> dict:
    """The schema's default values of one section, e.g. ``"preparation"`` or, dotted, ``"cg.prior"``.

    The one owner of every default: code that needs a default asks here instead of typing it again.

    >>> section_defaults("cg.prior")["min_samples"], section_defaults("platform")["name"]
    (20, 'CPU')
    """
    node = _section(section, schema)
    return {key: copy.deepcopy(value["default"]) for key, value in node["properties"].items() if "default" in value}


def _validator_filling_defaults(base=jsonschema.Draft202012Validator):
    """A validator class that writes each property's default into the instance.

    This is the recipe of the jsonschema FAQ, the same one Snakemake's
    ``validate(..., set_default=True)`` uses.
    """
    validate_properties = base.VALIDATORS["properties"]

    def set_defaults(validator, properties, instance, schema):
        if isinstance(instance, dict):
            for name, subschema in properties.items():
                if "default" in subschema and name not in instance:
                    instance[name] = copy.deepcopy(subschema["default"])
        yield from validate_properties(validator, properties, instance, schema)

    return jsonschema.validators.extend(base, {"properties": set_defaults})


#: Keys that were removed, and the key that holds their setting now.
MOVED_KEYS = {
    "we.coverage_bins": "metrics.coverage_bins (one coverage grid for the coverage column, each cost.csv and "
    "the WE coverage stop)",
}
#: Sections that were renamed, and their name now (the keys inside are unchanged).
RENAMED_SECTIONS = {"cgml": "cg"}


def _check_moved_keys(config: Mapping, origin: str) -> None:
    """A clear error for a removed key or a renamed section, naming where its setting lives now."""
    found = [
        f"  - config key '{old}' was renamed to '{new}': rename the section {old}: to {new}: (its keys are unchanged)"
        for old, new in RENAMED_SECTIONS.items()
        if old in config
    ]
    for old, new in MOVED_KEYS.items():
        section, key = old.split(".")
        if isinstance(config.get(section), Mapping) and key in config[section]:
            found.append(f"  - {old} was removed: set {new} instead")
    if found:
        raise ConfigError(f"{origin} sets removed keys:\n" + "\n".join(found))


def _message(error) -> str:
    """An error's message; for a value that fits none of several forms (anyOf/oneOf: an engine name or an engine
    entry), what each form says of it, so the user sees e.g. the allowed names' pattern."""
    if error.context:
        reasons = sorted({sub.message for sub in error.context})
        return f"{error.message} ({'; '.join(reasons)})"
    return error.message


def _location(error: jsonschema.ValidationError) -> str:
    parts = []
    for item in error.absolute_path:
        parts.append(f"[{item}]" if isinstance(item, int) else f".{item}")
    return "".join(parts).lstrip(".") or "(top level)"


def validate_config(config: Mapping, schema: Mapping | None = None, sources: Iterable[str | Path] = ()) -> dict:
    """Validate a configuration against the schema and fill in defaults.

    Parameters
    ----------
    config : mapping
        The configuration as loaded from YAML (and ``--config`` overrides).
    schema : mapping, optional
        The schema; ``config/schema.yaml`` by default.
    sources : iterable of path
        The configuration files it came from, named in error messages.

    Returns
    -------
    dict
        A validated deep copy with every default filled in.

    Raises
    ------
    ConfigError
        Listing every violation with its location in the configuration.
    """
    schema = load_schema() if schema is None else schema
    checked = copy.deepcopy(dict(config))
    origin = ", ".join(str(s) for s in sources) or "the configuration"
    _check_moved_keys(checked, origin)
    _typed_scalars(checked, schema)
    validator = _validator_filling_defaults()(schema)
    errors = sorted(validator.iter_errors(checked), key=lambda e: list(map(str, e.absolute_path)))
    if errors:
        lines = [f"  - {_location(e)}: {_message(e)}" for e in errors]
        raise ConfigError(
            f"{origin} breaks the schema config/schema.yaml:\n" + "\n".join(lines) + "\n"
            "Fix these entries (the schema describes every key and its allowed values)."
            + (
                "\nA --configfile replaces the embedded demo config/config.yaml: list your proteins, or build on the "
                "demo with --configfile config/config.yaml <yours>.yaml (later files win)."
                if any(e.validator == "required" and "proteins" in e.message and not e.absolute_path for e in errors)
                else ""
            )
        )
    ids = [p["id"] for p in checked["proteins"]]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise ConfigError(f"{origin}: protein ids must be unique, repeated: {', '.join(duplicates)}.")
    for protein in checked["proteins"]:
        spec = ProteinSpec.from_config(protein)
        if spec.chains is not None and len(spec.chains) != len(spec.chain_sequences):
            raise ConfigError(
                f"{origin}: protein '{spec.id}' selects {len(spec.chains)} chain(s) {list(spec.chains)} "
                f"but its sequence has {len(spec.chain_sequences)} part(s); separate the chains' "
                "sequences with '/' in the order of `chains`."
            )
    return _sorted_keys(checked)


#: Python types of the schema's non-string scalar types (bool is an int: checked first).
_SCALARS = {"boolean": (bool,), "integer": (int,), "number": (int, float), "null": (type(None),)}


def _typed_scalars(config: dict, schema: Mapping) -> None:
    """Read, in place, a string where the schema takes no string but a boolean, number or null as YAML reads it.

    ``snakemake --config 'calibration={enabled: true}'`` hands nested values as strings (its YAML BaseLoader):
    without this, ``'true'`` is not a boolean and the run stops on a schema error about a value the user wrote right.

    >>> config = {"a": {"on": "true", "n": "5", "name": "5"}}
    >>> schema = {"properties": {"a": {"properties": {"on": {"type": "boolean"}, "n": {"type": "integer"},
    ...                                               "name": {"type": "string"}}}}}
    >>> _typed_scalars(config, schema); config
    {'a': {'on': True, 'n': 5, 'name': '5'}}
    """
    for key, value in config.items():
        sub = (schema.get("properties") or {}).get(key, schema.get("additionalProperties"))
        if not isinstance(sub, Mapping):
            continue
        if isinstance(value, dict):
            _typed_scalars(value, sub)
        elif isinstance(value, str) and "string" not in (types := sub.get("type") or []):
            read = yaml.safe_load(value) if value.strip() else value
            wanted = [t for name in ([types] if isinstance(types, str) else types) for t in _SCALARS.get(name, ())]
            if wanted and isinstance(read, tuple(wanted)) and not (isinstance(read, bool) and bool not in wanted):
                config[key] = read


def _sorted_keys(value):
    """Mappings with their keys in sorted order, recursively.

    Snakemake compares rule params by their text, so two configs that differ
    only in key order must give identical params, or every job reruns.
    """
    if isinstance(value, dict):
        return {key: _sorted_keys(value[key]) for key in sorted(value)}
    if isinstance(value, list):
        return [_sorted_keys(item) for item in value]
    return value


@dataclass(frozen=True)
class ProteinSpec:
    """One configured protein.

    Attributes
    ----------
    id, name : str
        Path-safe identifier and display name.
    pdb_id : str or None
        PDB entry (upper case).
    sequence : str
        Expected one-letter sequence, chains separated by '/'.
    chains : tuple of str or None
        Chain ids to keep; None keeps every protein chain.
    residues : tuple of (int, int) or None
        Inclusive residue-number range kept in each selected chain.
    source : {'rcsb', 'file', 'sequence'}
    path : str or None
        Structure file for source 'file'.
    """

    id: str
    name: str
    pdb_id: str | None
    sequence: str
    chains: tuple[str, ...] | None
    residues: tuple[int, int] | None
    source: str
    path: str | None

    @classmethod
    def from_config(cls, entry: Mapping) -> "ProteinSpec":
        residues = None
        if entry.get("residues"):
            text = str(entry["residues"])
            split_at = text.index("-", 1)
            residues = (int(text[:split_at]), int(text[split_at + 1 :]))
        chains = entry.get("chains")
        pdb_id = entry.get("pdb_id")
        return cls(
            id=entry["id"],
            name=entry["name"],
            pdb_id=pdb_id.upper() if pdb_id else None,
            sequence=entry["sequence"],
            chains=tuple(str(c) for c in chains) if chains else None,
            residues=residues,
            source=entry["source"],
            path=entry.get("path"),
        )

    @property
    def chain_sequences(self) -> tuple[str, ...]:
        """The expected sequence of each chain."""
        return tuple(self.sequence.split("/"))


def protein_ids(config: Mapping) -> list[str]:
    """Ids of the configured proteins, in configuration order."""
    return [p["id"] for p in config["proteins"]]


def protein_spec(config: Mapping, protein_id: str) -> ProteinSpec:
    """The spec of one configured protein.

    Raises
    ------
    ConfigError
        If the id is not configured, naming the configured ids and the fix.
    """
    for entry in config["proteins"]:
        if entry["id"] == protein_id:
            return ProteinSpec.from_config(entry)
    known = ", ".join(protein_ids(config))
    raise ConfigError(
        f"unknown protein '{protein_id}': the configuration defines {known}. "
        f"Add an entry with id '{protein_id}' under `proteins:` in your config file, "
        "or use a configured id (config/paper.yaml has all nine benchmark proteins)."
    )
