"""The independent certificate checker, a package apart from the writer
(:mod:`certdp.certificates`): ``python -m certdp.verifier FILE`` or ``certdp verify FILE``.
What it trusts and what it re-derives: ``certdp/verifier/README.md``.

Nothing is imported here eagerly (``python -m certdp.verifier`` and ``import
certdp.verifier.checker`` run this first): :func:`check`, :func:`load`,
:func:`verify`, :class:`CheckResult` and :class:`MalformedCertificate` load on
first use (PEP 562).
"""

import importlib

_HOME = {"check": "checker", "load": "checker", "verify": "checker", "CheckResult": "checker",
         "MalformedCertificate": "schema"}
__all__ = list(_HOME)


def __getattr__(name: str) -> object:
    if name not in _HOME:
        raise AttributeError(f"module 'certdp.verifier' has no attribute {name!r}")
    return getattr(importlib.import_module(f"certdp.verifier.{_HOME[name]}"), name)
