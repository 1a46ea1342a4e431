"""The report's per-engine sections: each engine's table of estimates with intervals, floors and verdicts,
read from its ``metrics.json`` (:mod:`westbench.report.engine_tables`), and its figures (:class:`Figure`,
:class:`EngineSection`, :class:`ProteinSection`). Every section renders its tables with
:mod:`westbench.report.html_tables`."""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass, field
from pathlib import Path

from markupsafe import Markup

import westbench.metrics.figure_list as figure_list
from westbench.engines.kinds import GROUNDTRUTH
from westbench.report.captions import Captions
from westbench.report.engine_tables import engine_table
from westbench.report.evidence import ProteinEvidence
from westbench.report.html_tables import engine_name


@dataclass
class Figure:
    path: Path
    caption: str | Markup  # plain text (escaped) or HTML (a rendered caption file)
    wide: bool = False  # several panels: drawn at the page's full width

    @property
    def alt(self) -> str:
        """The caption as plain text, for the image's ``alt``."""
        return self.caption.striptags() if isinstance(self.caption, Markup) else self.caption

    @property
    def data(self) -> str:
        return base64.b64encode(Path(self.path).read_bytes()).decode("ascii")


@dataclass
class EngineSection:
    name: str
    table: Markup = Markup("")
    figures: list[Figure] = field(default_factory=list)
    note: str | Markup = ""


@dataclass
class ProteinSection:
    name: str
    figures: list[Figure] = field(default_factory=list)
    engines: list[EngineSection] = field(default_factory=list)


def wide(name: str) -> bool:
    """Whether figure ``name`` is drawn at the page's full width: as the figure registry says
    (:mod:`westbench.metrics.figure_list`); figures outside it (the calibration study's are wide) are not."""
    return figure_list.is_registered(name) and figure_list.figure(name).wide


def engine_section(
    protein: str, engine: str, metrics_json, captions: Captions, evidence: ProteinEvidence | None = None
) -> EngineSection:
    """One engine's table (a row per weighting) and figures, from its ``metrics.json`` and the ``figures/``
    folder beside it (rule ``metric_suite``); the note is the caption of its metrics table (``report/metrics.rst``),
    given what the job recorded (discarded iterations, the resampled units, the noise floor's splits)."""
    metrics = json.loads(Path(metrics_json).read_text())
    folder = Path(metrics_json).parent / "figures"
    macro = metrics.get("macrostates") or {}
    wildcards = {"protein": protein, "engine": engine}
    runtime = (
        {"macrostates_used": macro["used"], "macrostates_why": macro.get("why", "")}
        if macro.get("used") is not None
        else {}
    )
    # The registry's per-engine figures, in its order, at its width; some are not shown for the ground truth.
    shown = [
        entry
        for entry in figure_list.figures(figure_list.ENGINE)
        if (folder / f"{entry.name}.png").is_file() and not (engine == GROUNDTRUTH and not entry.groundtruth)
    ]
    figures = [
        Figure(folder / f"{entry.name}.png", captions.html(entry.name, wildcards, **runtime), wide=entry.wide)
        for entry in shown
    ]
    recorded = {"discarded_iterations": metrics.get("discarded_iterations", 0)}
    if metrics.get("resampling"):
        recorded["resampling"] = metrics["resampling"]
    floor = metrics.get("noise_floor") or {}
    if floor.get("splits"):
        recorded.update(floor_splits=floor["splits"], floor_units=floor.get("units"))
    if metrics.get("nonfinite_frames_dropped"):
        recorded["nonfinite_frames_dropped"] = metrics["nonfinite_frames_dropped"]
    # metrics.json: the caption of metrics.csv beside it
    note = captions.html(Path(metrics_json).stem, wildcards, **recorded)
    table = engine_table(metrics, f"{protein}-{engine}", evidence)
    return EngineSection(engine_name(engine), table, figures, note=note)
