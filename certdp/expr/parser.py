"""A safe parser for user-supplied expressions (privacy profiles δ(ε), penalty
functions g(x), ...).

User text is untrusted, and sympy's ``sympify``/``parse_expr`` run Python
code, so this module has its own tokenizer and recursive-descent parser.  It
builds sympy objects only through a fixed table of constructors applied to
already-parsed operands; nothing from the text is ever executed or looked up
dynamically.

Grammar (precedence as in Python; ``**`` is right-associative and binds
tighter than unary minus, so ``-x**2 = -(x**2)`` and ``2**-1 = 1/2``)::

    expr    := term (('+' | '-') term)*
    term    := factor (('*' | '/') factor)*
    factor  := ('+' | '-') factor | power
    power   := atom ('**' factor)?
    atom    := NUMBER | NAME | NAME '(' args ')' | '(' expr ')'
    cond    := 'True' | expr ('<' | '<=' | '>' | '>=') expr
    calls   := exp(e) log(e) sqrt(e) erf(e) erfc(e) Phi(e) Abs(e)
               Max(e, ...) Min(e, ...) if(cond, e, e)
               Piecewise((e, cond), ..., (e, cond))

* Numbers are exact: ``0.1`` is 1/10, ``1e-5`` is 1/100000, ``1/3`` is a
  Rational (integer division).  No floats are ever created.
* ``^`` is **rejected** (in Python it is XOR; the message says to use ``**``).
* Constants ``pi``, ``E`` and ``oo``; the variables given by the caller
  (``eps`` -> :data:`~certdp.expr.symbols.EPS`, ``x`` -> :data:`X`);
  named parameters are replaced by their exact Rational value.
* ``Phi(t)`` (standard normal CDF) is represented as ``erfc(-t/sqrt(2))/2``.
* Limits against absurd input: text length, nesting depth, numeral length,
  decimal exponents, powers whose result would be a huge exact number, and
  the number of Max/Min calls that sympy may simplify symbolically (each
  pairwise comparison can take ~0.1 s; the others are built unevaluated).

Every rejection is an :class:`~certdp.errors.InputError` whose message names
the offending token and its (0-based) character position.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Mapping, Sequence

import sympy

from certdp.verifier.errors import InputError
from certdp.expr.symbols import symbol_for
from certdp.verifier.exact import exact

#: Longest accepted expression text (characters).
MAX_TEXT = 4_000
#: Deepest accepted nesting of parentheses / calls / unary operators.
MAX_DEPTH = 80
#: Longest accepted numeral (characters).
MAX_NUMERAL = 2500  # ~ the largest number a power may build (MAX_RESULT_BITS), printed
#: Largest accepted decimal exponent in a numeral (``1e-1000`` is fine).
MAX_DECIMAL_EXPONENT = 1000
#: Largest accepted |numeric exponent| in a power (numerator and denominator).
MAX_POWER_EXPONENT = 10_000
#: Largest exact rational (in bits of numerator + denominator) a power may build.
MAX_RESULT_BITS = 8192
#: Largest exact rational (bits) under a root: sympy factors it to simplify.
MAX_ROOT_BITS = 1024

#: Max/Min calls simplified symbolically by sympy (the rest stay unevaluated).
MAX_LATTICE_SIMPLIFY = 16
#: ... and only when they have at most this many (flattened) arguments.
MAX_LATTICE_ARGS_SIMPLIFY = 4

_TOKEN = re.compile(
    r"""(?P<ws>\s+)
      | (?P<num>(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)
      | (?P<name>[A-Za-z_][A-Za-z_0-9]*)
      | (?P<op>\*\*|<=|>=|[-+*/(),<>^])""",
    re.VERBOSE | re.ASCII,
)

_UNARY_FUNCTIONS: dict[str, Callable[[sympy.Expr], sympy.Expr]] = {
    "exp": sympy.exp,
    "log": sympy.log,
    "sqrt": sympy.sqrt,
    "erf": sympy.erf,
    "erfc": sympy.erfc,
    "Abs": sympy.Abs,
    "Phi": lambda t: sympy.erfc(-t / sympy.sqrt(2)) / 2,
}
_VARIADIC = {"Max": sympy.Max, "Min": sympy.Min}
_SPECIAL = {"Piecewise", "if"}
_CONSTANTS = {"pi": sympy.pi, "E": sympy.E, "oo": sympy.oo}
_RELATIONS = {"<": sympy.Lt, "<=": sympy.Le, ">": sympy.Gt, ">=": sympy.Ge}

#: Names with a fixed meaning; variables and parameters may not use them.
RESERVED = frozenset(_UNARY_FUNCTIONS) | frozenset(_VARIADIC) | _SPECIAL | frozenset(_CONSTANTS) | {
    "True",
    "False",
}
_IDENT = re.compile(r"[A-Za-z][A-Za-z_0-9]*\Z", re.ASCII)


def _root_unevaluated(fn: Callable[..., sympy.Basic], args: tuple) -> sympy.Expr | None:
    """A root or power kept unevaluated (the same value) when sympy raised ValueError
    building it, else None: sympy 1.14's factor cache rejects a composite cofactor of
    a large radicand (``sqrt(1 + (45e29)**2)``, ``sqrt(N*eps**2)``; test_expr_fuzz)."""
    if fn is sympy.sqrt and len(args) == 1:
        return sympy.Pow(args[0], sympy.S.Half, evaluate=False)
    if fn is sympy.Pow and len(args) == 2:
        return sympy.Pow(args[0], args[1], evaluate=False)
    return None


def _check_exp_of_log(tok: "Token", arg: sympy.Expr) -> None:
    """The caps of '**' for exp(c·log(r)), which sympy rewrites as r**c (a huge c hung it)."""
    for c, rest in (t.as_coeff_Mul() for t in sympy.Add.make_args(arg)):
        logs = [f.args[0] for f in sympy.Mul.make_args(rest) if isinstance(f, sympy.log)]
        if logs and isinstance(c, sympy.Rational) and (abs(c.p) > MAX_POWER_EXPONENT or c.q > MAX_POWER_EXPONENT or any(
                isinstance(r, sympy.Rational) and _bits(r) * abs(c.p) > MAX_RESULT_BITS for r in logs)):
            raise InputError(f"{_describe(tok)} of {c}·log(...) would build an exact power beyond the caps of '**'")


@dataclass(frozen=True)
class Token:
    kind: str  # "num" | "name" | "op" | "end"
    text: str
    pos: int


def _describe(tok: Token) -> str:
    if tok.kind == "end":
        return "end of input"
    return f"{tok.text!r} at position {tok.pos}"


def tokenize(text: str) -> list[Token]:
    """Split ``text`` into tokens; reject any character outside the grammar."""
    tokens: list[Token] = []
    pos = 0
    n = len(text)
    while pos < n:
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            raise InputError(f"unexpected character {text[pos]!r} at position {pos}")
        kind = m.lastgroup
        assert kind is not None
        if kind != "ws":
            tok = Token(kind, m.group(), pos)
            if kind == "op" and tok.text == "^":
                raise InputError(f"'^' at position {pos} is not allowed; write powers with '**'")
            tokens.append(tok)
        pos = m.end()
    tokens.append(Token("end", "", n))
    return tokens


def _numeral(tok: Token) -> sympy.Rational:
    text = tok.text
    if len(text) > MAX_NUMERAL:
        raise InputError(f"numeral of {len(text)} characters at position {tok.pos} is too long")
    mant, _, exp_part = text.lower().partition("e")
    if exp_part and abs(int(exp_part)) > MAX_DECIMAL_EXPONENT:
        raise InputError(
            f"exponent of numeral {text!r} at position {tok.pos} is outside ±{MAX_DECIMAL_EXPONENT}"
        )
    int_part, _, frac_part = mant.partition(".")
    value = Fraction(int((int_part + frac_part) or "0"))
    scale = (int(exp_part) if exp_part else 0) - len(frac_part)
    value = value * 10**scale if scale >= 0 else value / 10 ** (-scale)
    return sympy.Rational(value.numerator, value.denominator)


def _bits(q: sympy.Rational) -> int:
    return int(abs(q.p)).bit_length() + int(q.q).bit_length()


class _Parser:
    def __init__(self, text: str, names: Mapping[str, sympy.Expr]):
        self.text = text
        self.tokens = tokenize(text)
        self.i = 0
        self.depth = 0
        self.names = names
        self.lattice_budget = MAX_LATTICE_SIMPLIFY

    # -- token helpers ----------------------------------------------------
    @property
    def tok(self) -> Token:
        return self.tokens[self.i]

    def advance(self) -> Token:
        tok = self.tokens[self.i]
        self.i += 1
        return tok

    def at(self, *ops: str) -> bool:
        return self.tok.kind == "op" and self.tok.text in ops

    def expect(self, op: str, context: str) -> Token:
        if not self.at(op):
            raise InputError(f"expected {op!r} {context}, found {_describe(self.tok)}")
        return self.advance()

    def enter(self, tok: Token) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise InputError(f"expression nested deeper than {MAX_DEPTH} levels at position {tok.pos}")

    def leave(self) -> None:
        self.depth -= 1

    # -- building sympy objects (only from parsed operands) ----------------
    def build(self, tok: Token, fn: Callable[..., sympy.Basic], *args: object, deep: bool = True) -> sympy.Basic:
        """Apply a whitelisted constructor; reject undefined or non-real results.

        ``deep=False`` (for + - *) only looks at the new top node: an
        undefined or non-real part already in an operand was rejected when it
        was built."""
        try:
            out = fn(*args)
        except ValueError as err:
            out = _root_unevaluated(fn, args)
            if out is None:
                raise InputError(f"cannot form {_describe(tok)}: {err}") from None
            if out.base.is_negative and not out.exp.is_integer:  # no I shows in sqrt(-N) unevaluated
                raise InputError(f"non-real value (e.g. log or root of a negative number) at {_describe(tok)}")
        except (TypeError, ArithmeticError, RecursionError) as err:
            raise InputError(f"cannot form {_describe(tok)}: {err}") from None
        if isinstance(out, sympy.Expr) and (deep or out in (sympy.zoo, sympy.nan)):
            if out.has(sympy.zoo, sympy.nan):
                raise InputError(f"undefined value (division by zero or oo - oo) at {_describe(tok)}")
            if out.has(sympy.I):
                raise InputError(f"non-real value (e.g. log or root of a negative number) at {_describe(tok)}")
        return out

    # -- grammar ----------------------------------------------------------
    def parse(self) -> sympy.Expr:
        if self.tok.kind == "end":
            raise InputError("empty expression")
        e = self.expr()
        if self.tok.kind != "end":
            raise InputError(f"unexpected {_describe(self.tok)}")
        return e

    def expr(self) -> sympy.Expr:
        e = self.term()
        while self.at("+", "-"):
            op = self.advance()
            rhs = self.term()
            e = self.build(op, (lambda a, b: a + b) if op.text == "+" else (lambda a, b: a - b), e, rhs, deep=False)
        return e

    def term(self) -> sympy.Expr:
        e = self.factor()
        while self.at("*", "/"):
            op = self.advance()
            rhs = self.factor()
            e = self.build(op, (lambda a, b: a * b) if op.text == "*" else (lambda a, b: a / b), e, rhs,
                           deep=op.text == "/")
        return e

    def factor(self) -> sympy.Expr:
        if self.at("+", "-"):
            op = self.advance()
            self.enter(op)
            inner = self.factor()
            self.leave()
            return inner if op.text == "+" else self.build(op, lambda a: -a, inner, deep=False)
        return self.power()

    def power(self) -> sympy.Expr:
        base = self.atom()
        if self.at("**"):
            op = self.advance()
            self.enter(op)
            exponent = self.factor()
            self.leave()
            self.check_power(op, base, exponent)
            return self.build(op, sympy.Pow, base, exponent)
        return base

    def check_power(self, op: Token, base: sympy.Expr, exponent: sympy.Expr) -> None:
        if isinstance(exponent, sympy.Rational):
            if abs(exponent.p) > MAX_POWER_EXPONENT or exponent.q > MAX_POWER_EXPONENT:
                raise InputError(f"exponent {exponent} of '**' at position {op.pos} is too large")
            if isinstance(base, sympy.Rational) and exponent.q != 1 and _bits(base) > MAX_ROOT_BITS:
                raise InputError(
                    f"root '**' at position {op.pos} of an exact number of more than {MAX_ROOT_BITS} bits"
                )
            if isinstance(base, sympy.Rational) and _bits(base) * abs(exponent.p) > MAX_RESULT_BITS:
                raise InputError(
                    f"power '**' at position {op.pos} would build an exact number of more than "
                    f"{MAX_RESULT_BITS} bits"
                )

    def atom(self) -> sympy.Expr:
        tok = self.tok
        if tok.kind == "num":
            self.advance()
            return _numeral(tok)
        if tok.kind == "name":
            self.advance()
            if self.at("("):
                return self.call(tok)
            return self.name(tok)
        if self.at("("):
            self.advance()
            self.enter(tok)
            e = self.expr()
            self.expect(")", f"to close '(' at position {tok.pos}")
            self.leave()
            return e
        raise InputError(f"unexpected {_describe(tok)}")

    def name(self, tok: Token) -> sympy.Expr:
        if tok.text in _CONSTANTS:
            return _CONSTANTS[tok.text]
        if tok.text in self.names:
            return self.names[tok.text]
        if tok.text == "e":  # Euler's number, unless a variable or parameter is called e
            return sympy.E
        if tok.text in _UNARY_FUNCTIONS or tok.text in _VARIADIC or tok.text in _SPECIAL:
            raise InputError(f"function {_describe(tok)} must be called with '('")
        raise InputError(f"unknown name {_describe(tok)}")

    def args(self, open_tok: Token) -> list[sympy.Expr]:
        """Comma-separated expressions up to the closing parenthesis."""
        out = [self.expr()]
        while self.at(","):
            self.advance()
            out.append(self.expr())
        self.expect(")", f"to close '(' at position {open_tok.pos}")
        return out

    def call(self, fn_tok: Token) -> sympy.Expr:
        name = fn_tok.text
        open_tok = self.advance()  # '('
        self.enter(open_tok)
        try:
            if name in _UNARY_FUNCTIONS:
                args = self.args(open_tok)
                if len(args) != 1:
                    raise InputError(f"{_describe(fn_tok)} takes 1 argument, got {len(args)}")
                if name == "sqrt" and isinstance(args[0], sympy.Rational) and _bits(args[0]) > MAX_ROOT_BITS:
                    raise InputError(f"{_describe(fn_tok)} of an exact number of more than {MAX_ROOT_BITS} bits")
                if name == "exp":
                    _check_exp_of_log(fn_tok, args[0])
                return self.build(fn_tok, _UNARY_FUNCTIONS[name], args[0])
            if name in _VARIADIC:
                args = self.args(open_tok)
                return self.lattice(fn_tok, _VARIADIC[name], args)
            if name == "if":
                cond = self.cond()
                self.expect(",", f"after the condition of {_describe(fn_tok)}")
                a = self.expr()
                self.expect(",", f"after the second argument of {_describe(fn_tok)}")
                b = self.expr()
                self.expect(")", f"to close {_describe(fn_tok)}")
                return self.build(fn_tok, _piecewise, (a, cond), (b, sympy.true))
            if name == "Piecewise":
                pairs = [self.pair(fn_tok)]
                while self.at(","):
                    self.advance()
                    pairs.append(self.pair(fn_tok))
                self.expect(")", f"to close {_describe(fn_tok)}")
                return self.build(fn_tok, _piecewise, *pairs)
        finally:
            self.leave()
        if name in self.names or name in _CONSTANTS:
            raise InputError(f"{_describe(fn_tok)} is not a function")
        raise InputError(f"unknown function {_describe(fn_tok)}")

    def lattice(self, fn_tok: Token, cls: type, args: list[sympy.Expr]) -> sympy.Expr:
        """Max/Min.  sympy simplifies them by pairwise symbolic comparisons,
        which costs up to ~0.1 s per pair; only the first
        :data:`MAX_LATTICE_SIMPLIFY` calls with at most
        :data:`MAX_LATTICE_ARGS_SIMPLIFY` (flattened) arguments are simplified,
        the others are built unevaluated (duplicates removed) -- same value."""
        flat: list[sympy.Expr] = []
        for a in args:
            flat.extend(a.args if isinstance(a, cls) else [a])
        numeric = all(isinstance(a, sympy.Rational) for a in flat)
        # sympy compares the arguments of an evaluated Max/Min by evalf, which can run
        # for minutes on constants such as erfc(10**30): such lattices stay unevaluated
        constant_functions = any(not f.free_symbols for a in flat for f in a.atoms(sympy.Function))
        if numeric or (not constant_functions and self.lattice_budget > 0 and len(flat) <= MAX_LATTICE_ARGS_SIMPLIFY):
            if not numeric:
                self.lattice_budget -= 1
            return self.build(fn_tok, cls, *args)
        unique = list(dict.fromkeys(flat))
        if len(unique) == 1:
            return unique[0]
        return self.build(fn_tok, lambda *xs: cls(*xs, evaluate=False), *unique)

    def pair(self, fn_tok: Token) -> tuple[sympy.Expr, sympy.Basic]:
        open_tok = self.expect("(", f"to start a (value, condition) pair of {_describe(fn_tok)}")
        self.enter(open_tok)
        value = self.expr()
        self.expect(",", f"between value and condition of the pair at position {open_tok.pos}")
        cond = self.cond()
        self.expect(")", f"to close the pair at position {open_tok.pos}")
        self.leave()
        return value, cond

    def cond(self) -> sympy.Basic:
        tok = self.tok
        if tok.kind == "name" and tok.text in ("True", "False"):
            self.advance()
            return sympy.true if tok.text == "True" else sympy.false
        lhs = self.expr()
        if not self.at(*_RELATIONS):
            raise InputError(f"expected a comparison (< <= > >=) in a condition, found {_describe(self.tok)}")
        op = self.advance()
        rhs = self.expr()
        if self.at(*_RELATIONS):
            raise InputError(f"chained comparison at {_describe(self.tok)} is not allowed")
        if lhs.has(sympy.Piecewise) or rhs.has(sympy.Piecewise):
            # sympy rewrites such conditions through set algebra (can take minutes)
            raise InputError(f"a condition may not contain if/Piecewise (comparison {_describe(op)})")
        return self.build(op, _RELATIONS[op.text], lhs, rhs)


def _piecewise(*pairs: tuple[sympy.Expr, sympy.Basic]) -> sympy.Expr:
    """Piecewise without sympy's own simplification (which can take minutes on
    nested input): drop branches whose condition is False, stop at the first
    True, and collapse a leading True branch -- the same value."""
    kept: list[tuple[sympy.Expr, sympy.Basic]] = []
    for value, cond in pairs:
        if cond is sympy.false:
            continue
        kept.append((value, cond))
        if cond is sympy.true:
            break
    if not kept:
        raise ValueError("no branch of the Piecewise can apply")
    if kept[0][1] is sympy.true:
        return kept[0][0]
    return sympy.Piecewise(*kept, evaluate=False)


def _name_table(variables: Sequence[str], parameters: Mapping[str, object] | None) -> dict[str, sympy.Expr]:
    if isinstance(variables, str):
        variables = (variables,)
    names: dict[str, sympy.Expr] = {}
    for v in variables:
        if not isinstance(v, str) or not _IDENT.match(v) or v in RESERVED:
            raise InputError(f"invalid variable name {v!r}")
        names[v] = symbol_for(v)
    for k, value in (parameters or {}).items():
        if not isinstance(k, str) or not _IDENT.match(k) or k in RESERVED:
            raise InputError(f"invalid parameter name {k!r}")
        if k in names:
            raise InputError(f"parameter {k!r} clashes with a variable of the same name")
        q = exact(value, k)
        names[k] = sympy.Rational(q.numerator, q.denominator)
    return names


def parse_expression(
    text: str,
    variables: Sequence[str] = ("eps",),
    parameters: Mapping[str, object] | None = None,
) -> sympy.Expr:
    """Parse untrusted ``text`` into an exact sympy expression.

    ``variables`` are the free-variable names allowed (``"eps"`` becomes
    :data:`~certdp.expr.symbols.EPS`); ``parameters`` maps further names to
    exact numbers (anything :func:`certdp.numerics.exact.exact` accepts),
    substituted as sympy Rationals.  See the module docstring for the grammar.
    Raises :class:`InputError` naming the offending token and position.
    """
    if not isinstance(text, str):
        raise InputError(f"expression must be a string, got {type(text).__name__}")
    if len(text) > MAX_TEXT:
        raise InputError(f"expression of {len(text)} characters is longer than the limit {MAX_TEXT}")
    names = _name_table(variables, parameters)
    result = _Parser(text, names).parse()
    if not isinstance(result, sympy.Expr):
        raise InputError("expression does not denote a number")
    if result.has(sympy.zoo, sympy.nan, sympy.I):
        raise InputError("expression is undefined or not real")
    return result
