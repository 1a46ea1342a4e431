"""The real download code against a local HTTP server on 127.0.0.1.

Covers success, 404, timeout, a corrupt body, and a transient error that a
retry overcomes; a failed download never leaves a file behind.
"""

import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from westbench.errors import DownloadError, SequenceMismatchError
from westbench.structures.acquire import acquire_structure
from westbench.structures.inspect import read_structure
from westbench.structures.rcsb import download_pdb

from ...conftest import CHIGNOLIN, rcsb_spec

pytestmark = pytest.mark.network


@pytest.fixture
def server(shared_structures):
    """Serves /1UAO.pdb; /SLOW.pdb stalls; /CORR.pdb is garbage; /FLKY.pdb fails once with 503."""
    body = (shared_structures / "1UAO.pdb").read_bytes()
    hits = Counter()
    release = threading.Event()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            name = self.path.rsplit("/", 1)[-1]
            hits[name] += 1
            if name == "SLOW.pdb":
                release.wait(timeout=5)  # bounded: the client gives up first
                payload, status = body, 200
            elif name == "CORR.pdb":
                payload, status = b"<html>Service temporarily unavailable</html>\n" * 3, 200
            elif name == "FLKY.pdb" and hits[name] == 1:
                payload, status = b"busy", 503
            elif name in ("1UAO.pdb", "FLKY.pdb"):
                payload, status = body, 200
            else:
                payload, status = b"not found", 404
            try:
                self.send_response(status)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):
                pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{httpd.server_address[1]}/download/{{pdb_id}}.pdb"
    yield url, hits
    release.set()
    httpd.shutdown()
    httpd.server_close()


def _download(url, pdb_id, tmp_path, **options):
    options = {"timeout_s": 2.0, "retries": 2, "backoff_s": 0.0, "validate": read_structure, **options}
    return download_pdb(pdb_id, tmp_path / "cache" / f"{pdb_id.upper()}.pdb", url, **options)


def test_success_writes_a_valid_file(server, tmp_path):
    url, hits = server
    origin = _download(url, "1uao", tmp_path)
    assert origin.endswith("/download/1UAO.pdb") and hits["1UAO.pdb"] == 1
    assert read_structure(tmp_path / "cache" / "1UAO.pdb").topology.getNumResidues() == 10
    assert [p.name for p in (tmp_path / "cache").iterdir()] == ["1UAO.pdb"]


def test_404_is_final_and_names_the_id(server, tmp_path):
    url, hits = server
    with pytest.raises(DownloadError, match=r"404.*'9ZZZ'.*pdb_id"):
        _download(url, "9ZZZ", tmp_path, retries=3)
    assert hits["9ZZZ.pdb"] == 1  # not retried
    assert not any((tmp_path / "cache").iterdir())


def test_timeout_is_retried_then_reported(server, tmp_path):
    url, hits = server
    start = time.monotonic()
    with pytest.raises(DownloadError, match=r"SLOW.*2 attempt.*timed out after 0.5 s"):
        _download(url, "SLOW", tmp_path, timeout_s=0.5)
    assert hits["SLOW.pdb"] == 2 and time.monotonic() - start < 4
    assert not any((tmp_path / "cache").iterdir())


def test_corrupt_body_is_not_kept(server, tmp_path):
    url, hits = server
    with pytest.raises(DownloadError, match="not a valid structure"):
        _download(url, "CORR", tmp_path)
    assert hits["CORR.pdb"] == 2
    assert not any((tmp_path / "cache").iterdir())


def test_transient_error_is_retried(server, tmp_path):
    url, hits = server
    _download(url, "FLKY", tmp_path, retries=2)
    assert hits["FLKY.pdb"] == 2 and (tmp_path / "cache" / "FLKY.pdb").is_file()


def test_acquire_downloads_once_then_uses_the_cache(server, tmp_path):
    url, hits = server
    spec = rcsb_spec("1UAO", CHIGNOLIN)
    options = {"url_template": url, "timeout_s": 2.0, "retries": 1, "backoff_s": 0.0}
    for run in range(2):
        record = acquire_structure(spec, tmp_path / f"out{run}.pdb", cache_dir=tmp_path / "cache", download=options)
    assert hits["1UAO.pdb"] == 1
    assert record["origin"] == str(tmp_path / "cache" / "1UAO.pdb") and record["complete"]


def test_downloaded_sequence_mismatch_keeps_the_cached_file(server, tmp_path):
    url, _ = server
    spec = rcsb_spec("1UAO", "YYDPETGTWY", protein_id="cln025")
    options = {"url_template": url, "timeout_s": 2.0, "retries": 1, "backoff_s": 0.0}
    with pytest.raises(SequenceMismatchError, match=r"'cln025'.*1UAO.*GYDPETGTWG.*YYDPETGTWY"):
        acquire_structure(spec, tmp_path / "out.pdb", cache_dir=tmp_path / "cache", download=options)
    assert (tmp_path / "cache" / "1UAO.pdb").is_file()  # the download itself was fine
