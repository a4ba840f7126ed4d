"""Every proof module in proofs/ must check out (and record its corrections)."""

import importlib

import pytest

from proofs import COQ_MODULES, MODULES


@pytest.mark.parametrize("module", [m for m in MODULES if m not in COQ_MODULES])  # coqc: test_coq_kernel.py
def test_proof_module(module):
    result = importlib.import_module(module).check()
    failed = [s.claim for s in result.steps if not s.ok]
    assert result.ok, f"{result.name}: failed steps {failed}"
    assert result.steps, "a proof must have steps"


def test_thm31_checker_rejects_a_smaller_profile():
    """The exhaustive check must be able to fail: a profile that is too small
    (denominator 2 + e^ε0 instead of 1 + e^ε0) is violated by some event."""
    from proofs.seed000_thm31_tightness import d, violations, x, y

    _, bad = violations(d + (1 - d) * (y - x) / (2 + y), d)
    assert bad
    _, bad_hi = violations(d + (1 - d) * (y - x) / (1 + y), d / 2)
    assert bad_hi
