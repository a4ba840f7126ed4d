"""Packages of the ``test`` extra: a test that needs one FAILS where it is
missing, with an install hint, rather than skipping (a skipped test is no
evidence, and a CI without the extra would pass with the checks unrun)."""

from __future__ import annotations

import importlib
from types import ModuleType

import pytest

HINT = "install the test extra: python -m pip install -e '.[test]'"


def required(name: str) -> ModuleType:
    """``import name``, or fail the calling test (or module) with an install hint."""
    try:
        return importlib.import_module(name)
    except ImportError as err:
        pytest.fail(f"{name} is required by the tests ({err}): {HINT}", pytrace=False)
