"""Build the API reference of westbench's public names from their docstrings (pdoc), as HTML.

    .venv/bin/python tools/api_docs.py [OUTPUT]     default: build/api/ (index.html, westbench.html, ...)

One page per public package (``westbench`` and every name in its ``__all__`` that is a package or module),
listing the names of that package's ``__all__``, each at its own anchor (``westbench/we.html#run_protein_we``).
"""

from __future__ import annotations

import sys
from pathlib import Path
from types import ModuleType


def public_modules() -> list[ModuleType]:
    """westbench and its public subpackages, every public name loaded (pdoc reads a module's namespace)."""
    import westbench
    from westbench._exports import resolve_all

    resolve_all(westbench)
    modules = [westbench] + [
        getattr(westbench, name) for name in westbench.__all__ if isinstance(getattr(westbench, name), ModuleType)
    ]
    for module in modules:
        resolve_all(module)
    return modules


def build(output: str | Path) -> Path:
    """Write the HTML reference under ``output``; return it."""
    import pdoc

    output = Path(output)
    pdoc.render.configure(docformat="numpy", show_source=False, search=False)
    public_modules()
    pdoc.pdoc("westbench", output_directory=output)  # walks the subpackages of its __all__
    return output


if __name__ == "__main__":
    print(build(sys.argv[1] if len(sys.argv) > 1 else "build/api"))
