"""What the embedded default DAG spends its 2 cores on: the critical path first, no start-up import it does not use,
and no weighting the calibration study does not read (each a CPU cost of the default run, never a result)."""

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

#: The main study's chain: system, ground truth, TICA, CG training and WE runs.
CRITICAL_PATH = ["build_system", "groundtruth_starts", "groundtruth_run", "fit_tica", "cg_train", "we_run"]
#: The calibration study's copies of those rules (use rule ... with: they would inherit the priority).
STUDY_COPIES = ["calibration_fit_tica", "calibration_cg_train", "calibration_we_run"]


def test_the_critical_path_goes_first_and_the_study_fills_in(workflow):
    high = {name: workflow.get_rule(name).priority for name in CRITICAL_PATH + ["we_run_replica"]}
    low = {name: workflow.get_rule(name).priority for name in STUDY_COPIES + ["calibration_metrics"]}
    assert min(high.values()) > max(low.values()), (high, low)


def test_the_study_scores_the_one_weighting_its_table_reads(workflow):
    metrics = workflow.get_rule("calibration_metrics").params.settings
    table = workflow.get_rule("calibration_table").params.weighting
    assert metrics["weightings"] == [table] == ["we"]
    main = workflow.get_rule("metric_suite").params.settings
    assert main["weightings"] == workflow.config["metrics"]["weightings"]  # the main study keeps every one


def fresh_python(code: str) -> subprocess.CompletedProcess:
    """``code`` in a new interpreter with the package on its path (what a job's imports cost starts from zero)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO / "src"), os.environ.get("PYTHONPATH")]))}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)


def test_projecting_with_a_stored_tica_model_imports_no_deeptime():
    """WE runs (progress coordinates) and exports load a TicaModel: deeptime (and with it torch and
    scikit-learn) is seconds of start-up per job, and only fitting needs it."""
    code = (
        "import sys\n"
        "from westbench.tica import FEATURE_CA_DISTANCES, TicaModel\n"
        "import westbench.we.pcoord, westbench.we.replicas, westbench.we.propagator\n"
        "print(sorted(m for m in ('deeptime', 'torch', 'sklearn') if m in sys.modules))\n"
    )
    result = fresh_python(code)
    assert result.stdout.strip() == "[]", result.stdout + result.stderr


def test_the_deeptime_and_transport_jobs_import_no_torch_and_torch_still_imports_after():
    """Metric suites, macrostates and TICA fits use deeptime and POT, whose inits import torch only for kernels and
    a backend westbench never uses (westbench.runtime.without_torch): seconds of CPU per job. A later import of torch
    still works."""
    code = (
        "import sys\n"
        "import numpy as np\n"
        "import westbench.metrics.msm, westbench.tica.fitting\n"
        "from westbench.metrics.divergences import wasserstein_2d\n"
        "from deeptime.markov.msm import MaximumLikelihoodMSM\n"
        "a = np.zeros((10, 2)); b = np.column_stack([np.ones(10), np.zeros(10)])\n"
        "w = wasserstein_2d(np.vstack([a, b]), np.vstack([a, b]) + [0.0, 2.0], bins=100)\n"
        "print('torch' in sys.modules, hasattr(__import__('deeptime').kernels, 'TorchGaussianKernel'), round(w, 1))\n"
        "import torch\n"
        "print(torch.ones(2).sum().item())\n"
    )
    result = fresh_python(code)
    assert result.stdout.split() == ["False", "False", "2.0", "2.0"], result.stdout + result.stderr


def test_a_torchmdnet_network_builds_without_torch_compiler_and_the_compiler_still_loads_after():
    """TorchMD-Net's kernels mark functions for torch.compile, which imports Dynamo and Inductor (1.4 s of each CG
    job; westbench.cg.without_dynamo): a network builds and runs without them, the marker is torch's own again after,
    and Dynamo still imports."""
    code = (
        "import sys, torch\n"
        "marking = torch.compiler.allow_in_graph\n"
        "from westbench.cg.torchmdnet import TorchMDNet\n"
        "net = TorchMDNet()\n"
        "energy = net(torch.randn(2, 10, 3), torch.arange(10))\n"
        "print('torch._dynamo' in sys.modules, torch.compiler.allow_in_graph is marking, tuple(energy.shape))\n"
        "import torch._dynamo\n"
        "print(callable(torch._dynamo.allow_in_graph))\n"
    )
    result = fresh_python(code)
    lines = [line for line in result.stdout.splitlines() if line.startswith(("True", "False"))]
    assert lines == ["False True (2,)", "True"], result.stdout + result.stderr


def test_fitting_still_loads_from_the_package():
    from westbench.tica import fit_groundtruth, fit_tica
    from westbench.tica.fitting import fit_groundtruth as fitted
    from westbench.tica.fitting import fit_tica as fit

    assert (fit_tica, fit_groundtruth) == (fit, fitted)
