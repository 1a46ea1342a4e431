"""Shared fixtures: the repository, the shared reference structures, small specs."""

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import settings as hypothesis_settings

from westbench.config import ProteinSpec

# Property tests assert properties, not speed: CI's shared 2-core machines stall a single example past hypothesis's
# 200 ms deadline now and then (a FlakyFailure, seen in the fast lane under load), so no example has a deadline.
hypothesis_settings.register_profile("westbench", deadline=None)
hypothesis_settings.load_profile("westbench")

REPO = Path(__file__).resolve().parents[1]


def source_env() -> dict:
    """The environment of a child interpreter that imports this checkout's westbench (src/) and tests."""
    import os

    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO / "src"), str(REPO), os.environ.get("PYTHONPATH")])),
    }


SHARED_STRUCTURES = REPO.parent / "shared" / "structures"
CHIGNOLIN = "GYDPETGTWG"
UNIT_TIMEOUT_S = 600  # a unit test or doctest takes seconds; one that hangs (a forked worker, a lock) fails instead


#: The tier a folder's tests belong to whatever their own markers say: tools/test.sh runs the fast lane and
#: then ``-m "workflow or container or cluster"``, so no test of these folders can fall between the two.
TIER_OF_FOLDER = {"workflow": "workflow", "cluster": "cluster", "containers": "container"}


#: The fixture of the tests that read the benchmark's raw PDB files: they carry the ``structures`` marker.
STRUCTURES_FIXTURE = "shared_structures"
#: tools/test.sh --fast sets it: a bare clone offline (no ../shared, no RCSB) runs the fast lane without the
#: structures tier, each of its tests skipped with the reason, instead of failing on a download.
STRUCTURES_OPTIONAL_ENV = "WESTBENCH_STRUCTURES_OPTIONAL"


def structures_at_hand(shared=None, cache=None) -> bool:
    """Whether every benchmark entry is on this machine already (../shared/structures or the structure cache)."""
    shared, cache = Path(shared or SHARED_STRUCTURES), Path(cache or STRUCTURE_CACHE)
    return any(all((folder / f"{entry}.pdb").is_file() for entry in BENCHMARK_ENTRIES) for folder in (shared, cache))


def pytest_collection_modifyitems(items):
    """Unit tests and doctests get a short timeout; DAG, SLURM and container tests keep pyproject's and carry
    their folder's tier marker; tests that read the benchmark's PDB files carry ``structures`` (skipped, with the
    reason, only where the fast lane allows it and the files are not on this machine)."""
    import os

    skip_structures = None
    if os.environ.get(STRUCTURES_OPTIONAL_ENV) and not os.environ.get("CI") and not structures_at_hand():
        skip_structures = pytest.mark.skip(
            reason=f"structures tier: the benchmark PDB files are neither in {SHARED_STRUCTURES} nor in "
            f"{STRUCTURE_CACHE}; clone beside shared/ or run `bash tools/test.sh` online to fetch them"
        )
    for item in items:
        if STRUCTURES_FIXTURE in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.structures)
        if skip_structures is not None and item.get_closest_marker("structures") is not None:
            item.add_marker(skip_structures)
        path = Path(str(item.fspath)).resolve()
        for folder, marker in TIER_OF_FOLDER.items():
            if REPO / "tests" / folder in path.parents and item.get_closest_marker(marker) is None:
                item.add_marker(getattr(pytest.mark, marker))
        if (REPO / "tests" / "unit" in path.parents or REPO / "src" in path.parents) and item.get_closest_marker(
            "timeout"
        ) is None:
            item.add_marker(pytest.mark.timeout(UNIT_TIMEOUT_S))


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


#: The RCSB entries the tests read: the nine benchmark proteins of config/paper.yaml and two sequence variants.
BENCHMARK_ENTRIES = ("1E0L", "1ENH", "1FME", "1L2Y", "1LMB", "1PGA", "1PRB", "1UAO", "2A3D", "2JOF", "5AWL")
#: The project's structure cache (config key structure_cache): where the tests fetch entries to without ../shared.
STRUCTURE_CACHE = REPO / "resources" / "structures"


