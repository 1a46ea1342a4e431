"""Session fixtures: prepared implicit-solvent systems (see systems.py)."""

import pytest

from .systems import prepare_chignolin, prepare_trpcage


@pytest.fixture(scope="session")
def chignolin_files(tmp_path_factory):
    return prepare_chignolin(tmp_path_factory.mktemp("chignolin_implicit"))


@pytest.fixture(scope="session")
def trpcage_files(tmp_path_factory, shared_structures):
    return prepare_trpcage(tmp_path_factory.mktemp("trpcage_implicit"), shared_structures)
