"""The σ-formulas of noise refinements, sympy-free (Liu et al. 2022 App. C, §5.2).

A noise-refinement certificate names σ = f(eps, delta) in ``claim.formula`` and its
target in ``claim.at`` (closed forms such as ``exp(-2)``).  This module reads that text
with its own tokenizer and recursive-descent parser (nothing is executed) into an exact
tree, and evaluates it, with its derivative by forward-mode differentiation, in balls
(python-flint) or in mpmath intervals.  Grammar (precedence as in Python; ``**`` and
``^`` are the same right-associative power and bind tighter than unary minus)::

    expr   := term (('+' | '-') term)*
    term   := factor (('*' | '/') factor)*
    factor := ('+' | '-') factor | power
    power  := atom (('**' | '^') factor)?
    atom   := NUMBER | 'eps' | 'delta' | 'pi' | 'E' | FN '(' expr ')' | '(' expr ')'
    FN     := 'log' | 'exp' | 'sqrt'

Numbers are exact (``0.1`` is 1/10, ``1e-5`` is 1/100000).  A power's exponent is an
exact rational (``eps**(1/2)``, ``delta^-2``).  The safe parser of user expressions
(:mod:`certdp.expr.parser`) accepts more (``if``, ``Piecewise``, ``Max``, ``Min``,
``Abs``, ``erf``, ``erfc``, ``Phi``, powers with variable exponents): those formulas raise
:class:`Unsupported`, and the checker takes the sympy route for them.  Every other
rejection is a :class:`MalformedCertificate` naming the token.

Evaluation never returns a wrong number: where a domain condition is not proved on the
argument (log of a ball not proved positive, division by a ball not proved non-zero,
sqrt of a ball not proved non-negative, its derivative at a ball not proved positive),
the value is the backend's "undecided" (a NaN ball, the whole real line in intervals).
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Mapping

from flint import arb

from certdp.verifier.ball import to_ball
from certdp.verifier.errors import InputError
from certdp.verifier.exact import exact
from certdp.verifier.schema import MalformedCertificate

#: Longest accepted formula text (characters).
MAX_TEXT = 2_000
#: Deepest accepted nesting of parentheses, calls, unary signs and powers.
MAX_DEPTH = 60
#: Longest accepted numeral (characters).
MAX_NUMERAL = 200
#: Largest |numerator| and denominator of a power's exponent.
MAX_EXPONENT = 10_000

#: Names the safe parser knows and this grammar does not (the sympy route).
OTHER_NAMES = frozenset({"if", "Piecewise", "Max", "Min", "Abs", "erf", "erfc", "Phi", "oo", "True"})


class Unsupported(MalformedCertificate):
    """A construct of the safe parser's language outside this grammar."""


class Op(enum.Enum):
    NUM = "number"
    VAR = "variable"
    PI = "pi"
    E = "E"
    NEG = "unary -"
    ADD = "+"
    SUB = "-"
    MUL = "*"
    DIV = "/"
    POW = "**"
    LOG = "log"
    EXP = "exp"
    SQRT = "sqrt"


@dataclass(frozen=True)
class Node:
    """One node of the exact tree: ``q`` is the number (NUM) or the exponent (POW)."""

    op: Op
    kids: tuple["Node", ...] = ()
    q: Fraction | None = None
    name: str | None = None

    def variables(self) -> frozenset[str]:
        own = frozenset({self.name}) if self.op is Op.VAR and self.name else frozenset()
        return own.union(*(k.variables() for k in self.kids))


_FUNCTIONS = {"log": Op.LOG, "exp": Op.EXP, "sqrt": Op.SQRT}
_TOKEN = re.compile(
    r"(?P<ws>\s+)|(?P<num>(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)"
    r"|(?P<name>[A-Za-z_][A-Za-z_0-9]*)|(?P<op>\*\*|[-+*/()^])|(?P<cond><=|>=|[<>,])",
    re.ASCII,
)


def num(q: Fraction | int) -> Node:
    return Node(Op.NUM, q=Fraction(q))


def var(name: str) -> Node:
    return Node(Op.VAR, name=name)


def call(op: Op, *kids: Node) -> Node:
    return Node(op, tuple(kids))


def _tokens(text: str, where: str) -> list[tuple[str, str, int]]:  # (kind, text, position)
    if len(text) > MAX_TEXT:
        raise MalformedCertificate(f"{where} is longer than {MAX_TEXT} characters")
    out, pos = [], 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            raise MalformedCertificate(f"{where}: unexpected character {text[pos]!r} at position {pos}")
        kind = m.lastgroup or ""
        if kind == "cond" or (kind == "name" and m.group() in OTHER_NAMES):
            raise Unsupported(f"{where}: {m.group()!r} at position {pos} is outside the checker's own formula grammar")
        if kind != "ws":
            out.append((kind, m.group(), pos))
        pos = m.end()
    out.append(("end", "", len(text)))
    return out