def benchmark_structures(shared=SHARED_STRUCTURES, cache=STRUCTURE_CACHE, url_template=None) -> Path:
    """A folder holding every benchmark entry: ``shared`` (../shared/structures beside the clone) when it has
    them all, else ``cache``, with the missing entries downloaded from the RCSB (``url_template``: the
    schema's ``download.url_template``) by the workflow's own download function."""
    from westbench.config import section_defaults
    from westbench.structures.inspect import read_structure
    from westbench.structures.rcsb import download_pdb

    shared, cache = Path(shared), Path(cache)
    if all((shared / f"{entry}.pdb").is_file() for entry in BENCHMARK_ENTRIES):
        return shared
    options = section_defaults("download")
    if url_template is not None:
        options["url_template"] = url_template
    cache.mkdir(parents=True, exist_ok=True)
    for entry in BENCHMARK_ENTRIES:
        if not (cache / f"{entry}.pdb").is_file():
            download_pdb(entry, cache / f"{entry}.pdb", validate=read_structure, **options)
    return cache


@pytest.fixture(scope="session")
def shared_structures() -> Path:
    """The raw RCSB files of the benchmark proteins: ../shared/structures when it is there (offline machines),
    else fetched once from the RCSB into the project's structure cache, resources/structures (never committed)."""
    try:
        return benchmark_structures()
    except Exception as exc:  # offline and no shared folder
        pytest.fail(
            f"reference structures: {SHARED_STRUCTURES} is absent and fetching them from the RCSB into "
            f"{STRUCTURE_CACHE} failed ({exc}); clone the project beside shared/ or go online."
        )


@pytest.fixture
def chignolin_spec() -> ProteinSpec:
    return ProteinSpec("chignolin", "Chignolin", "1UAO", CHIGNOLIN, None, None, "sequence", None)


def rcsb_spec(pdb_id: str, sequence: str, chains=None, residues=None, protein_id: str = "test") -> ProteinSpec:
    """A spec for source rcsb (tests read the files from the shared folder)."""
    return ProteinSpec(protein_id, protein_id, pdb_id, sequence, chains, residues, "rcsb", None)


def snakemake_command(workdir, *args, configfile=REPO / "config" / "config.yaml") -> list[str]:
    """The Snakemake CLI on this repository's Snakefile in ``workdir``, as :func:`snakemake` runs it."""
    # Targets and options first: --configfile takes several values and would swallow a target after it.
    return [
        sys.executable,
        "-m",
        "snakemake",
        "-s",
        str(REPO / "Snakefile"),
        "-d",
        str(workdir),
        *map(str, args),
        *(["--configfile", str(configfile)] if configfile is not None else []),
    ]


def snakemake(workdir, *args, configfile=REPO / "config" / "config.yaml", timeout=900):
    """Run the real Snakemake CLI on this repository's Snakefile in ``workdir``; ``.output`` = stdout + stderr.
    ``configfile=None``: no --configfile (the Snakefile's embedded demo, or the ones given in ``args``)."""
    result = subprocess.run(
        snakemake_command(workdir, *args, configfile=configfile), capture_output=True, text=True, timeout=timeout
    )
    result.output = result.stdout + result.stderr  # Snakemake 9 logs errors to stdout
    return result


def start_snakemake(workdir, *args, configfile=REPO / "config" / "config.yaml") -> subprocess.Popen:
    """:func:`snakemake` started, not waited for: in a new process group (so that a test can signal Snakemake
    and its jobs at once, as a terminal does), stdout and stderr in ``.stdout``, and SIGINT at its default (a
    terminal's foreground job, not a background job of a non-interactive shell, which ignores SIGINT)."""
    import signal

    return subprocess.Popen(
        snakemake_command(workdir, *args, configfile=configfile),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def demo_we_run_dirs(root, engine, protein="chignolin"):
    """The WE run folders of an engine in a run of the embedded demo, as westbench.plan.layout.we_run_dir lays
    them out: the engine's folder for one replica, its replica_<k>/ folders for several (we.replicas)."""
    import yaml

    from westbench.config import validate_config

    we = validate_config(yaml.safe_load((REPO / "config" / "config.yaml").read_text()))["we"]
    count = we["replicas_by_engine"].get(engine, we["replicas"])
    folder = Path(root) / "results" / protein / "we" / engine
    return [folder] if count == 1 else [folder / f"replica_{k}" for k in range(count)]


@pytest.fixture(scope="session")
def default_run(tmp_path_factory):
    """The embedded default DAG run once locally (several minutes on 2 cores), shared by every test reading it."""
    workdir = tmp_path_factory.mktemp("default")
    result = snakemake(workdir, "--cores", "2")
    assert result.returncode == 0, result.output[-3000:]
    return workdir
