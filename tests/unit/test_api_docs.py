"""The public API: every package's ``__all__`` resolves, and the API reference (pdoc) documents each name."""

import importlib.util
import pkgutil
import re
from types import ModuleType

import pytest

import westbench
from westbench._exports import resolve_all

from ..conftest import REPO


def public_packages() -> list[ModuleType]:
    resolve_all(westbench)
    return [westbench] + [
        getattr(westbench, name) for name in westbench.__all__ if isinstance(getattr(westbench, name), ModuleType)
    ]


def test_every_stage_is_a_public_package_with_its_names():
    packages = {package.__name__ for package in public_packages()}
    folders = {f"westbench.{info.name}" for info in pkgutil.iter_modules(westbench.__path__) if info.ispkg}
    assert folders <= packages
    for package in public_packages():
        resolve_all(package)  # each name loads from the module the package names
        assert package.__all__ and len(set(package.__all__)) == len(package.__all__), package.__name__
        assert set(package.__all__) <= set(dir(package)), package.__name__


def test_no_public_name_is_also_a_submodule():
    """A function named like a submodule would be replaced by the module once the submodule is imported."""
    for package in public_packages():
        if hasattr(package, "__path__"):
            submodules = {info.name for info in pkgutil.iter_modules(package.__path__)}
            clashes = [
                name
                for name in package.__all__
                if name in submodules and not isinstance(getattr(package, name), ModuleType)
            ]
            assert clashes == [], package.__name__


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="has no attribute 'nosuch'"):
        westbench.we.nosuch  # noqa: B018


@pytest.mark.slow
def test_the_api_reference_has_a_page_and_an_anchor_for_every_public_name(tmp_path):
    pytest.importorskip("pdoc")
    spec = importlib.util.spec_from_file_location("api_docs", REPO / "tools" / "api_docs.py")
    api_docs = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(api_docs)
    out = api_docs.build(tmp_path / "api")
    for package in public_packages():
        page = out / (package.__name__.replace(".", "/") + ".html")
        assert page.is_file(), page
        anchors = set(re.findall(r'id="([^"]+)"', page.read_text()))
        missing = [
            name
            for name in package.__all__
            if name not in anchors
            and not (isinstance(getattr(package, name), ModuleType) and (out / "westbench" / f"{name}.html").is_file())
        ]
        assert missing == [], f"{package.__name__}: {missing}"