class _Parser:
    def __init__(self, text: str, variables: tuple[str, ...], where: str) -> None:
        self.toks, self.i, self.depth = _tokens(text, where), 0, 0
        self.variables, self.where = variables, where

    def fail(self, what: str) -> MalformedCertificate:
        kind, text, pos = self.toks[self.i]
        tok = "the end" if kind == "end" else repr(text)
        return MalformedCertificate(f"{self.where}: {what}, got {tok} at position {pos}")

    def at(self, *ops: str) -> bool:
        kind, text, _ = self.toks[self.i]
        return kind == "op" and text in ops

    def take(self) -> tuple[str, str, int]:
        self.i += 1
        return self.toks[self.i - 1]

    def nest(self, parse: Callable[[], Node]) -> Node:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise self.fail(f"nesting deeper than {MAX_DEPTH}")
        try:
            return parse()
        finally:
            self.depth -= 1

    def expr(self) -> Node:
        node = self.term()
        while self.at("+", "-"):
            op = Op.ADD if self.take()[1] == "+" else Op.SUB
            node = call(op, node, self.term())
        return node

    def term(self) -> Node:
        node = self.factor()
        while self.at("*", "/"):
            op = Op.MUL if self.take()[1] == "*" else Op.DIV
            node = call(op, node, self.factor())
        return node

    def factor(self) -> Node:
        if self.at("+", "-"):
            neg = self.take()[1] == "-"
            inner = self.nest(self.factor)
            return call(Op.NEG, inner) if neg else inner
        return self.power()

    def power(self) -> Node:
        base = self.atom()
        if not self.at("**", "^"):
            return base
        self.take()
        start = self.i
        q = _rational(self.nest(self.factor))
        if q is None:
            self.i = start
            raise Unsupported(f"{self.where}: a power's exponent at position {self.toks[start][2]} is not a rational "
                              "number (outside the checker's own formula grammar)")
        if abs(q.numerator) > MAX_EXPONENT or q.denominator > MAX_EXPONENT:
            raise MalformedCertificate(f"{self.where}: exponent {q} is larger than {MAX_EXPONENT}")
        return Node(Op.POW, (base,), q=q)

    def atom(self) -> Node:
        kind, text, pos = self.toks[self.i]
        if kind == "num":
            self.take()
            if len(text) > MAX_NUMERAL:
                raise MalformedCertificate(f"{self.where}: numeral at position {pos} is longer than {MAX_NUMERAL}")
            try:
                return num(exact(text, self.where))
            except InputError as err:
                raise MalformedCertificate(str(err)) from None
        if kind == "name":
            self.take()
            if text in _FUNCTIONS:
                if not self.at("("):
                    raise self.fail(f"{text} needs '('")
                self.take()
                arg = self.nest(self.expr)
                if not self.at(")"):
                    raise self.fail(f"expected ')' closing {text}(")
                self.take()
                return call(_FUNCTIONS[text], arg)
            if text in self.variables:
                return var(text)
            if text in ("pi", "E"):
                return Node(Op.PI if text == "pi" else Op.E)
            raise MalformedCertificate(f"{self.where}: unknown name {text!r} at position {pos}")
        if self.at("("):
            self.take()
            inner = self.nest(self.expr)
            if not self.at(")"):
                raise self.fail("expected ')'")
            self.take()
            return inner
        raise self.fail("expected a number, a name or '('")


def _rational(n: Node) -> Fraction | None:
    """The exact value of a tree of numbers, signs and + - * / (None otherwise)."""
    if n.op is Op.NUM:
        return n.q
    vals = [_rational(k) for k in n.kids]
    if n.op not in (Op.NEG, Op.ADD, Op.SUB, Op.MUL, Op.DIV) or any(v is None for v in vals):
        return None
    a, b = vals[0], vals[-1]
    assert a is not None and b is not None
    if n.op is Op.NEG:
        return -a
    if n.op is Op.DIV:
        return None if b == 0 else a / b
    return a + b if n.op is Op.ADD else a - b if n.op is Op.SUB else a * b


def parse(text: Any, variables: tuple[str, ...] = ("eps", "delta"), where: str = "claim.formula") -> Node:
    """The exact tree of ``text`` (MalformedCertificate / Unsupported on any problem)."""
    if not isinstance(text, str):
        raise MalformedCertificate(f"{where} must be a string")
    p = _Parser(text, variables, where)
    node = p.expr()
    if p.toks[p.i][0] != "end":
        raise p.fail("expected an operator or the end")
    return node


def substitute(n: Node, name: str, by: Node) -> Node:
    if n.op is Op.VAR:
        return by if n.name == name else n
    return Node(n.op, tuple(substitute(k, name, by) for k in n.kids), n.q, n.name) if n.kids else n


# -- evaluation: value and d/dx by forward mode ------------------------------------------


class Undefined(Exception):
    """A domain condition is not proved on the argument."""

