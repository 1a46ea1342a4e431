"""The report's per-engine sections: a figure's alt text and inline data, which figures are drawn wide, and an
engine's section from its metrics.json and figures folder (the figures present, in the registry's order, captions
with the job's runtime values, the ground truth without the figures that say nothing of it, the table's values and
the note from what the job recorded)."""

import base64
import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from markupsafe import Markup

from westbench.metrics.figure_list import ENGINE, REGISTRY, figures
from westbench.report.captions import Captions
from westbench.report.sections import Figure, engine_section, wide

#: Each engine figure's caption names it, the engine and, when the job recorded them, the macrostates used.
FIGURE_CAPTION = (
    "{name} of {{{{ snakemake.wildcards.protein }}}}/{{{{ snakemake.wildcards.engine }}}}"
    "{{% if macrostates_used is defined %}}, {{{{ macrostates_used }}}} macrostates ({{{{ macrostates_why }}}})"
    "{{% endif %}}."
)
#: The metrics table's caption: what the job recorded, each shown only when given.
TABLE_CAPTION = (
    "Discarded {{ discarded_iterations }}."
    "{% if floor_splits is defined %} Floor from {{ floor_splits }} {{ floor_units }}.{% endif %}"
    "{% if resampling is defined %} Resampled {{ resampling.units }}.{% endif %}"
    "{% if nonfinite_frames_dropped is defined %} Dropped {{ nonfinite_frames_dropped }}.{% endif %}"
)


@pytest.fixture
def captions():
    templates = {entry.name: FIGURE_CAPTION.format(name=entry.name) for entry in figures(ENGINE)}
    return Captions({**templates, "metrics": TABLE_CAPTION}, {})


def engine_folder(root: Path, engine: str, record: dict, drawn=()) -> Path:
    """``<root>/<engine>/metrics.json`` and the figure files ``drawn`` beside it, written in the order given."""
    folder = root / engine
    (folder / "figures").mkdir(parents=True)
    for name in drawn:
        (folder / "figures" / f"{name}.png").write_bytes(f"png of {engine} {name}".encode())
    (folder / "metrics.json").write_text(json.dumps(record))
    return folder / "metrics.json"


def test_a_figures_alt_is_its_caption_as_plain_text(tmp_path):
    assert Figure(tmp_path / "a.png", "TIC 0 < TIC 1").alt == "TIC 0 < TIC 1"
    html = Markup("<p>Density of <em>chignolin</em> &amp; its TICs.</p>\n")
    assert Figure(tmp_path / "a.png", html).alt == "Density of chignolin & its TICs."
    assert Figure(tmp_path / "a.png", "x").wide is False


@given(st.binary(max_size=4096))
def test_a_figures_data_is_its_file_in_base64(content):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "figure.png"
        path.write_bytes(content)
        data = Figure(path, "c").data
    assert base64.b64decode(data, validate=True) == content and data.isascii()


def test_registered_figures_are_as_wide_as_the_registry_says_and_others_are_not():
    assert {entry.name: wide(entry.name) for entry in REGISTRY} == {entry.name: entry.wide for entry in REGISTRY}
    assert wide("macrostates") and not wide("contact_map_difference")
    assert not wide("calibration_resolution") and not wide("")


def test_an_engines_section_shows_its_figures_in_registry_order_with_runtime_captions(captions, tmp_path):
    record = {
        "engine": "implicit",
        "frames": 120,
        "discarded_iterations": 3,
        "metrics": {"we": {"coverage": 0.5, "w1": {"tic0": 0.123}}},
        "macrostates": {"used": 2, "why": "few frames"},
        "noise_floor": {"splits": 4, "units": "runs"},
        "resampling": {"units": "segments"},
        "nonfinite_frames_dropped": 7,
    }
    drawn = ["macrostates", "contact_map_difference", "tic_densities_1d"]  # not the registry's order
    path = engine_folder(tmp_path, "implicit", record, drawn)
    section = engine_section("chignolin", "implicit", path, captions)
    assert section.name == "implicit"
    registry_order = [entry.name for entry in figures(ENGINE) if entry.name in drawn]
    assert [figure.path.stem for figure in section.figures] == registry_order
    assert all(figure.path == path.parent / "figures" / f"{figure.path.stem}.png" for figure in section.figures)
    assert [figure.wide for figure in section.figures] == [wide(name) for name in registry_order]
    macrostates = next(figure for figure in section.figures if figure.path.stem == "macrostates")
    assert macrostates.alt == "macrostates of chignolin/implicit, 2 macrostates (few frames)."
    assert base64.b64decode(macrostates.data) == b"png of implicit macrostates"
    assert section.note.striptags() == "Discarded 3. Floor from 4 runs. Resampled segments. Dropped 7."
    table = str(section.table)
    assert "<td>0.123</td>" in table and "<td>120</td>" in table and "<td>0.5</td>" in table


def test_the_ground_truth_is_named_for_readers_and_shows_no_figure_that_says_nothing_of_it(captions, tmp_path):
    drawn = [entry.name for entry in figures(ENGINE)]
    path = engine_folder(tmp_path, "groundtruth", {"engine": "groundtruth", "metrics": {"we": {}}}, drawn)
    section = engine_section("chignolin", "groundtruth", path, captions)
    assert section.name == "ground truth"
    shown = [figure.path.stem for figure in section.figures]
    assert shown == [entry.name for entry in figures(ENGINE) if entry.groundtruth]
    assert "contact_map_difference" not in shown and len(shown) == len(drawn) - 1
    assert all("of chignolin/groundtruth." in figure.alt for figure in section.figures)  # no macrostates recorded


def test_a_bare_record_without_figures_gives_a_section_with_only_its_table_and_the_defaults(captions, tmp_path):
    path = engine_folder(tmp_path, "cg", {"metrics": {"we": {"coverage": 0.25}}, "macrostates": {"used": None}})
    section = engine_section("trpcage", "cg", path, captions)
    assert section.name == "cg" and section.figures == []
    assert section.note.striptags() == "Discarded 0."  # nothing else recorded: nothing else said
    assert "<td>0.25</td>" in str(section.table)
