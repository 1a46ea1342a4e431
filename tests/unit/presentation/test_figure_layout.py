"""Every title fits its figure once fit_titles ran, whatever its length and the panel's width."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from westbench.presentation.figure_layout import fit_titles, fits  # noqa: E402

WORDS = st.lists(st.text(alphabet="abcdefghijklmnop()/:0123456789", min_size=1, max_size=12), min_size=1, max_size=40)


@settings(max_examples=12, deadline=None)
@given(title=WORDS, suptitle=WORDS, panels=st.integers(1, 4), panel_width=st.floats(2.5, 5.0))
def test_titles_of_any_length_fit_their_panels_after_fitting(title, suptitle, panels, panel_width):
    """Panels at least 2.5 inches wide: room for any single word of the strategy (a longer word stays whole)."""
    figure, axes = plt.subplots(1, panels, figsize=(panels * panel_width, 3), dpi=100, squeeze=False)
    try:
        for axis in axes[0]:
            axis.set_title(" ".join(title))
        figure.suptitle(" ".join(suptitle))
        fit_titles(figure)
        assert fits(figure), [axis.get_title() for axis in axes[0]]
        for axis in axes[0]:  # wrapping only: no word lost or cut
            assert axis.get_title().split() == " ".join(title).split()
    finally:
        plt.close(figure)