@dataclass(frozen=True)
class Backend:
    """The arithmetic of one kernel: exact constants, functions, and the sign tests."""

    const: Callable[[Fraction], Any]
    pi: Callable[[], Any]
    e: Callable[[], Any]
    log: Callable[[Any], Any]
    exp: Callable[[Any], Any]
    sqrt: Callable[[Any], Any]
    pos: Callable[[Any], bool]  # proved > 0
    neg: Callable[[Any], bool]  # proved < 0
    nonneg: Callable[[Any], bool]  # proved >= 0
    undecided: Callable[[], Any]


def _nonzero(b: Backend, x: Any) -> bool:
    return b.pos(x) or b.neg(x)


def _eval(n: Node, env: Mapping[str, tuple[Any, Any]], b: Backend, want_d: bool) -> tuple[Any, Any]:
    """(value, d/dx) of ``n``; env maps a variable to (value, derivative); d is None unless want_d."""
    op, zero = n.op, (b.const(Fraction(0)) if want_d else None)
    if op is Op.NUM:
        assert n.q is not None
        return b.const(n.q), zero
    if op is Op.VAR:
        assert n.name is not None
        return env[n.name]
    if op in (Op.PI, Op.E):
        return (b.pi() if op is Op.PI else b.e()), zero
    u, du = _eval(n.kids[0], env, b, want_d)
    if op is Op.NEG:
        return -u, (-du if want_d else None)
    if op in (Op.ADD, Op.SUB, Op.MUL, Op.DIV):
        v, dv = _eval(n.kids[1], env, b, want_d)
        if op is Op.ADD:
            return u + v, (du + dv if want_d else None)
        if op is Op.SUB:
            return u - v, (du - dv if want_d else None)
        if op is Op.MUL:
            return u * v, (du * v + u * dv if want_d else None)
        if not _nonzero(b, v):
            raise Undefined
        w = u / v
        return w, ((du - w * dv) / v if want_d else None)
    if op is Op.LOG:
        if not b.pos(u):
            raise Undefined
        return b.log(u), (du / u if want_d else None)
    if op is Op.EXP:
        w = b.exp(u)
        return w, (w * du if want_d else None)
    if op is Op.SQRT:
        if not b.nonneg(u) or (want_d and not b.pos(u)):
            raise Undefined
        w = b.sqrt(u)
        return w, (du / (2 * w) if want_d else None)
    assert op is Op.POW and n.q is not None
    q = n.q
    if q.denominator == 1:
        k = q.numerator
        if k < 0 and not _nonzero(b, u):
            raise Undefined
        if k == 0:
            return b.const(Fraction(1)), zero
        w = u ** k if k > 0 else 1 / (u ** -k)
        return w, ((k * u ** (k - 1) if k > 1 else (1 if k == 1 else k / u ** (1 - k))) * du if want_d else None)
    if not b.pos(u):
        raise Undefined
    w = b.exp(b.log(u) * b.const(q))
    return w, (b.const(q) * w / u * du if want_d else None)


def evaluate(n: Node, env: Mapping[str, Any], b: Backend) -> Any:
    """The value of ``n`` at ``env`` (variable -> ball/interval); undecided where not proved."""
    try:
        return _eval(n, {k: (v, None) for k, v in env.items()}, b, False)[0]
    except (Undefined, ZeroDivisionError, ValueError):
        return b.undecided()


def value_and_slope(n: Node, x: Any, b: Backend, variable: str = "eps") -> tuple[Any, Any]:
    """(n, dn/dx) at the ball/interval x of ``n`` in one variable; undecided where not proved."""
    try:
        return _eval(n, {variable: (x, b.const(Fraction(1)))}, b, True)
    except (Undefined, ZeroDivisionError, ValueError):
        return b.undecided(), b.undecided()


BALLS = Backend(
    const=to_ball, pi=arb.pi, e=lambda: arb(1).exp(), log=lambda x: x.log(), exp=lambda x: x.exp(),
    sqrt=lambda x: x.sqrt(), pos=lambda x: bool(x > 0), neg=lambda x: bool(x < 0), nonneg=lambda x: bool(x >= 0),
    undecided=lambda: arb("nan"),
)


def intervals() -> Backend:
    """The mpmath-interval backend (mpmath loads only for the second kernel)."""
    from mpmath import iv, libmp  # noqa: PLC0415

    from certdp.verifier.iv import point  # noqa: PLC0415

    def finite(x: Any) -> bool:
        lo, hi = x._mpi_
        return lo not in (libmp.fninf, libmp.fnan) and hi not in (libmp.finf, libmp.fnan)

    return Backend(
        const=point, pi=lambda: iv.pi, e=lambda: iv.e, log=iv.log, exp=iv.exp, sqrt=iv.sqrt,
        pos=lambda x: finite(x) and bool(x.a > 0), neg=lambda x: finite(x) and bool(x.b < 0),
        nonneg=lambda x: finite(x) and bool(x.a >= 0), undecided=lambda: iv.mpf(["-inf", "inf"]),
    )
