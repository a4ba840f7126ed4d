import os
import sys

sys.path.insert(0, os.path.dirname(__file__))

import flint  # noqa: E402
import mpmath  # noqa: E402
import pytest  # noqa: E402
from hypothesis import settings  # noqa: E402

# the default run is deterministic (no flake on a fresh CI clone: a random seed once found a
# slow input and spent the run shrinking it); `HYPOTHESIS_PROFILE=thorough` hunts with random seeds
settings.register_profile("default", deadline=None, max_examples=60, derandomize=True)
settings.register_profile("thorough", deadline=None, max_examples=1000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


# -- no leaked global precision ------------------------------------------------
# mpmath's mp and iv contexts and flint's ctx are process-wide: a test module
# that changes one and does not restore it makes every later module's numbers
# depend on the order the tests ran in.  Use the `mp_digits(n)` fixture of
# tests/refs.py, mpmath.workdps / workprec, certdp's working_precision, or
# restore by hand in a finally.


def _precisions() -> dict[str, int]:
    return {"mpmath.mp.prec": mpmath.mp.prec, "mpmath.iv.prec": mpmath.iv.prec, "flint.ctx.prec": flint.ctx.prec}


def _restore(saved: dict[str, int]) -> None:
    mpmath.mp.prec = saved["mpmath.mp.prec"]
    mpmath.iv.prec = saved["mpmath.iv.prec"]
    flint.ctx.prec = saved["flint.ctx.prec"]


def _leaks(before: dict[str, int], after: dict[str, int]) -> str:
    return ", ".join(f"{k} {before[k]} -> {after[k]}" for k in before if before[k] != after[k])


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    """Importing a test module (collection) must not change the precision:
    module-level assignments run here, before any fixture could see them."""
    before = _precisions()
    outcome = yield
    after = _precisions()
    if isinstance(collector, pytest.Module) and before != after:
        _restore(before)
        report = outcome.get_result()
        report.outcome = "failed"
        report.longrepr = f"importing {collector.nodeid} leaked global precision: {_leaks(before, after)}"


@pytest.fixture(autouse=True, scope="module")
def _no_leaked_precision(request):
    """The precision is the same before and after each test module."""
    before = _precisions()
    yield
    after = _precisions()
    if before != after:
        _restore(before)
        pytest.fail(f"test module {request.module.__name__} leaked global precision: {_leaks(before, after)}", pytrace=False)
