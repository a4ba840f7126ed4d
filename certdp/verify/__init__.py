"""The independent certificate checker, a package apart from the writer
(:mod:`certdp.certificates`): ``python -m certdp.verify FILE`` or ``certdp verify FILE``.
What it trusts and what it re-derives: ``certdp/verify/README.md``.

Nothing is imported here eagerly (``python -m certdp.verify`` and ``import
certdp.verify.checker`` run this first): :func:`check`, :func:`load`,
:func:`verify`, :class:`CheckResult` and :class:`MalformedCertificate` load on
first use (PEP 562).
"""

import importlib

_HOME = {"check": "checker", "load": "checker", "verify": "checker", "CheckResult": "checker",
         "MalformedCertificate": "schema"}
__all__ = list(_HOME)


def __getattr__(name: str) -> object:
    if name not in _HOME:
        raise AttributeError(f"module 'certdp.verify' has no attribute {name!r}")
    return getattr(importlib.import_module(f"certdp.verify.{_HOME[name]}"), name)
