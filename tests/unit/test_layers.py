"""The layering the folders promise: sampling code never imports training or analysis code."""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "westbench"
SAMPLING = ["we", "cg", "engines", "groundtruth", "prepare"]
ANALYSIS = ("westbench.metrics", "westbench.report", "westbench.calibration")
#: What WE sampling runs: the engines, the WE driver and the CG engine. None of it, nor anything it imports
#: (directly, lazily inside a function, or through another module), is training or analysis code.
SAMPLING_ENTRIES = ["engines", "we", "cg/engine.py"]
TRAINING = ("westbench.cg.train", "westbench.cg.training_step")


def westbench_imports(path: Path) -> set[str]:
    """Absolute names of the westbench modules a source file imports (relative imports resolved)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    package = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts[:-1])
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, base] if base else parent)
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return {name for name in names if name.startswith("westbench")}


def module_file(name: str) -> Path | None:
    """The source file of westbench module ``name`` (None for a name that is an attribute, not a module)."""
    path = PACKAGE.parent.joinpath(*name.split("."))
    for candidate in (path.with_suffix(".py"), path / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def imported_closure(path: Path) -> set[str]:
    """Every westbench module that importing ``path`` can import: its imports (module-level or inside a
    function), their parent packages, and theirs in turn."""
    seen: set[str] = set()
    todo = [path]
    while todo:
        for name in westbench_imports(todo.pop()):
            parts = name.split(".")
            for i in range(2, len(parts) + 1):
                module = ".".join(parts[:i])
                found = module_file(module)
                if found is not None and module not in seen:
                    seen.add(module)
                    todo.append(found)
    return seen


def sampling_files() -> list[Path]:
    return sorted(
        path
        for entry in SAMPLING_ENTRIES
        for path in ([PACKAGE / entry] if entry.endswith(".py") else (PACKAGE / entry).rglob("*.py"))
    )


@pytest.mark.parametrize("path", sampling_files(), ids=lambda path: str(path.relative_to(PACKAGE)))
def test_sampling_never_imports_training_or_analysis(path):
    """A WE run (engines, the WE driver, the CG engine) imports no training and no analysis code, not even
    through another module (the CG engine used to get its torch device from cg/train.py)."""
    forbidden = sorted(name for name in imported_closure(path) if name.startswith(TRAINING + ANALYSIS))
    assert forbidden == []


def test_the_closure_sees_an_import_of_training():
    assert "westbench.cg.train" in imported_closure(PACKAGE / "cg" / "training_step.py")
    assert {"westbench.devices", "westbench.cg.capture"} <= imported_closure(PACKAGE / "cg" / "engine.py")


@pytest.mark.parametrize("layer", SAMPLING)
def test_sampling_never_imports_analysis(layer):
    offending = {
        str(path.relative_to(PACKAGE)): sorted(name for name in westbench_imports(path) if name.startswith(ANALYSIS))
        for path in (PACKAGE / layer).rglob("*.py")
    }
    assert not {path: names for path, names in offending.items() if names}


def test_the_stage_check_sees_a_stage_import():
    """The check that guards the stage boundaries does see one (the report's allowed import of the figure list)."""
    assert "westbench.metrics.figure_list" in westbench_imports(PACKAGE / "report" / "sections.py")


def test_the_check_sees_an_import_of_analysis():
    probe = PACKAGE / "we" / "live_coverage.py"
    assert "westbench.coverage_grid.CoverageGrid" in westbench_imports(probe)
    assert any(name.startswith("westbench.metrics") for name in westbench_imports(PACKAGE / "metrics" / "suite.py"))


def test_only_scripts_library_edits_sys_path():
    """The workflow (Snakefile, rules, scripts), the library, the tools and the tests find westbench one way:
    scripts/_library.py for scripts, the installed package (or PYTHONPATH for a child interpreter) elsewhere.
    benchmarks/ is left out on purpose: a benchmark picks which checkout's src/ it times (it compares commits)
    and runs on a bare GPU machine without an install."""
    root = PACKAGE.parents[1]
    files = [
        root / "Snakefile",
        *(root / "rules").glob("*.smk"),
        *(root / "scripts").glob("*.py"),
        *PACKAGE.rglob("*.py"),
        *(root / "tools").rglob("*.py"),
        *(root / "tests").rglob("*.py"),
    ]
    edits = ("sys.path.insert", "sys.path.append", "sys.path[:0]")
    editing = [
        str(path.relative_to(root))
        for path in files
        if path.name != "_library.py" and path != Path(__file__) and any(edit in path.read_text() for edit in edits)
    ]
    assert (root / "scripts" / "_library.py").read_text().count("sys.path.insert") == 1
    assert editing == []


# The stages (one rule file each) and what they may import of each other: the report presents the metric
# stage's outputs, asks it which figures exist (westbench.metrics.figure_list, the figure registry) and draws free
# energy with its one helper (westbench.metrics.figures.free_energy). Everything else a stage
# needs is in the shared layer (simulation, engines, ca_geometry, coverage_grid, tica, frames, trajectories, ...).
STAGES = ["prepare", "groundtruth", "we", "cg", "external", "metrics", "report", "agents", "calibration"]
# The calibration study composes the CG stage (reference potential, engine, models) and the metric stage (its
# distributions and W1), as its rules reuse theirs.
ALLOWED = {
    ("report", "westbench.metrics.figure_list"),
    ("report", "westbench.metrics.figures.free_energy"),
    ("calibration", "westbench.cg"),
    ("calibration", "westbench.metrics"),
}


@pytest.mark.parametrize("stage", STAGES)
def test_no_stage_imports_another_stage(stage):
    offending = {}
    for path in (PACKAGE / stage).rglob("*.py"):
        names = {
            name
            for name in westbench_imports(path)
            if name.count(".") and name.split(".")[1] in STAGES and name.split(".")[1] != stage
        }
        names = {name for name in names if not any(stage == s and name.startswith(a) for s, a in ALLOWED)}
        if names:
            offending[str(path.relative_to(PACKAGE))] = sorted(names)
    assert offending == {}


#: A module longer than this has one job too many, unless it says why here (issue 26: one room per job).
MAX_MODULE_LINES = 300
#: Modules over :data:`MAX_MODULE_LINES`, each with why it stays one file (or what splitting it waits for).
LONG_MODULES = {
    "agents/judge.py": "one judge: the prompt with its untrusted-evidence framing, the reply's last verdict and "
    "the cache key over all three are one contract; next to split: the prompt template",
    "metrics/suite.py": "the metric suite is one estimator (deeptime's pattern): histograms, estimates, "
    "intervals and floor share its cached grids; its parts already live in binning, resampling, intervals",
    "metrics/score.py": "the metric_suite job: reads, scores every weighting, writes metrics.json/csv; each "
    "record's fields are documented where they are written",
    "cg/engine.py": "the one CGEngine class: state, device, the batched BAOAB loop and its explosion checks",
    "engines/openmm_engine.py": "the one OpenMM engine class: contexts, batched copies, segment loop",
    "simulation/md.py": "one resumable OpenMM run: minimize, equilibrate, produce in checkpointed chunks",
    "cg/train.py": "one force-matching training loop with its early stopping, history and failure to learn",
    "agents/verifykit.py": "copied whole into every task's tests/ (tools/sync-verifykit.py): one file by design",
    "agents/harbor.py": "one trial through the Harbor CLI: command, environment, staging and the result record",
    "calibration/table.py": "the study's verdict table and the checks read from it, one contract",
}


def test_a_module_over_the_limit_says_why():
    sizes = {str(path.relative_to(PACKAGE)): len(path.read_text().splitlines()) for path in PACKAGE.rglob("*.py")}
    unexplained = {path: n for path, n in sizes.items() if n > MAX_MODULE_LINES and path not in LONG_MODULES}
    assert not unexplained, f"split these or say why in LONG_MODULES: {unexplained}"
    stale = [path for path in LONG_MODULES if sizes.get(path, 0) <= MAX_MODULE_LINES]
    assert not stale, f"no longer over {MAX_MODULE_LINES} lines: remove from LONG_MODULES: {stale}"
