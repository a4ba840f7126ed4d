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
  tokenizer and recursive-descent parser.  Inputs longer than
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

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from certdp.errors import InputError
from certdp.mechanisms.base import Mechanism
from certdp.mechanisms.format import MAX_DECIMAL_DIGITS, format_number, format_spec, format_value  # noqa: F401 (re-exported)
from certdp.numerics.exact import parse_decimal

#: Longest accepted spec text (characters).
MAX_SPEC_LENGTH = 100_000
#: Deepest accepted nesting of mechanisms.
MAX_DEPTH = 32

_TOKEN = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<number>(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)
  | (?P<name>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<string>"(?:[^"\\]|\\["\\])*")
  | (?P<punct>[(),=/+-])
    """,
    re.VERBOSE | re.ASCII,  # ASCII digits and names only: one reading of every spec
)


@dataclass(frozen=True)
class SpecToken:
    kind: str  # "number", "name", "string", "punct", "end"
    text: str
    pos: int

    def describe(self) -> str:
        if self.kind == "end":
            return "end of input"
        return f"{self.text!r} at position {self.pos}"


def tokenize(text: str) -> list[SpecToken]:
    """Split ``text`` into tokens; InputError naming the first bad character."""
    if not isinstance(text, str):
        raise InputError(f"a mechanism spec must be a string, got {type(text).__name__}")
    if len(text) > MAX_SPEC_LENGTH:
        raise InputError(f"mechanism spec of {len(text)} characters is too long (max {MAX_SPEC_LENGTH})")
    tokens: list[SpecToken] = []
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m:
            ch = text[pos]
            if ch == '"':
                raise InputError(f"unterminated or malformed string starting at position {pos}")
            raise InputError(f"unexpected character {ch!r} at position {pos} in mechanism spec")
        kind = m.lastgroup
        assert kind is not None
        if kind != "ws":
            tokens.append(SpecToken(kind, m.group(), pos))
        pos = m.end()
    tokens.append(SpecToken("end", "", len(text)))
    return tokens


def _unquote(text: str) -> str:
    return re.sub(r"\\([\"\\])", r"\1", text[1:-1])


class _SpecParser:
    """Recursive-descent parser of the spec grammar (no eval)."""

    def __init__(self, text: str, exclude: tuple[str, ...] = ()) -> None:
        self.tokens = tokenize(text)
        self.i = 0
        self.exclude = exclude

    def peek(self, offset: int = 0) -> SpecToken:
        return self.tokens[min(self.i + offset, len(self.tokens) - 1)]

    def take(self) -> SpecToken:
        tok = self.peek()
        self.i += 1
        return tok

    def expect(self, text: str, context: str) -> SpecToken:
        tok = self.take()
        if tok.kind != "punct" or tok.text != text:
            raise InputError(f"expected {text!r} {context}, got {tok.describe()}")
        return tok

    # spec := NAME "(" [args] ")"
    def spec(self, depth: int) -> Mechanism:
        if depth > MAX_DEPTH:
            raise InputError(f"mechanism spec nested deeper than {MAX_DEPTH} levels")
        tok = self.take()
        if tok.kind != "name":
            raise InputError(f"expected a mechanism name, got {tok.describe()}")
        cls = lookup(tok.text, tok.pos, self.exclude)
        self.expect("(", f"after mechanism name {tok.text!r}")
        positional: list[Any] = []
        keywords: dict[str, Any] = {}
        while not (self.peek().kind == "punct" and self.peek().text == ")"):
            nxt, after = self.peek(), self.peek(1)
            if nxt.kind == "name" and after.kind == "punct" and after.text == "=":
                self.i += 2
                if nxt.text in keywords:
                    raise InputError(f"{tok.text}: parameter {nxt.text!r} given twice (position {nxt.pos})")
                keywords[nxt.text] = self.value(depth, f"{tok.text}: parameter {nxt.text!r}")
            else:
                if keywords:
                    raise InputError(
                        f"{tok.text}: positional argument {nxt.describe()} after keyword arguments"
                    )
                positional.append(self.value(depth, f"{tok.text}: argument {len(positional) + 1}"))
            sep = self.peek()
            if sep.kind == "punct" and sep.text == ",":
                self.i += 1
                continue
            if not (sep.kind == "punct" and sep.text == ")"):
                raise InputError(f"expected ',' or ')' in {tok.text}(...), got {sep.describe()}")
        self.expect(")", f"to close {tok.text}(")
        declared = getattr(cls, "PARAMS", None)
        if declared is not None:
            names = [p.name for p in declared]
            for key in keywords:
                if key not in names:
                    raise InputError(
                        f"{tok.text}: unknown parameter {key!r} (parameters: {', '.join(names)})"
                    )
            # a quoted string is text, never a number (the Python API accepts
            # decimal strings for numbers; the grammar does not)
            bound = list(zip(declared, positional)) + [
                (p, keywords[p.name]) for p in declared if p.name in keywords
            ]
            for p, v in bound:
                if isinstance(v, str) and p.kind != "string":
                    raise InputError(f"{tok.text}: parameter {p.name} must be a {p.kind}, got the string {v!r}")
            return cls(*positional, **keywords)
        try:
            return cls(*positional, **keywords)
        except TypeError as err:  # a mechanism without declared PARAMS
            raise InputError(f"{tok.text}: {err}") from None

    def value(self, depth: int, what: str) -> Any:
        tok = self.peek()
        if tok.kind == "name":
            nxt = self.peek(1)
            if not (nxt.kind == "punct" and nxt.text == "("):
                raise InputError(f"{what}: expected a number, string or mechanism, got name {tok.describe()}")
            return self.spec(depth + 1)
        if tok.kind == "string":
            self.i += 1
            return _unquote(tok.text)
        return self.number(what)

    def number(self, what: str) -> Fraction:
        sign = 1
        tok = self.take()
        if tok.kind == "punct" and tok.text in "+-":
            sign = -1 if tok.text == "-" else 1
            tok = self.take()
        if tok.kind != "number":
            raise InputError(f"{what}: expected a number, got {tok.describe()}")
        value = parse_decimal(tok.text)
        slash = self.peek()
        if slash.kind == "punct" and slash.text == "/":
            self.i += 1
            den_tok = self.take()
            if den_tok.kind != "number":
                raise InputError(f"{what}: expected a denominator after '/', got {den_tok.describe()}")
            den = parse_decimal(den_tok.text)
            if den == 0:
                raise InputError(f"{what}: division by zero at position {den_tok.pos}")
            value = value / den
        return sign * value


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
    p = _SpecParser(text, exclude)
    mech = p.spec(0)
    end = p.peek()
    if end.kind != "end":
        raise InputError(f"unexpected {end.describe()} after the mechanism spec")
    return mech


# ---------------------------------------------------------------------------
# canonical output
# ---------------------------------------------------------------------------


