"""The mechanism spec grammar without the catalog: tokens and a recursive-descent
parser that hands each ``NAME(args)`` to a builder.

:mod:`certdp.mechanisms.spec` builds catalog mechanisms with it; the
certificate checker builds its own small mechanism table with it
(:mod:`certdp.verifier.mechs`), so that checking a certificate never loads
the catalog.  Grammar and limits: see :mod:`certdp.mechanisms.spec`.
Nothing is ever passed to ``eval``/``sympify``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from certdp.verifier.errors import InputError
from certdp.verifier.exact import parse_decimal

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


def unquote(text: str) -> str:
    return re.sub(r"\\([\"\\])", r"\1", text[1:-1])


class SpecParser:
    """Recursive-descent parser of the spec grammar (no eval).  Subclasses say
    what a name means (:meth:`resolve`, called before its arguments are read)
    and how a ``NAME(args)`` is built (:meth:`build`)."""

    def __init__(self, text: str, exclude: tuple[str, ...] = ()) -> None:
        self.tokens = tokenize(text)
        self.i = 0
        self.exclude = exclude

    def resolve(self, name: str, pos: int) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    def build(self, target: Any, name: str, positional: list[Any], keywords: dict[str, Any]) -> Any:
        raise NotImplementedError  # pragma: no cover - abstract

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
    def spec(self, depth: int) -> Any:
        if depth > MAX_DEPTH:
            raise InputError(f"mechanism spec nested deeper than {MAX_DEPTH} levels")
        tok = self.take()
        if tok.kind != "name":
            raise InputError(f"expected a mechanism name, got {tok.describe()}")
        if tok.text in self.exclude:
            raise InputError(f"mechanism {tok.text!r} is not accepted here")
        target = self.resolve(tok.text, tok.pos)
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
        return self.build(target, tok.text, positional, keywords)

    def parse(self) -> Any:
        """The whole text as one spec (InputError on trailing input)."""
        out = self.spec(0)
        end = self.peek()
        if end.kind != "end":
            raise InputError(f"unexpected {end.describe()} after the mechanism spec")
        return out

    def value(self, depth: int, what: str) -> Any:
        tok = self.peek()
        if tok.kind == "name":
            nxt = self.peek(1)
            if not (nxt.kind == "punct" and nxt.text == "("):
                raise InputError(f"{what}: expected a number, string or mechanism, got name {tok.describe()}")
            return self.spec(depth + 1)
        if tok.kind == "string":
            self.i += 1
            return unquote(tok.text)
        return self.number(what)

    def number(self, what: str) -> Any:
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


