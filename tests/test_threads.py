"""Tests of bayescal.threads: the BLAS thread limit, with its cached threadpoolctl controller."""

from __future__ import annotations

import sys

import numpy as np
from threadpoolctl import threadpool_info, threadpool_limits

from bayescal import threads
from bayescal.threads import limit_blas_threads


def _blas_threads() -> list[int]:
    return [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]


def test_limit_applies_inside_and_restores_after_every_time():
    with threadpool_limits(limits=2, user_api="blas"):
        assert _blas_threads() and all(t == 2 for t in _blas_threads())
        for _ in range(3):  # the second and third calls reuse the cached controller
            with limit_blas_threads(1):
                assert all(t == 1 for t in _blas_threads())
                _ = np.ones((20, 20)) @ np.ones((20, 20))
            assert all(t == 2 for t in _blas_threads())


def test_controller_is_rebuilt_after_new_imports(monkeypatch):
    first = threads._controller()
    assert threads._controller() is first
    monkeypatch.setitem(sys.modules, "bayescal_test_new_module", object())
    assert threads._controller() is not first


def test_none_leaves_the_pools_alone():
    before = _blas_threads()
    with limit_blas_threads(None):
        assert _blas_threads() == before
