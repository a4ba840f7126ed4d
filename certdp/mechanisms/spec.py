"""The mechanism spec grammar: one small language that names a mechanism
everywhere (CLI, claims files, certificates).

Grammar (whitespace is ignored between tokens)::

    spec     := NAME "(" [ args ] ")"
    args     := arg ( "," arg )* [ "," ]
    arg      := value | NAME "=" value          (positional args first)
    value    := spec | STRING | number
    number   := [ "+" | "-" ] DECIMAL [ "/" DECIMAL ]
    DECIMAL  := digits [ "." digits ] [ ("e"|"E") [sign] digits ]  |  "." digits [exponent]
    STRING   := '"' ( any char except '"' and '\\' | '\\"' | '\\\\' )* '"'

* Numbers are exact: ``1/2``, ``0.1`` (= 1/10), ``1e-5``, ``-3``, ``2.5e-3/7``.
* Positional arguments bind to the declared parameters in order (as in
  Python), e.g. ``subsample(laplace(scale=1), rate=0.1)``; keywords may follow.
* Strings are only meaningful for ``profile("...")``; the expression inside is
  parsed by the safe expression parser, never evaluated as Python.
* Nothing is ever passed to ``eval``/``sympify``: this is a hand-written
  tokenizer and recursive-descent parser (:mod:`certdp.expr.spec_grammar`,
  shared with the certificate checker, which binds names to its own table).  Inputs longer than
  :data:`MAX_SPEC_LENGTH` characters or nested deeper than :data:`MAX_DEPTH`
  are rejected.

:func:`format_spec` writes the canonical form: every parameter is written
(defaults included), leading mechanism/string parameters positionally and
numbers as ``key=value``; a number is written as an exact decimal when it has
a short one (``0.5``, ``1e-5``) and as ``p/q`` otherwise (``1/3``).  Hence
``parse_spec(format_spec(m)) == m`` and ``format_spec(parse_spec(s))`` is a
fixed point.
"""

from __future__ import annotations

from typing import Any

from certdp.errors import InputError
from certdp.expr.spec_grammar import MAX_DEPTH, MAX_SPEC_LENGTH, SpecParser, SpecToken, tokenize  # noqa: F401 (re-exported)
from certdp.mechanisms.base import Mechanism
from certdp.mechanisms.format import MAX_DECIMAL_DIGITS, format_number, format_spec, format_value  # noqa: F401 (re-exported)


class _SpecParser(SpecParser):
    """The grammar's parser building catalog mechanisms."""

    def resolve(self, name: str, pos: int) -> Any:
        return lookup(name, pos, self.exclude)

    def build(self, cls: Any, name: str, positional: list[Any], keywords: dict[str, Any]) -> Mechanism:
        declared = getattr(cls, "PARAMS", None)
        if declared is not None:
            names = [p.name for p in declared]
            for key in keywords:
                if key not in names:
                    raise InputError(
                        f"{name}: unknown parameter {key!r} (parameters: {', '.join(names)})"
                    )
            # a quoted string is text, never a number (the Python API accepts
            # decimal strings for numbers; the grammar does not)
            bound = list(zip(declared, positional)) + [
                (p, keywords[p.name]) for p in declared if p.name in keywords
            ]
            for p, v in bound:
                if isinstance(v, str) and p.kind != "string":
                    raise InputError(f"{name}: parameter {p.name} must be a {p.kind}, got the string {v!r}")
            return cls(*positional, **keywords)
        try:
            return cls(*positional, **keywords)
        except TypeError as err:  # a mechanism without declared PARAMS
            raise InputError(f"{name}: {err}") from None


def lookup(name: str, pos: int | None = None, exclude: tuple[str, ...] = ()) -> type:
    """The catalog class named ``name`` (InputError listing the known names)."""
    from certdp.mechanisms.catalog import CATALOG, entry  # noqa: PLC0415 (catalog imports us)

    if name in exclude:
        raise InputError(f"mechanism {name!r} is not accepted here")
    try:
        return entry(name)
    except KeyError:
        where = "" if pos is None else f" at position {pos}"
        raise InputError(
            f"unknown mechanism {name!r}{where} (known: {', '.join(CATALOG)})"
        ) from None


def parse_spec(text: str, exclude: tuple[str, ...] = ()) -> Mechanism:
    """Parse a mechanism spec like ``subsample(laplace(scale=1/2), rate=0.1)``;
    catalog names in ``exclude`` are refused (the certificate checker excludes
    ``tradeoff``, whose construction needs symbolic solving)."""
    return _SpecParser(text, exclude).parse()
