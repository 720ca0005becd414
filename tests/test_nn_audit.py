"""Gaps found auditing issue 9 against main, filled and checked against torch:
nn.functional.one_hot."""
import numpy as np
import pytest

from oracle import check, check_error


@pytest.mark.parametrize("idx, n", [
    (np.array([0, 2, 1]), -1), (np.array([[0, 2], [1, 1]]), 4), (np.array(2), 3),
    (np.zeros((0,), np.int64), 3), (np.array([0, 1]), np.int64(3))])
def test_one_hot(idx, n):
    check(lambda lib, t: lib.nn.functional.one_hot(t, n), idx, grad=False)
    check(lambda lib, t: lib.nn.functional.one_hot(t, num_classes=n), idx, grad=False)


@pytest.mark.parametrize("make, n", [
    (lambda lib: lib.tensor([0.0, 1.0]), -1),
    (lambda lib: lib.tensor([0, 1], dtype=lib.int32), 3),
    (lambda lib: lib.tensor([0, 3]), 3),
    (lambda lib: lib.tensor([-1, 0]), -1),
    (lambda lib: lib.tensor([-1, 0]), 2),
    (lambda lib: lib.tensor([5]), -3),
    (lambda lib: lib.tensor([0]), 0),
    (lambda lib: lib.zeros(0, dtype=lib.long), -1),
    (lambda lib: lib.zeros(0, dtype=lib.long), 0),
    (lambda lib: lib.tensor([0, 1]), 2.0),
    (lambda lib: lib.tensor([0, 1]), True),
    (lambda lib: [0, 1], 3),
])
def test_one_hot_errors(make, n):
    check_error(lambda lib: lib.nn.functional.one_hot(make(lib), n))
