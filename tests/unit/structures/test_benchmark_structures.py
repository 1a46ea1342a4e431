"""The tests' structures: ../shared/structures when present, else fetched into the structure cache (no network here:
a local server with the RCSB's URL layout stands in for it)."""

import functools
import http.server
import shutil
import threading

import pytest

from ...conftest import BENCHMARK_ENTRIES, benchmark_structures


@pytest.fixture
def local_rcsb(shared_structures, tmp_path):
    """An HTTP server serving the entries as https://files.rcsb.org/download/<ID>.pdb does; yields its URL template."""
    root = tmp_path / "server" / "download"
    root.mkdir(parents=True)
    for entry in BENCHMARK_ENTRIES:
        shutil.copy(shared_structures / f"{entry}.pdb", root / f"{entry}.pdb")
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(root.parent))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}/download/{{pdb_id}}.pdb", server
    server.shutdown()


def test_the_shared_folder_is_used_when_it_holds_every_entry(shared_structures, tmp_path):
    assert benchmark_structures(shared=shared_structures, cache=tmp_path / "cache") == shared_structures
    assert not (tmp_path / "cache").exists()


def test_without_the_shared_folder_the_entries_are_fetched_into_the_cache_once(local_rcsb, shared_structures, tmp_path):
    url, server = local_rcsb
    cache = tmp_path / "resources" / "structures"
    folder = benchmark_structures(shared=tmp_path / "no-shared", cache=cache, url_template=url)
    assert folder == cache
    for entry in BENCHMARK_ENTRIES:
        assert (cache / f"{entry}.pdb").read_bytes() == (shared_structures / f"{entry}.pdb").read_bytes()
    server.shutdown()  # a second call reads the cache: nothing to fetch
    assert benchmark_structures(shared=tmp_path / "no-shared", cache=cache, url_template=url) == cache
