"""The figure registry: one entry per figure, asked by the rules, the drawing code, the report and its captions.

An entry (:class:`Figure`) says everything about one figure: its name (the file ``<name>.png`` and the caption
file ``report/figures/<name>.rst``), the label Snakemake's report shows, the function that draws it, whether it
is drawn per (protein, engine) by rule ``metrics`` (:data:`ENGINE`) or per protein across engines by rule
``protein_figures`` (:data:`PROTEIN`), whether the HTML report draws it at the page's full width, and whether
it is shown for the ground truth scored against itself. Who asks:

- ``rules/metrics.smk`` and ``rules/report.smk``: one ``report()`` output per entry of their scope
  (:meth:`Figure.path`, :meth:`Figure.report`); ``rules/calibration.smk`` the same files for the study;
  the plan the report's records (``westbench.plan.targets.Targets.protein_figure_records``), in registry order.
- :func:`westbench.metrics.figures.write_metric_figures` and :func:`~westbench.metrics.figures.write_protein_figures`:
  every entry of their scope, drawn by its function from data computed once.
- :mod:`westbench.report.html_report`: the order of the figures and their width; :mod:`westbench.report.captions`:
  which caption file a figure's caption comes from.

Kept apart from :mod:`westbench.metrics.figures` (which draws them) so that the rules can read the registry
while the workflow is parsed without importing matplotlib: a figure's function is named as
``"module:function"`` (relative to :mod:`westbench.metrics.figures`, or a full module path) and imported only
when it is drawn.

Examples
--------
>>> FIGURES["macrostates"]
'macrostates'
>>> list(FIGURES)[0], [f.name for f in figures(PROTEIN)]
('tic_densities_1d', ['engines_tic01', 'coverage_vs_compute'])
>>> figure("engines_tic01").path(), figure("macrostates").caption_file
('results/{protein}/figures/engines_tic01.png', 'report/figures/macrostates.rst')
>>> with registered(Figure("toy", "a toy", draw=print, wide=False)):
...     "toy" in FIGURES, figure("toy").wide
(True, False)
>>> "toy" in FIGURES
False
"""

from __future__ import annotations

import contextlib
import importlib
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Callable, Iterator

#: Drawn per (protein, engine) by rule ``metrics``: ``draw(EngineFigureData, path)``.
ENGINE = "engine"
#: Drawn per protein across its engines by rule ``protein_figures``: ``draw(ProteinFigureData, path)``.
PROTEIN = "protein"
#: Per scope: where the file goes, and the Snakemake report's category and labels.
SCOPES = {
    ENGINE: {
        "path": "results/{{protein}}/metrics/{{engine}}/figures/{name}.png",
        "category": "Metrics",
        "labels": {"protein": "{protein}", "engine": "{engine}"},
    },
    PROTEIN: {
        "path": "results/{{protein}}/figures/{name}.png",
        "category": "Engines compared",
        "labels": {"protein": "{protein}"},
    },
}
PACKAGE = "westbench.metrics.figures"


