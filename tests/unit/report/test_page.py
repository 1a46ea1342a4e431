"""The report's page template: every part shown only when given, in the order the contents list, and every value
escaped (a table's HTML is passed as markup, a caveat's text is not)."""

import re

from markupsafe import Markup

from westbench.report.page import TEMPLATE


def render(**context):
    base = {
        "title": "westbench",
        "contents": [],
        "summary": {},
        "tables": {},
        "proteins": [],
        "anchors": {},
        "defined": {},
        "table_notes": {},
        "notes": [],
    }
    return TEMPLATE.render(**{**base, **context})


def test_a_bare_page_has_the_run_section_and_says_there_are_no_caveats():
    html = render()
    assert html.startswith("<!DOCTYPE html>") and html.rstrip().endswith("</html>")
    assert '<h2 id="run">This run</h2>' in html and "None: every metric of every engine was estimated" in html
    for absent in ('id="figures"', 'class="bottom-line"', 'class="detection"', 'id="calibration"'):
        assert absent not in html


def test_text_is_escaped_and_markup_is_not():
    html = render(
        title="<b>run</b>",
        summary={"config": "a < b"},
        caveats=Markup("<table><tr><td>x</td></tr></table>"),
        notes=["frames & weights"],
    )
    assert "<title>&lt;b&gt;run&lt;/b&gt;</title>" in html and "<td>a &lt; b</td>" in html
    assert '<div class="scroll"><table><tr><td>x</td></tr></table></div>' in html
    assert "frames &amp; weights" in html and "None: every metric" not in html


def test_contents_tables_and_engine_sections_appear_in_order_with_their_anchors():
    figure = {"data": "QUJD", "alt": "density", "caption": "TIC 0/1", "wide": True}
    html = render(
        contents=[("w1", "W1"), ("chignolin", "chignolin")],
        tables={"W1": Markup("<table>w1</table>")},
        anchors={"W1": "w1", "chignolin": "chignolin"},
        proteins=[
            {"name": "chignolin", "engines": [{"name": "implicit", "table": "T", "note": "", "figures": [figure]}]},
            {"name": "empty", "engines": []},
        ],
        engine_defined=lambda table: Markup(f"<p>defined {table}</p>"),
        overview=Markup("<p>bottom</p>"),
    )
    assert re.findall(r'<li><a href="#(\w+)">', html) == ["w1", "chignolin"]
    assert html.index('class="bottom-line"') < html.index('id="run"') < html.index('id="w1"')
    assert html.index('id="w1"') < html.index('<h2 id="chignolin">chignolin</h2>')
    assert "<h3>chignolin: implicit</h3>" in html and "<p>defined T</p>" in html
    assert '<figure class="wide"><img\nsrc="data:image/png;base64,QUJD" alt="density">' in html
    assert "empty" not in html  # a protein without engines gets no section
