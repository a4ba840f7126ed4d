"""Trusted numerical kernel: exact inputs, ball arithmetic, enclosures, and the
certified normal / Gaussian-DP primitives.  Nothing here searches for bounds
that it does not also certify.

The public names load on first use (PEP 562), so that importing one submodule
(``certdp.numerics.ball``, as the certificate checker does) does not load the
others (enclosures, root finding: issue 36, the checker's import closure)."""

import importlib
import sys
import types

#: Where each public name lives.
_HOME = {
    "Enclosure": "enclosure", "exact": "exact", "parse_decimal": "exact",
    "Phi": "normal", "Phi_inv": "normal", "log_Phi": "normal", "mills_ratio": "normal",
    "delta_mu": "gdp", "mu_from_eps_delta": "gdp", "eps_from_mu_delta": "gdp", "tradeoff_mu": "gdp",
    "mu_from_pure_dp": "gdp",
}
__all__ = list(_HOME)


def __getattr__(name: str) -> object:
    if name not in _HOME:
        raise AttributeError(f"module 'certdp.numerics' has no attribute {name!r}")
    value = globals()[name] = getattr(importlib.import_module(f"certdp.numerics.{_HOME[name]}"), name)
    return value


class _Package(types.ModuleType):
    """Keeps ``certdp.numerics.exact`` the function, not the submodule the import system
    binds there on its first import (as when the package imported it eagerly)."""

    def __setattr__(self, name: str, value: object) -> None:
        if not (name in _HOME and isinstance(value, types.ModuleType)):
            super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
