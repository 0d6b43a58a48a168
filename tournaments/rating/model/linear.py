"""The one dense linear solver of the ratings: the global rating's Newton step over a
match's bots and the tournament fit's Newton step and covariance are small systems (a
handful to a few dozen rows, diagonally dominant), solved here by Gaussian elimination
with partial pivoting. The field's large sparse system has its own conjugate-gradient
solve (``rating.model.field.solve``): it never forms the dense matrix."""

from __future__ import annotations

from collections.abc import Sequence


def solve(matrix: Sequence[Sequence[float]], vector: Sequence[float]) -> list[float]:
    """x with matrix x = vector."""
    return _solve_many(matrix, [list(vector)])[0]


def inverse(matrix: Sequence[Sequence[float]]) -> list[list[float]]:
    """The inverse of ``matrix`` (each column solved against the same elimination)."""
    n = len(matrix)
    columns = _solve_many(matrix, [[1.0 if i == j else 0.0 for i in range(n)] for j in range(n)])
    return [[columns[j][i] for j in range(n)] for i in range(n)]


def _solve_many(
    matrix: Sequence[Sequence[float]], vectors: Sequence[Sequence[float]]
) -> list[list[float]]:
    """x_k with matrix x_k = vectors[k] for each k: forward elimination with partial
    pivoting over the augmented rows, then back substitution."""
    n = len(matrix)
    width = len(vectors)
    rows = [[*matrix[i], *(v[i] for v in vectors)] for i in range(n)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(rows[r][col]))
        rows[col], rows[pivot] = rows[pivot], rows[col]
        for r in range(col + 1, n):
            factor = rows[r][col] / rows[col][col]
            rows[r] = [a - factor * b for a, b in zip(rows[r], rows[col], strict=True)]
    solutions = []
    for k in range(width):
        x = [0.0] * n
        for r in reversed(range(n)):
            tail = sum(rows[r][c] * x[c] for c in range(r + 1, n))
            x[r] = (rows[r][n + k] - tail) / rows[r][r]
        solutions.append(x)
    return solutions
