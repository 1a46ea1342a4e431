"""What each job asks a cluster for: runtime, memory, disk and GPUs, from a measured run scaled to a config.

The one owner of the formula (docs/cluster.md, "Requests"):

- A job's **work** is a number of units its rule scales with (:func:`units`): atom-steps for the MD rules (solvated
  atoms x steps), frames x features for the TICA fit, frames x beads for the metric suite, walker-segments x
  atom-steps for WE runs, 1 for rules that do a fixed amount of work.
- The **basis** (``profiles/slurm/measured.json``, written by ``tools/slurm/plan.py measure`` from the benchmark
  files of a finished run, never typed by hand) holds each rule's measured wall seconds, peak memory and units of its
  slowest job, and the per-unit rates measured elsewhere (a GPU, large TICA and metric benchmarks), each with its
  source.
- The **estimate** of a job: ``seconds = basis seconds x max(1, units / basis units)`` on the measured platform (the
  measured time is the floor: start-up and imports do not shrink), or ``startup + rate x units`` where a rate of
  the config's platform was measured (``rates``); memory ``= basis peak + bytes per unit x (units - basis units)``
  where the rule holds data that grows with its units, else the basis peak; disk from the outputs' bytes per frame.
- The **request** is the estimate times :data:`MARGIN`, at least :data:`FLOOR`; runtime in whole minutes.

Examples
--------
>>> from westbench.config import validate_config
>>> config = validate_config({"proteins": [{"id": "p", "name": "P", "sequence": "GYDPETGTWG", "source": "sequence"}],
...                           "groundtruth": {"length_ps": 4000, "equilibration_ps": 10}})
>>> basis = {"rules": {"groundtruth_run": {"seconds": 30.0, "rss_mb": 120.0, "units": 4.0e6}}, "rates": {}}
>>> requests = Requests(config, basis)
>>> round(units("groundtruth_run", requests.sizes, {"protein": "p"}) / 1e9, 1)  # billions of atom-steps
10.8
>>> requests.request("groundtruth_run", {"protein": "p"})["runtime"] >= 30 * 1.25 / 60
True
"""

from __future__ import annotations

import fnmatch
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping

from westbench.errors import ConfigError

#: Request = estimate x MARGIN (each resource). Runtime's margin keeps the paper plan's requested GPU-hours within
#: 1.5x of the estimate; memory's covers allocator peaks the benchmark files' max RSS samples miss.
MARGIN = {"runtime": 1.25, "mem_mb": 1.5, "disk_mb": 1.5}
#: Seconds a WE run at its wall-clock cap needs to finish its iteration and close west.h5.
WE_WRAP_UP_S = 600
#: The smallest request of each resource (minutes, MB, MB): SLURM's scheduling granularity and a Python process.
FLOOR = {"runtime": 5, "mem_mb": 1000, "disk_mb": 100}
#: Water and ions per nm^3 of an explicit-solvent box, and the extent of a protein of R residues (nm) as
#: EXTENT_NM_PER_CUBE_ROOT_RESIDUE x R^(1/3): both fitted to the measured run's solvated chignolin (7,648 atoms in a
#: dodecahedron of 1.0 nm padding), used until a protein's prepared system says its atom count.
SOLVENT_ATOMS_PER_NM3 = 93.6
EXTENT_NM_PER_CUBE_ROOT_RESIDUE = 1.33
#: Volume of a box of edge d over d^3, per preparation.box_shape (OpenMM's rhombic dodecahedron and octahedron).
BOX_VOLUME_FACTOR = {"cube": 1.0, "dodecahedron": 0.7071, "octahedron": 0.7698}
#: Heavy atoms and hydrogens per residue of a protein (implicit-solvent systems): lambda repressor's 1,247 atoms for
#: 80 residues (benchmarks/README.md).
PROTEIN_ATOMS_PER_RESIDUE = 15.6
#: Bytes per bead (C-alpha) and per frame of the frame files (docs/outputs.md), and of an xtc trajectory per atom.
FRAME_BYTES_PER_BEAD, FRAME_BYTES = 24, 80
XTC_BYTES_PER_ATOM = 4.4
#: Bytes per solvated atom of a ground-truth run's checkpoint folder (two checkpoints, state, system, PDB).
CHECKPOINT_BYTES_PER_ATOM = 455


def _walkers(we: Mapping) -> int:
    return we["bins_per_tic"] ** 2 * we["walkers_per_bin"]


