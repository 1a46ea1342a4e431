"""Every quantity the report shows is defined: each table heading maps to a definition, and docs/glossary.md has
an entry for the quantities a reader meets first."""

import re

from westbench.report.definitions import DEFINITIONS, anchor, defined_line, definitions_html, headings_of, terms_of

from ..conftest import REPO

#: Quantities the glossary must define too (the report's own Definitions section has every term).
GLOSSARY = (
    "macrostate TV",
    "noise floor",
    "not distinguishable at this resolution",
    "pinned by the bin floor",
    "control",
    "resolved",
    "sanity check",
    "failure to learn",
    "coverage",
    "speed-up",
)


def test_every_term_has_a_unique_anchor_and_the_section_lists_them_all():
    anchors = [anchor(term) for term in DEFINITIONS]
    assert len(set(anchors)) == len(anchors)
    html = str(definitions_html())
    assert all(f'id="{a}"' in html for a in anchors)


def test_every_alias_and_pattern_names_defined_terms():
    for heading in (
        "TIC 0/1",
        "W1 Rg (Å)",
        "KL within noise",
        "segments_to_50%",
        "speedup_gpu_seconds_to_20%",
        "median_ns_per_day",
        "W1 smallest separated",
        "ranks below",
        "key",
    ):
        terms = terms_of(heading)
        assert terms and all(term in DEFINITIONS for term in terms), heading


def test_a_defined_line_links_each_term_once():
    line = str(defined_line(["W1 Rg (Å)", "W1 bonds (Å)", "nothing known"]))
    assert line.count('href="#def-w1"') == 1 and 'href="#def-rg"' in line and "nothing known" not in line
    assert str(defined_line(["nothing known"])) == ""
    assert headings_of("<th>a</th><th class='x'>b <i>c</i></th>") == ["a", "b c"]


def test_the_glossary_defines_what_a_reader_meets_first():
    entries = [m.lower() for m in re.findall(r"^- \*\*(.+?)\*\*", (REPO / "docs" / "glossary.md").read_text(), re.M)]
    for term in GLOSSARY:
        assert any(term.lower() in entry for entry in entries), term