@dataclass(frozen=True)
class Figure:
    """One figure: the one entry to add (see CONTRIBUTING.md, "Add a figure")."""

    name: str  # the file <name>.png; the caption report/figures/<name>.rst unless ``caption`` says otherwise
    label: str  # the label Snakemake's report shows
    draw: str | Callable  # "module:function" (module relative to westbench.metrics.figures) or the function
    scope: str = ENGINE  # ENGINE or PROTEIN
    wide: bool = True  # several panels: the HTML report draws it at the page's full width
    groundtruth: bool = True  # shown for the ground truth scored against itself (ENGINE scope)
    caption: str | None = None  # the caption file, relative to the repository root (or absolute)

    def __post_init__(self):
        if self.scope not in SCOPES:
            raise ValueError(f"figure {self.name}: scope must be one of {sorted(SCOPES)}, got {self.scope!r}")

    @property
    def caption_file(self) -> str:
        """The caption file, relative to the repository root (or absolute)."""
        return self.caption or f"report/figures/{self.name}.rst"

    def path(self) -> str:
        """The output pattern (wildcards ``{protein}``, and ``{engine}`` for :data:`ENGINE`)."""
        return SCOPES[self.scope]["path"].format(name=self.name)

    def report(self) -> dict:
        """The keyword arguments of Snakemake's ``report()`` for this figure, as a rule file (``rules/``) gives them."""
        caption = self.caption_file if os.path.isabs(self.caption_file) else f"../{self.caption_file}"
        scope = SCOPES[self.scope]
        return {
            "caption": caption,
            "category": scope["category"],
            "subcategory": "{protein}",
            "labels": {**scope["labels"], "figure": self.label},
        }

    def function(self) -> Callable:
        """The drawing function, imported now."""
        if callable(self.draw):
            return self.draw
        module, _, name = self.draw.partition(":")
        module = module if module.startswith("westbench.") else f"{PACKAGE}.{module}"
        return getattr(importlib.import_module(module), name)


REGISTRY: list[Figure] = [
    Figure("tic_densities_1d", "TIC 0-3 densities", "distributions:draw_tic_densities_1d"),
    Figure("tic_densities_2d", "TIC pair free energies", "distributions:draw_tic_densities_2d"),
    Figure("tic01_by_iteration", "TIC pairs by WE iteration", "coverage:draw_tic01_by_iteration"),
    Figure("structure_distributions", "Rg, bonds, angles, dihedrals", "distributions:draw_structure_distributions"),
    Figure("msm_reweighting", "MSM reweighting", "msm:draw_msm_reweighting"),
    Figure(
        "contact_map_difference",
        "contact map difference",
        "structure:draw_contact_map_difference",
        wide=False,
        groundtruth=False,
    ),  # no information for the ground truth against itself
    Figure("macrostates", "macrostates", "structure:draw_macrostates"),
    Figure("engines_tic01", "TIC 0/1 contours of every engine", "cross_engine:draw_engines_tic01", PROTEIN),
    Figure("coverage_vs_compute", "coverage against compute", "cross_engine:draw_coverage_vs_compute", PROTEIN),
]


def figures(scope: str | None = None) -> list[Figure]:
    """The registered figures of ``scope`` (every figure when None), in registry order (the report's order)."""
    return [entry for entry in REGISTRY if scope is None or entry.scope == scope]


def figure(name: str) -> Figure:
    """The registered figure ``name`` (KeyError naming the registered ones when there is none)."""
    for entry in REGISTRY:
        if entry.name == name:
            return entry
    raise KeyError(
        f"no figure {name!r} in the registry (westbench.metrics.figure_list): "
        f"{', '.join(entry.name for entry in REGISTRY)}"
    )


def is_registered(name: str) -> bool:
    return any(entry.name == name for entry in REGISTRY)


@contextlib.contextmanager
def registered(*entries: Figure) -> Iterator[None]:
    """Figures added to the registry for the ``with`` block only (tests, notebooks)."""
    taken = [entry.name for entry in entries if is_registered(entry.name)]
    if taken:
        raise ValueError(f"figures already registered: {taken}")
    REGISTRY.extend(entries)
    try:
        yield
    finally:
        for entry in entries:
            REGISTRY.remove(entry)


class _Labels(Mapping):
    """{name: label} of the per-engine figures, read from the registry whenever asked (never a stale copy)."""

    def __getitem__(self, name: str) -> str:
        for entry in figures(ENGINE):
            if entry.name == name:
                return entry.label
        raise KeyError(name)

    def __iter__(self):
        return iter([entry.name for entry in figures(ENGINE)])

    def __len__(self) -> int:
        return len(figures(ENGINE))

    def __repr__(self) -> str:
        return repr(dict(self))


#: {name: label} of the per-engine figures (rule ``metrics``), in registry order.
FIGURES: Mapping[str, str] = _Labels()