@dataclass(frozen=True)
class Sizes:
    """The config's sizes every unit count reads: per protein residues and atoms, per engine WE frames.

    ``prepared`` maps a protein to its prepared explicit system's atom count where preparation ran (its
    ``explicit.json``); otherwise :func:`explicit_atoms` estimates it from the residues.
    """

    config: Mapping
    prepared: Mapping[str, int]

    def residues(self, protein: str) -> int:
        spec = next(p for p in self.config["proteins"] if p["id"] == protein)
        return len(spec["sequence"].replace("/", ""))

    def explicit_atoms(self, protein: str) -> int:
        if protein in self.prepared:
            return int(self.prepared[protein])
        return explicit_atoms(self.residues(protein), self.config["preparation"])

    def implicit_atoms(self, protein: str) -> int:
        return round(PROTEIN_ATOMS_PER_RESIDUE * self.residues(protein))

    def n_starts(self, protein: str) -> int:
        spec = next(p for p in self.config["proteins"] if p["id"] == protein)
        return int(spec.get("n_starts") or self.config["groundtruth"]["starts"]["count"])

    def groundtruth_frames(self, protein: str) -> int:
        gt = self.config["groundtruth"]
        return self.n_starts(protein) * (round(gt["length_ps"] / gt["save_interval_ps"]) + 1)

    def steps(self, ps: float) -> int:
        return round(ps * 1000 / self.config["preparation"]["timestep_fs"])

    def we_iterations(self, engine: str) -> int:
        we = self.config["we"]
        return we["max_iterations_by_engine"].get(engine, we["max_iterations"])

    def we_frames(self, engine: str) -> int:
        """Frames of one WE run at its iteration cap with every bin full (an upper bound)."""
        we = self.config["we"]
        return self.we_iterations(engine) * _walkers(we) * (we["steps_per_segment"] // we["save_every"] + 1)


def explicit_atoms(residues: int, preparation: Mapping) -> int:
    """Atoms of a protein's explicit-solvent system, estimated from its residue count and box settings.

    Examples
    --------
    >>> explicit_atoms(10, {"padding_nm": 1.0, "box_shape": "dodecahedron"})  # the measured run's: 7,648
    7623
    """
    edge = EXTENT_NM_PER_CUBE_ROOT_RESIDUE * residues ** (1 / 3) + 2 * preparation["padding_nm"]
    return round(SOLVENT_ATOMS_PER_NM3 * BOX_VOLUME_FACTOR[preparation["box_shape"]] * edge**3)


def _features(residues: int, config: Mapping) -> int:
    """TICA features of a protein: every residue pair at least 3 apart up to ``all_pairs_up_to``, else
    ``max_features`` (westbench.tica.pair_selection)."""
    tica = config["tica"]["features"] if isinstance(config["tica"].get("features"), Mapping) else {}
    pairs = max(1, (residues - 2) * (residues - 3) // 2)
    if pairs <= int(tica.get("all_pairs_up_to") or pairs):
        return pairs
    return int(tica.get("max_features") or pairs)


def _protein(wildcards: Mapping) -> str | None:
    return wildcards.get("protein")


def _engine_frames(sizes: Sizes, wildcards: Mapping) -> int:
    """Frames of the engine a job reads: a WE engine's at its cap, else (the ground truth, an import) the ground
    truth's."""
    engine = wildcards.get("engine", "")
    if engine in _we_engines(sizes):
        return sizes.we_frames(engine)
    return sizes.groundtruth_frames(wildcards["protein"])


def _we_run_units(sizes: Sizes, wildcards: Mapping) -> float:
    """An OpenMM engine's WE run: walker-segments x steps x atoms (one context per walker); a CG engine's:
    iterations x steps x beads (every walker of an iteration in one batched model call)."""
    engine, protein, we = wildcards["engine"], wildcards["protein"], sizes.config["we"]
    if engine in ("implicit", "explicit"):
        atoms = sizes.implicit_atoms(protein) if engine == "implicit" else sizes.explicit_atoms(protein)
        return sizes.we_iterations(engine) * _walkers(we) * we["steps_per_segment"] * atoms
    return sizes.we_iterations(engine) * we["steps_per_segment"] * sizes.residues(protein)


def _we_engines(sizes: Sizes) -> list[str]:
    return [e if isinstance(e, str) else e["name"] for e in sizes.config["we"]["engines"]]


def _all_proteins(sizes: Sizes) -> list[str]:
    return [p["id"] for p in sizes.config["proteins"]]


#: Rule -> units of one job (sizes, wildcards). Rules not listed do a fixed amount of work (1 unit).
UNITS: dict[str, Callable[[Sizes, Mapping], float]] = {
    "groundtruth_run": lambda s, w: (
        s.explicit_atoms(w["protein"])
        * s.steps(s.config["groundtruth"]["equilibration_ps"] + s.config["groundtruth"]["length_ps"])
    ),
    "groundtruth_starts": lambda s, w: (
        s.implicit_atoms(w["protein"])
        * s.config["groundtruth"]["starts"]["runs"]
        * s.steps(s.config["groundtruth"]["starts"]["length_ps"])
    ),
    "build_system": lambda s, w: (
        s.explicit_atoms(w["protein"]) if w.get("solvent") == "explicit" else s.implicit_atoms(w["protein"]) ** 2 / 100
    ),
    "fit_tica": lambda s, w: s.groundtruth_frames(w["protein"]) * _features(s.residues(w["protein"]), s.config),
    "macrostates": lambda s, w: s.groundtruth_frames(w["protein"]),
    "metric_suite": lambda s, w: (s.groundtruth_frames(w["protein"]) + _engine_frames(s, w)) * s.residues(w["protein"]),
    "we_export": lambda s, w: _engine_frames(s, w) * s.residues(w["protein"]),
    "we_run": lambda s, w: _we_run_units(s, w),
    "cg_train": lambda s, w: (
        s.groundtruth_frames(w["protein"])
        * {**s.config["cg"]["training"], **s.config["cg"]["presets"].get(w.get("preset"), {})}["frame_fraction"]
        * s.config["cg"]["training"]["max_epochs"]
    ),
    "protein_figures": lambda s, w: s.groundtruth_frames(w["protein"]) * (1 + len(_we_engines(s))),
    "groundtruth_throughput": lambda s, w: sum(s.n_starts(p) for p in _all_proteins(s)),
}
UNITS["we_run_replica"] = UNITS["we_run"]

#: Bytes of memory per unit beyond the measured peak, for rules that hold data growing with their units
#: (frames x beads x 4-byte coordinates, a few copies); the others keep their measured peak.
MEMORY_BYTES_PER_UNIT = {
    "metric_suite": 3 * 4 * 2,
    "we_export": 3 * 4,
    "cg_train": 3 * 4 * 2 * 2,
    "macrostates": 10 * 8 * 2,
    "protein_figures": 10 * 8 * 2,
}

#: Rule -> bytes its outputs hold per job (sizes, wildcards); rules not listed write kilobytes.
DISK_BYTES: dict[str, Callable[[Sizes, Mapping], float]] = {
    "groundtruth_run": lambda s, w: (
        (round(s.config["groundtruth"]["length_ps"] / s.config["groundtruth"]["save_interval_ps"]) + 1)
        * (
            XTC_BYTES_PER_ATOM * s.implicit_atoms(w["protein"])
            + 2 * (FRAME_BYTES_PER_BEAD * s.residues(w["protein"]) + FRAME_BYTES)
        )
        + CHECKPOINT_BYTES_PER_ATOM * s.explicit_atoms(w["protein"])
    ),
    "fit_tica": lambda s, w: (
        s.groundtruth_frames(w["protein"]) * (FRAME_BYTES_PER_BEAD * s.residues(w["protein"]) + FRAME_BYTES)
    ),
    "we_run": lambda s, w: _engine_frames(s, w) * 2 * (12 * s.residues(w["protein"]) + 90),
    "we_export": lambda s, w: _engine_frames(s, w) * (12 * s.residues(w["protein"]) + 90),
}
DISK_BYTES["we_run_replica"] = DISK_BYTES["we_run"]


def units(rule: str, sizes: Sizes, wildcards: Mapping) -> float:
    """The work units of one job of ``rule`` (:data:`UNITS`; 1 for a rule of fixed work)."""
    function = UNITS.get(_base_rule(rule))
    if function is None or (_protein(wildcards) is None and _base_rule(rule) != "groundtruth_throughput"):
        return 1.0
    return float(function(sizes, wildcards))


#: Rules the measured run did not run, measured as the rule that does the same work (its basis and units).
ALIASES = {
    "cg_train_all": "cg_train",
    "cg_prior": "cg_train",
    "cg_model_check": "macrostates",
    "scoring_contract": "metric_suite",
    "external_import": "we_export",
    "groundtruth_import": "we_export",
    "calibration_basis_states_replica": "calibration_basis_states",
    "calibration_engine_starts_replica": "calibration_engine_starts",
    "calibration_we_run_replica": "calibration_we_run",
    "calibration_cg_model_check": "macrostates",
    "calibration_cg_prior": "calibration_cg_train",
    # Not in the measured run (it predates the rule): the controls score engines made from the ground truth with the
    # metric suite, so they are sized as one suite over the ground truth's frames until a run measures them.
    "controls": "metric_suite",
}


def _base_rule(rule: str) -> str:
    """The rule whose units a rule scales with: its alias, else itself. The calibration study's rules (a ten-bead Go
    model, CPU minutes at any scale the schema allows) are of fixed work: their measured time, plus margin."""
    return ALIASES.get(rule, rule)


def variant(rule: str, wildcards: Mapping) -> str | None:
    """The kind of work a job of a rule that runs several kinds does, measured apart: a WE run's engine, OpenMM
    (``openmm``: walker-segments x steps x atoms) or batched CG (``cg``: iterations x steps x beads)."""
    if _base_rule(rule).removeprefix("calibration_") in ("we_run", "we_run_replica") and "engine" in wildcards:
        return "openmm" if wildcards["engine"] in ("implicit", "explicit") else "cg"
    return None


def _measured(basis: Mapping, rule: str, wildcards: Mapping | None = None) -> Mapping | None:
    rules = basis["rules"]
    kind = variant(rule, wildcards or {})
    for name in (rule, ALIASES.get(rule, "")):
        if kind and f"{name}:{kind}" in rules:
            return rules[f"{name}:{kind}"]
        if name in rules:
            return rules[name]
    for name in (rule, ALIASES.get(rule, "")):  # a kind the measured run did not run: the rule's other kind
        for key, entry in rules.items():
            if key.split(":")[0] == name:
                return entry
    return None


@dataclass(frozen=True)
class Estimate:
    """One job's expected need (no margin): wall seconds, peak memory (MB), output disk (MB), and the basis used."""

    seconds: float
    mem_mb: float
    disk_mb: float
    source: str
    #: units / the basis job's units where the time was scaled from the measured run (no rate): how far it reaches.
    extrapolation: float = 1.0
    #: A WE run's estimate before ``we.max_wallclock_s`` cut it (None where it was not cut): the run stops at the cap
    #: with the iterations it finished, fewer than ``we.max_iterations``.
    uncapped_seconds: float | None = None


class Requests:
    """Estimates and requests of one config's jobs from a measured basis (see the module docstring).

    Parameters
    ----------
    config : mapping
        The validated config.
    basis : mapping
        ``{"source": str, "rules": {rule: {"seconds", "rss_mb", "units", ...}}, "rates": {rule: [{"platforms",
        "engines", "startup_s", "s_per_unit", "source"}]}}`` (``profiles/slurm/measured.json``).
    prepared : mapping, optional
        Protein -> prepared explicit atom count (:func:`prepared_atoms`).
    """

    def __init__(self, config: Mapping, basis: Mapping, prepared: Mapping[str, int] | None = None):
        self.config, self.basis = config, basis
        self.sizes = Sizes(config, dict(prepared or {}))
        self._cache: dict = {}

    def has_basis(self, rule: str) -> bool:
        return _measured(self.basis, rule) is not None or any(
            key.split(":")[0] in (rule, ALIASES.get(rule)) for key in self.basis["rules"]
        )

    def estimate(self, rule: str, wildcards: Mapping) -> Estimate:
        """The expected need of one job of ``rule`` with these wildcards (no margin).

        Raises
        ------
        ConfigError
            When the basis has no measurement of the rule, naming the file and how to add one.
        """
        key = (rule, tuple(sorted((k, str(v)) for k, v in wildcards.items())))
        if key in self._cache:
            return self._cache[key]
        measured = _measured(self.basis, rule, wildcards)
        if measured is None:
            raise ConfigError(
                f"rule {rule} has no measured basis in profiles/slurm/measured.json: run it once and refresh the "
                "basis (tools/slurm/plan.py measure --results <finished run>), or set its runtime and mem_mb "
                "under set-resources in the profile."
            )
        n = units(rule, self.sizes, wildcards)
        scale = max(1.0, n / float(measured["units"]))
        rate = self.rate(rule, wildcards)
        if rate is not None:
            seconds = rate["startup_s"] + rate["s_per_unit"] * n
            source = rate["source"]
        else:
            seconds = measured["seconds"] * scale
            source = f"{self.basis.get('source', 'measured run')}, x{scale:.3g}"
        cap = self.config["we"].get("max_wallclock_s")
        uncapped = None
        if _base_rule(rule) in ("we_run", "we_run_replica") and cap:
            # A WE run stops itself at we.max_wallclock_s, keeping the iterations it finished: its need is at most that.
            if seconds > cap + WE_WRAP_UP_S:
                uncapped = seconds
                seconds, source = cap + WE_WRAP_UP_S, f"we.max_wallclock_s {cap:.0f} s + {WE_WRAP_UP_S} s to stop"
        extra = MEMORY_BYTES_PER_UNIT.get(_base_rule(rule), 0) * max(0.0, n - float(measured["units"]))
        mem = measured["rss_mb"] + extra / 1e6
        disk_function = DISK_BYTES.get(_base_rule(rule))
        disk = disk_function(self.sizes, wildcards) / 1e6 if disk_function and _protein(wildcards) else 1.0
        result = Estimate(
            seconds=seconds,
            mem_mb=mem,
            disk_mb=disk,
            source=source,
            extrapolation=1.0 if rate is not None else scale,
            uncapped_seconds=uncapped,
        )
        self._cache[key] = result
        return result

    def rate(self, rule: str, wildcards: Mapping) -> Mapping | None:
        """The basis's measured per-unit rate for a job of ``rule`` on the config's platform (and its engine), if
        any: ``{"startup_s", "s_per_unit", "source"}``."""
        platform = self.config["platform"]["name"]
        for rate in self.basis.get("rates", {}).get(_base_rule(rule), []):
            if rate.get("platforms") not in (None, []) and platform not in rate["platforms"]:
                continue
            engines = rate.get("engines")
            if engines and not any(fnmatch.fnmatch(str(wildcards.get("engine")), e) for e in engines):
                continue
            return rate
        return None

    def request(self, rule: str, wildcards: Mapping) -> dict:
        """The resources one job asks for: the estimate x :data:`MARGIN`, at least :data:`FLOOR`.

        Returns
        -------
        dict
            ``runtime`` (minutes), ``mem_mb``, ``disk_mb`` (integers).
        """
        estimate = self.estimate(rule, wildcards)
        need = {"runtime": estimate.seconds / 60, "mem_mb": estimate.mem_mb, "disk_mb": estimate.disk_mb}
        request = {name: max(FLOOR[name], math.ceil(value * MARGIN[name])) for name, value in need.items()}
        if estimate.uncapped_seconds is not None:  # it stops itself at the cap: no margin on a time it cannot pass
            request["runtime"] = max(FLOOR["runtime"], math.ceil(need["runtime"]))
        return request

    def snakemake_resources(self, rule: str) -> dict:
        """``resources:`` entries of ``rule`` for Snakemake: one function of the wildcards per resource (none for a
        rule the basis does not cover: the profile must size it, rules/cluster.smk checks)."""
        if not self.has_basis(rule):
            return {}

        def entry(name):
            return lambda wildcards: self.request(rule, dict(wildcards.items()))[name]

        return {name: entry(name) for name in ("runtime", "mem_mb", "disk_mb")}


def load_basis(path: str | Path) -> dict:
    """The measured basis (``profiles/slurm/measured.json``); an empty one where the file is missing (every rule then
    needs its resources from the profile: ``tools/slurm/plan.py measure --results <finished run>`` writes the file)."""
    path = Path(path)
    if not path.exists():
        return {"source": f"{path} (missing)", "rules": {}, "rates": {}}
    return json.loads(path.read_text())


def prepared_atoms(results: str | Path, proteins: list[str]) -> dict[str, int]:
    """Protein -> atom count of its prepared explicit system, for the proteins whose preparation has run."""
    atoms = {}
    for protein in proteins:
        path = Path(results) / protein / "prepare" / "explicit.json"
        if path.exists():
            atoms[protein] = int(json.loads(path.read_text())["atoms"])
    return atoms
