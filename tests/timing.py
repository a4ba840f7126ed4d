"""Wall-clock limits without flakes: the default run checks what a test computes,
never how long it took (a loaded 2-core CI machine makes any limit a coin toss);
``-m slow`` runs the same test once more under a generous limit.

    @timed(15)
    def test_x(time_limit):
        with within(time_limit):
            r = compute()
        assert r == truth            # runs in both variants
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from typing import Iterator

import pytest


def timed(seconds: float):
    """Parametrize ``time_limit``: None in the default run, ``seconds`` under ``-m slow``."""
    return pytest.mark.parametrize("time_limit", [
        pytest.param(None, id="untimed"),
        pytest.param(seconds, id=f"within{seconds:g}s", marks=pytest.mark.slow),
    ])


@contextmanager
def within(seconds: float | None) -> Iterator[None]:
    """Assert the body took less than ``seconds`` (no check for None)."""
    start = time.perf_counter()
    yield
    elapsed = time.perf_counter() - start
    assert seconds is None or elapsed < seconds, f"took {elapsed:.1f} s, limit {seconds} s"
