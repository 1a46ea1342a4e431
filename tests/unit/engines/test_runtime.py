"""Each WE worker records what its engine ran on (westbench.engines.runtime)."""

from westbench.engines import runtime


def test_runtime_records_reach_the_run_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("WEST_SIM_ROOT", str(tmp_path))
    monkeypatch.setenv("WM_PROCESS_INDEX", "2")
    runtime.record_runtime({"platform": "CUDA", "device": "cuda:2"})
    runtime.record_runtime({"platform": "CUDA", "device": "cuda:2", "captured_buckets": [128]})
    (record,) = runtime.collect_runtime(tmp_path)  # one file per worker, the latest record
    assert record["worker"] == "2" and record["captured_buckets"] == [128]
