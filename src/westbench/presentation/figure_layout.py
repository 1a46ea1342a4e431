"""Text that fits its figure: every title wrapped to the width it has, before the figure is laid out and saved.

Matplotlib draws a title on one line whatever its length: a long one runs past its panel into the next, or off
the figure, where the saved PNG clips it. :func:`fit_titles` measures each axes title (left, centre, right) against
its axes' width and the figure's suptitle against the figure's, and breaks the text at spaces until it fits. Every
figure writer calls it just before ``tight_layout`` (``westbench.metrics.figures.base.save`` for the metric
figures), so a name or a number of any length stays readable.

Examples
--------
>>> import matplotlib
>>> matplotlib.use("Agg")
>>> import matplotlib.pyplot as plt
>>> figure, axis = plt.subplots(figsize=(3, 2), dpi=100)
>>> _ = axis.set_title("a title far too long for a panel three inches wide at the default font size of ten points")
>>> fit_titles(figure)
1
>>> "\\n" in axis.get_title(), fits(figure)
(True, True)
>>> plt.close(figure)
"""

from __future__ import annotations

import textwrap

#: The share of its width a title may fill (the rest is margin, so neighbouring titles never touch).
FILL = 0.98


def _titles(figure):
    """(text artist, width in pixels it may fill) of every title of ``figure``."""
    found = []
    width = figure.get_window_extent().width
    suptitle = getattr(figure, "_suptitle", None)
    if suptitle is not None and suptitle.get_text():
        found.append((suptitle, width))
    for axis in figure.axes:
        box = axis.get_window_extent()
        for title in (axis.title, getattr(axis, "_left_title", None), getattr(axis, "_right_title", None)):
            if title is not None and title.get_text():
                found.append((title, box.width))
    return found


def fits(figure) -> bool:
    """Whether every title of ``figure`` is no wider than the width it has."""
    renderer = figure.canvas.get_renderer()
    return all(text.get_window_extent(renderer).width <= FILL * room + 1 for text, room in _titles(figure))


def fit_titles(figure) -> int:
    """Wrap every title of ``figure`` (axes titles to their axes' width, the suptitle to the figure's) at spaces
    until it fits; return how many were wrapped. A single word wider than its room is left as it is."""
    renderer = figure.canvas.get_renderer()
    wrapped = 0
    for text, room in _titles(figure):
        original = text.get_text()
        words = " ".join(original.split())
        width = len(words)
        while text.get_window_extent(renderer).width > FILL * room and width > 8:
            width = int(width * 0.85)
            text.set_text("\n".join(textwrap.wrap(words, width, break_long_words=False)))
        if text.get_text() != original:
            wrapped += 1
    return wrapped
