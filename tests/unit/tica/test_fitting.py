"""The streaming fit: deeptime's TICA to round-off, a generated 250-residue protein, the memory estimate's refusal,
progress lines, a stop signal between chunks, lagged pairs never across a dropped frame."""

import logging
import os
import signal

import numpy as np
import pytest
from deeptime.decomposition import TICA
from deeptime.numeric import eig_corr as deeptime_eig_corr
from hypothesis import given, settings
from hypothesis import strategies as st

from westbench.errors import WestbenchError
from westbench.io.frames import write_frames
from westbench.runtime.interrupt import Interrupted, stop_on_signals
from westbench.tica import TicaModel, fit_groundtruth, fit_memory_bytes, fit_tica
from westbench.tica import fitting as fitting_module
from westbench.tica.decomposition import eig_corr
from westbench.tica.fitting import continuous_pieces

from .synthetic import synthetic_protein


def write_runs(folder, runs, interval_ps=1.0):
    paths = []
    for index, ca in enumerate(runs):
        path = folder / f"run{index}.h5"
        write_frames(path, ca=ca, time_ps=np.arange(1, len(ca) + 1) * interval_ps)
        paths.append(path)
    return paths


@settings(max_examples=12, deadline=None)
@given(chunk=st.integers(1, 400), lag=st.integers(1, 6), seed=st.integers(0, 10**6))
def test_streaming_equals_deeptimes_tica_on_all_the_data(chunk, lag, seed):
    rng = np.random.default_rng(seed)
    slow = np.cumsum(rng.normal(size=(3, 500, 1)), axis=1) * 0.1
    data = [np.concatenate([s, s * 0.5 + rng.normal(size=(500, 1)), rng.normal(size=(500, 4))], axis=1) for s in slow]
    reference = TICA(lagtime=lag, dim=3).fit(data).fetch_model()
    streamed = fit_tica(data, lag=lag, dim=3, chunk_frames=chunk)
    assert np.allclose(streamed.singular_values[:3], reference.singular_values[:3], atol=1e-9)
    assert np.allclose(streamed.transform(data[1]), reference.transform(data[1]), atol=1e-7)


def test_the_lapack_decomposition_is_deeptimes():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(400, 30)) @ rng.normal(size=(30, 30))
    x[:, 5] = x[:, 4]  # rank-deficient: truncated alike
    c00, c0t = x.T @ x / 400, (x[:-1].T @ x[1:] + x[1:].T @ x[:-1]) / 800
    ours, vectors, rank = eig_corr(c00, c0t, 1e-6)
    theirs, their_vectors, their_rank = deeptime_eig_corr(c00, c0t, 1e-6, canonical_signs=True, return_rank=True)
    assert rank == their_rank == 29
    assert np.allclose(ours, theirs, atol=1e-10) and np.allclose(vectors, their_vectors, atol=1e-8)


def test_a_generated_250_residue_protein_fits_with_reduced_features(tmp_path, caplog):
    runs, states, native = synthetic_protein(n_residues=250, n_frames=1500, n_runs=3, seed=11)
    paths = write_runs(tmp_path, runs)
    with caplog.at_level(logging.INFO, logger="westbench.tica.fitting"):
        model, frames = fit_groundtruth(
            paths, "big", lag_frames=5, dim=2, features={"max_features": 400}, reference=native, seed=3
        )
    assert model.features.selection == "contacts" and model.n_features == 400
    assert model.metadata["well_posed"] is True and model.metadata["why"] == ""
    assert model.metadata["well_posedness"]["lagged_pairs"] == 3 * 1495
    assert model.metadata["runs_from"] == "generate" and model.metadata["n_residues"] == 250
    # TIC 0 follows the slowest hidden process, TIC 1 the next
    hidden = np.concatenate(states)
    for k in range(2):
        assert abs(np.corrcoef(frames["tics"][:, k], hidden[:, k])[0, 1]) > 0.9
    assert 0 < model.timescales_frames[1] < model.timescales_frames[0]
    log = caplog.text
    assert "more than tica.features.all_pairs_up_to 3,200" in log and "400 features" in log
    assert "estimated peak" in log and "projected" in log
    # the saved model projects new frames of the same protein like the fit did
    model.save(tmp_path / "tica" / "model")
    loaded = TicaModel.load(tmp_path / "tica" / "model.json", protein="big")
    assert np.allclose(loaded.project(runs[2]), frames["tics"][3000:], atol=1e-4)  # float32 in frames


def test_the_memory_estimate_refuses_before_fitting_and_names_the_keys(tmp_path):
    runs, _, native = synthetic_protein(n_residues=250, n_frames=40, n_runs=2, seed=2)
    paths = write_runs(tmp_path, runs)
    # all 31,125 pairs: ~72 GB of covariances, refused at once against the default 4 GB
    with pytest.raises(WestbenchError) as refused:
        fit_groundtruth(paths, "big", 1, 2, features={"pairs": "all"}, reference=native)
    message = str(refused.value)
    assert "31,125 features" in message and "above tica.memory_gb 4;" in message
    assert "tica.features.pairs: contacts" in message and "tica.features.max_features" in message
    fitting = int(message.split("; ")[1].split(" features fit")[0].replace(",", ""))
    data = 2 * 2 * 40 * 250 * 3 * 4  # the runs' C-alphas, held twice
    assert fit_memory_bytes(fitting, data_bytes=data) <= 4 * 2**30 < fit_memory_bytes(fitting + 1, data_bytes=data)
    with pytest.raises(WestbenchError, match=r"above tica.memory_gb 0.001"):
        fit_groundtruth(paths, "big", 1, 2, features={"max_features": 60}, reference=native, memory_gb=0.001)


def test_progress_lines_and_a_stop_signal_between_chunks(monkeypatch, caplog):
    data = [np.random.default_rng(0).normal(size=(2000, 5))]
    monkeypatch.setattr(fitting_module, "PROGRESS_EVERY_S", 0.0)
    with caplog.at_level(logging.INFO, logger="westbench.tica.fitting"):
        fit_tica(data, lag=1, chunk_frames=500, what="toy TICA")
    assert "toy TICA: covariances of 500/1999 lagged pairs (25 %)" in caplog.text and "ETA" in caplog.text
    chunks = []

    def featurize(block):
        chunks.append(len(block))
        if len(chunks) == 1:
            os.kill(os.getpid(), signal.SIGTERM)  # as `kill` or SLURM's time limit would, mid-fit
        return block

    with stop_on_signals(), pytest.raises(Interrupted):
        fit_tica(data * 50, lag=1, chunk_frames=100, featurize=featurize)
    assert len(chunks) <= 2  # of 1,000: stopped at the next chunk at the latest


def test_lagged_pairs_never_cross_a_dropped_frame():
    runs = [{"ca": np.arange(10)[:, None], "traj": np.array([0, 0, 0, 1, 1, 1, 1, 2, 2, 2])}]
    assert [p[:, 0].tolist() for p in continuous_pieces(runs)] == [[0, 1, 2], [3, 4, 5, 6], [7, 8, 9]]
