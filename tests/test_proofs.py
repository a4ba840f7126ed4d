"""Every proof module in proofs/ must check out (and record its corrections)."""

import importlib

import pytest

from proofs import MODULES


@pytest.mark.parametrize("module", MODULES)
def test_proof_module(module):
    result = importlib.import_module(module).check()
    failed = [s.claim for s in result.steps if not s.ok]
    assert result.ok, f"{result.name}: failed steps {failed}"
    assert result.steps, "a proof must have steps"
