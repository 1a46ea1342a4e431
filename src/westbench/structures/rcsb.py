"""Download PDB entries from the RCSB (or any server with the same URL layout).

Examples
--------
>>> url_for("1uao", "https://files.rcsb.org/download/{pdb_id}.pdb")
'https://files.rcsb.org/download/1UAO.pdb'
"""

from __future__ import annotations

import logging
import socket
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Callable

from westbench import __version__
from westbench.config import default
from westbench.errors import DownloadError, StructureError
from westbench.io.atomic import atomic_path

log = logging.getLogger(__name__)


def url_for(pdb_id: str, url_template: str) -> str:
    """The download URL of a PDB id."""
    return url_template.format(pdb_id=pdb_id.upper())


def download_pdb(
    pdb_id: str,
    destination: str | Path,
    url_template: str,
    timeout_s: float = float(default("download.timeout_s")),
    retries: int = default("download.retries"),
    backoff_s: float = default("download.backoff_s"),
    validate: Callable[[Path], object] | None = None,
) -> str:
    """Download one entry to ``destination``, atomically, retrying transient failures.

    The body is written to a temporary file beside ``destination`` and checked
    with ``validate`` (which raises :class:`StructureError` for a corrupt body)
    before it is renamed into place, so a failed or truncated download never
    leaves a file that a later run would trust.

    Parameters
    ----------
    pdb_id : str
    destination : path
    url_template : str
        URL with a ``{pdb_id}`` field.
    timeout_s : float
        Socket timeout of each attempt.
    retries : int
        Attempts in all. A 404 is final and is not retried.
    backoff_s : float
        Wait before the second attempt, doubled after each failure.
    validate : callable, optional
        Called with the temporary file's path.

    Returns
    -------
    str
        The URL the entry came from.

    Raises
    ------
    DownloadError
        Naming the URL, the last failure and what to do.
    """
    destination = Path(destination)
    destination.parent.mkdir(parents=True, exist_ok=True)
    url = url_for(pdb_id, url_template)
    request = urllib.request.Request(url, headers={"User-Agent": f"westbench/{__version__}"})
    failure = "no attempt was made"
    for attempt in range(1, retries + 1):
        if attempt > 1:
            wait = backoff_s * 2 ** (attempt - 2)
            log.info("retrying %s in %.1f s (attempt %d of %d)", url, wait, attempt, retries)
            time.sleep(wait)
        try:
            log.info("downloading %s (attempt %d of %d, timeout %.0f s)", url, attempt, retries, timeout_s)
            with urllib.request.urlopen(request, timeout=timeout_s) as response:
                body = response.read()
            # A body that fails validation, or a full disk, leaves no file under the final name.
            with atomic_path(destination) as temporary:
                temporary.write_bytes(body)
                if validate is not None:
                    validate(temporary)
            log.info("saved %s (%d bytes)", destination, destination.stat().st_size)
            return url
        except urllib.error.HTTPError as exc:
            failure = f"HTTP {exc.code} {exc.reason}"
            if exc.code == 404:
                raise DownloadError(
                    f"{url} answered 404 Not Found: the PDB id '{pdb_id}' does not exist there. "
                    "Check `pdb_id` in the protein's config entry, or set `download.url_template`."
                ) from exc
        except (urllib.error.URLError, socket.timeout, TimeoutError, ConnectionError) as exc:
            reason = getattr(exc, "reason", exc)
            failure = (
                f"timed out after {timeout_s:g} s"
                if isinstance(reason, (socket.timeout, TimeoutError))
                else f"{reason}"
            )
        except StructureError as exc:
            failure = f"the downloaded body is not a valid structure ({exc})"
        log.warning("download of %s failed: %s", url, failure)
    raise DownloadError(
        f"could not download {pdb_id} from {url} after {retries} attempt(s): {failure}. "
        "Check the network (or `download.timeout_s`/`download.retries`), or place the file as "
        f"{pdb_id.upper()}.pdb in the folder named by `structures_dir` to work offline."
    )
