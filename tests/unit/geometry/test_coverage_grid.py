"""Coverage of the ground-truth TIC 0/1 plane on known point sets."""

import numpy as np

from westbench.geometry.coverage_grid import CoverageGrid


def test_coverage_of_a_known_point_set_is_exact():
    # Ground truth fills the 4 x 4 grid over [0, 4]^2 except the top-right cell.
    reference = np.array(
        [[x + 0.5, y + 0.5] for x in range(4) for y in range(4) if (x, y) != (3, 3)] + [[0, 0], [4, 4]]
    )
    grid = CoverageGrid(reference, bins=4)
    assert len(grid.reference_cells) == 16  # the corner point (4, 4) lands in the last cell
    model = np.array([[0.2, 0.2], [0.3, 0.4], [1.5, 2.5], [9.0, 9.0], [-1.0, 0.5]])
    assert grid.fraction(model) == 2 / 16  # two distinct covered cells; points outside do not count
    assert grid.fraction(reference) == 1.0


def test_ground_truth_against_itself_covers_everything():
    rng = np.random.default_rng(0)
    points = rng.normal(size=(5000, 2))
    assert CoverageGrid(points, bins=100).fraction(points) == 1.0
