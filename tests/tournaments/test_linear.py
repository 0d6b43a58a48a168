"""The ratings' one dense solver (rating.model.linear) against systems worked by hand."""

from __future__ import annotations

import random

import pytest

from tournaments.rating.model import linear


def test_it_solves_a_system_that_needs_a_pivot() -> None:
    # The first pivot is zero: without row exchange the elimination would divide by it.
    matrix = [[0.0, 2.0, 1.0], [1.0, 1.0, 0.0], [2.0, 0.0, 3.0]]
    x = linear.solve(matrix, [5.0, 3.0, 11.0])
    assert x == pytest.approx([1.75, 1.25, 2.5])
    assert [sum(a * b for a, b in zip(row, x, strict=True)) for row in matrix] == pytest.approx(
        [5.0, 3.0, 11.0]
    )


def test_the_inverse_times_the_matrix_is_the_identity() -> None:
    rng = random.Random(1)
    n = 7
    matrix = [[rng.uniform(-1, 1) + (n if i == j else 0.0) for j in range(n)] for i in range(n)]
    inverse = linear.inverse(matrix)
    for i in range(n):
        for j in range(n):
            product = sum(matrix[i][k] * inverse[k][j] for k in range(n))
            assert product == pytest.approx(1.0 if i == j else 0.0, abs=1e-12)
