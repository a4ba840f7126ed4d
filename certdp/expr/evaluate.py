"""Certified ball evaluation of sympy expressions.

:func:`compile_ball` translates an expression tree once into nested closures
over python-flint ``arb`` balls; :func:`evaluate_ball` is the cached one-shot
form; :func:`evaluate` chooses precision adaptively and returns an
:class:`~certdp.numerics.enclosure.Enclosure`.

Guarantee (interval soundness): if every input ball contains the point
``v_i``, the output ball contains the value of the expression at ``v``; so
for interval balls (``arb(a).union(arb(b))``) the output encloses the range.
Enclosures may be loose (the dependency problem: ``x - x`` on ``[0, 1]`` gives
``[-1, 1]``) but are never wrong.

Techniques: monotone functions (exp, log, sqrt, erf, erfc, rational powers)
on a wide ball are evaluated at the two exact endpoints and hulled, which
avoids arb's blow-up for wide arguments; ``erfc`` uses
:func:`certdp.numerics.normal.Phi_ball` (Mills-ratio series in the far tail),
because arb's own ``erfc`` loses all accuracy for arguments beyond ~1e5;
Max/Min/Abs use exact endpoint formulas; a Piecewise condition that the
ball does not decide contributes the union of the possible branches.

Domain violations (log or a fractional power of a ball that is not
certainly positive / nonnegative, division by a ball containing 0, a
Piecewise with no applicable branch) give a **non-finite ball** (NaN or
infinite), never an exception: an undecided ball might just need more
precision.  :func:`evaluate` turns a result that stays non-finite at every
precision into :class:`~certdp.errors.PrecisionError`.
"""

from __future__ import annotations

import functools
import operator
from fractions import Fraction
from typing import Callable, Mapping, Sequence

import sympy
from flint import arb, ctx, fmpq

from certdp.verifier.errors import InputError, PrecisionError
from certdp.numerics.decide import adaptive, decide
from certdp.verifier.ball import digits_to_bits, exact_ball, to_ball
from certdp.numerics.enclosure import Enclosure
from certdp.verifier.exact import exact
from certdp.numerics.normal import Phi_ball
from certdp.expr.compiler import Compiler

Args = Sequence[arb]
Node = Callable[[Args], arb]

#: A ball whose relative accuracy is below this many bits counts as "wide":
#: monotone functions are then evaluated at its endpoints.
WIDE_BITS = 24



def nan_ball() -> arb:
    """The ball 'no information' (returned for domain violations)."""
    return arb.nan()


# ---------------------------------------------------------------------------
# ball primitives
# ---------------------------------------------------------------------------


def nonneg(x: arb) -> arb:
    """``x ∩ [0, ∞)``: for a ball known to enclose a nonnegative quantity.

    arb's union/max round the radius up, which can push the lower end of a
    nonnegative range slightly below 0; this restores the sign information."""
    return x.nonnegative_part()


def nonpos(x: arb) -> arb:
    """``x ∩ (-∞, 0]``: for a ball known to enclose a nonpositive quantity."""
    return -((-x).nonnegative_part())


def hull(a: arb, b: arb) -> arb:
    """A ball containing both balls (keeping a common sign)."""
    u = a.union(b)
    if a >= 0 and b >= 0:
        return nonneg(u)
    if a <= 0 and b <= 0:
        return nonpos(u)
    return u


def interval(lo: arb, hi: arb) -> arb:
    """A ball containing ``[lo, hi]`` (endpoints: balls; their hull)."""
    return hull(lo, hi)


def _is_wide(x: arb) -> bool:
    return not x.is_exact() and x.rel_accuracy_bits() < WIDE_BITS


def _monotone(f: Callable[[arb], arb], x: arb) -> arb:
    """f(x) for f monotone on the ball x: endpoints for wide balls."""
    if not x.is_finite():
        if x.is_nan():
            return nan_ball()
        lo, hi = x.lower(), x.upper()
        return hull(f(lo), f(hi))
    if _is_wide(x):
        return hull(f(x.lower()), f(x.upper()))
    return f(x)


def _exp1(x: arb) -> arb:
    if x.is_exact() and not x.is_finite():  # ±inf endpoints
        return arb(0) if x < 0 else arb.pos_inf()
    return x.exp()


def exp_ball(x: arb) -> arb:
    """exp on a ball (range for wide balls; exp(-inf) = 0, exp(+inf) = inf)."""
    return nonneg(_monotone(_exp1, x))


def _log1(x: arb) -> arb:
    if x.is_exact() and not x.is_finite():
        return arb.pos_inf()
    return x.log()


def log_ball(x: arb) -> arb:
    """log on a ball; NaN unless the ball is certainly positive."""
    if not x > 0:
        return nan_ball()
    return _monotone(_log1, x)


def sqrt_ball(x: arb) -> arb:
    """sqrt on a ball; NaN unless the ball is certainly nonnegative."""
    if not x >= 0:
        return nan_ball()
    return nonneg(_monotone(lambda t: arb.pos_inf() if (t.is_exact() and not t.is_finite()) else t.sqrt(), x))


#: |argument| from which erf/erfc switch from arb's erf/erfc to Phi_ball.
ERF_SWITCH = 40


def _erfc1(y: arb) -> arb:
    """erfc(y) = 2 Φ(-√2 y) for a narrow (or exact, possibly infinite) ball."""
    if y.is_exact() and not y.is_finite():
        return arb(0) if y > 0 else arb(2)
    if y >= ERF_SWITCH:
        return 2 * Phi_ball(-y * arb(2).sqrt())
    if y <= -ERF_SWITCH:
        return 2 - 2 * Phi_ball(y * arb(2).sqrt())
    return y.erfc()


def erfc_ball(y: arb) -> arb:
    """erfc on a ball (decreasing; sound for huge arguments)."""
    return nonneg(_monotone(_erfc1, y))


def _erf1(y: arb) -> arb:
    if y.is_exact() and not y.is_finite():
        return arb(1) if y > 0 else arb(-1)
    if y >= ERF_SWITCH:
        return 1 - _erfc1(y)
    if y <= -ERF_SWITCH:
        return _erfc1(-y) - 1
    return y.erf()


def erf_ball(y: arb) -> arb:
    """erf on a ball (increasing)."""
    return _monotone(_erf1, y)


def abs_ball(x: arb) -> arb:
    if x >= 0:
        return x
    if x <= 0:
        return -x
    if x.is_nan():
        return nan_ball()
    return nonneg(arb(0).union(x.abs_upper()))


def max_ball(a: arb, b: arb) -> arb:
    """max(a, b): [max(lo), max(hi)] (arb_max)."""
    if a.is_nan() or b.is_nan():
        return nan_ball()
    m = a.max(b)
    return nonneg(m) if (a >= 0 or b >= 0) else m


def min_ball(a: arb, b: arb) -> arb:
    if a.is_nan() or b.is_nan():
        return nan_ball()
    m = a.min(b)
    return nonpos(m) if (a <= 0 or b <= 0) else m


def int_pow_ball(x: arb, n: int) -> arb:
    """x**n for an integer n (range: even powers of balls around 0 are >= 0)."""
    if n == 0:
        return arb(1)
    if n < 0:
        return 1 / int_pow_ball(x, -n)
    if n == 1:
        return x
    if x.is_nan():
        return nan_ball()
    if n % 2 == 0 and not (x >= 0) and not (x <= 0):
        m = x.abs_upper()
        return nonneg(arb(0).union(m**n))
    if _is_wide(x) or not x.is_finite():
        lo, hi = x.lower(), x.upper()
        return hull(_pow_endpoint(lo, n), _pow_endpoint(hi, n))
    return x**n


def _pow_endpoint(t: arb, n: int) -> arb:
    if t.is_exact() and not t.is_finite():
        if t > 0 or n % 2 == 0:
            return arb.pos_inf()
        return arb.neg_inf()
    return t**n


def rational_pow_ball(x: arb, p: int, q: int) -> arb:
    """x**(p/q) with q >= 2 (real root): needs x certainly >= 0 (x > 0 if p < 0)."""
    if not x >= 0:
        return nan_ball()
    if p < 0 and not x > 0:
        return nan_ball()

    def f(t: arb) -> arb:
        if t.is_exact() and not t.is_finite():
            return arb.pos_inf() if p > 0 else arb(0)
        if t.is_zero():
            return arb(0)
        if q == 2:
            r = t.sqrt()
        else:
            r = t.root(q)
        return int_pow_ball(r, p)

    return _monotone(f, x)


def general_pow_ball(b: arb, e: arb) -> arb:
    """b**e = exp(e log b) for b certainly > 0."""
    if not b > 0:
        return nan_ball()
    return exp_ball(e * log_ball(b))


def heaviside_ball(x: arb) -> arb:
    if x > 0:
        return arb(1)
    if x < 0:
        return arb(0)
    if x.is_nan():
        return nan_ball()
    return interval(arb(0), arb(1))


def sign_ball(x: arb) -> arb:
    if x > 0:
        return arb(1)
    if x < 0:
        return arb(-1)
    if x.is_zero():
        return arb(0)
    if x.is_nan():
        return nan_ball()
    if x >= 0:
        return interval(arb(0), arb(1))
    if x <= 0:
        return interval(arb(-1), arb(0))
    return interval(arb(-1), arb(1))


# ---------------------------------------------------------------------------
# compiler
# ---------------------------------------------------------------------------


def _rational_node(q: Fraction) -> Node:
    den = q.denominator
    if den & (den - 1) == 0:
        ball = exact_ball(q.numerator, 1 - den.bit_length())
        return lambda _a: ball
    cache: dict[int, arb] = {}
    num = q.numerator

    def node(_a: Args) -> arb:
        p = ctx.prec
        b = cache.get(p)
        if b is None:
            b = cache[p] = arb(fmpq(num, den))
        return b

    return node


def _compare(x: arb, y: arb, op: str) -> bool | None:
    """Three-valued ``x op y`` for all points of the balls."""
    if op == "<":
        return True if x < y else False if x >= y else None
    if op == "<=":
        return True if x <= y else False if x > y else None
    if op == ">":
        return True if x > y else False if x <= y else None
    if op == ">=":
        return True if x >= y else False if x < y else None
    eq = True if (x.is_exact() and y.is_exact() and x == y) else False if (x < y or x > y) else None
    if op == "==":
        return eq
    return None if eq is None else not eq


class BallBackend:
    """The :class:`certdp.expr.compiler.Compiler` backend of ``arb`` balls:
    a compiled function takes a tuple of balls (one per variable)."""

    verb = "evaluate"
    unary: dict[type, Callable[[arb], arb]] = {
        sympy.exp: exp_ball,
        sympy.log: log_ball,
        sympy.erf: erf_ball,
        sympy.erfc: erfc_ball,
        sympy.Abs: abs_ball,
        sympy.Heaviside: heaviside_ball,
        sympy.sign: sign_ball,
    }
    add = staticmethod(operator.add)
    mul = staticmethod(operator.mul)
    inv = staticmethod(lambda x: 1 / x)
    int_pow = staticmethod(int_pow_ball)
    rational_pow = staticmethod(rational_pow_ball)
    general_pow = staticmethod(general_pow_ball)
    max2 = staticmethod(max_ball)
    min2 = staticmethod(min_ball)
    compare = staticmethod(_compare)
    hull = staticmethod(hull)
    undecided = staticmethod(lambda x: x)
    nothing = staticmethod(nan_ball)
    lift = staticmethod(lambda x: x)
    condition_env = staticmethod(lambda a: a)  # conditions see the same balls

    @property
    def constants(self) -> "BallBackend":
        return self

    @staticmethod
    def variable(index: int) -> Node:
        return lambda a: a[index]

    @staticmethod
    def atom(e: sympy.Basic) -> Node | None:
        if e.is_Rational:
            return _rational_node(Fraction(int(e.p), int(e.q)))
        if isinstance(e, sympy.Float):
            return _rational_node(exact(e, "number"))
        if e is sympy.pi:
            return lambda _a: arb.pi()
        if e is sympy.E:
            return lambda _a: arb.const_e()
        if e is sympy.oo:
            return lambda _a: arb.pos_inf()
        if e is sympy.S.NegativeInfinity:
            return lambda _a: arb.neg_inf()
        return None


#: The ball number context (one instance; stateless).
BALLS = BallBackend()


@functools.lru_cache(maxsize=512)
def _compiled(expr: sympy.Basic, variables: tuple[sympy.Symbol, ...]) -> Node:
    return Compiler(BALLS, variables).node(expr)


def compile_ball(expr: sympy.Expr, variables: Sequence[sympy.Symbol]) -> Callable[..., arb]:
    """Translate ``expr`` once into a fast ball function ``f(*balls) -> arb``.

    ``f`` takes one ``arb`` per entry of ``variables`` (same order), runs at
    the current flint precision and returns a ball enclosing the range of
    ``expr`` over the input balls.  Raises :class:`InputError` for free
    symbols not in ``variables`` and for unsupported functions.
    """
    variables = tuple(variables)
    if not isinstance(expr, sympy.Basic):
        q = exact(expr, "expression")
        expr = sympy.Rational(q.numerator, q.denominator)
    root = _compiled(expr, variables)
    n = len(variables)

    def f(*balls: arb) -> arb:
        if len(balls) != n:
            raise TypeError(f"expected {n} balls, got {len(balls)}")
        return root(balls)

    return f


def _resolve_env(expr: sympy.Basic, env: Mapping[object, object]) -> dict[sympy.Symbol, object]:
    """Map str keys to the expression's free symbols of that name."""
    by_name = {s.name: s for s in expr.free_symbols}
    out: dict[sympy.Symbol, object] = {}
    for k, v in env.items():
        if isinstance(k, sympy.Symbol):
            out[k] = v
        elif isinstance(k, str):
            out[by_name.get(k, sympy.Symbol(k))] = v
        else:
            raise InputError(f"variable key must be a sympy Symbol or a name, got {k!r}")
    return out


def evaluate_ball(expr: sympy.Expr, env: Mapping[sympy.Symbol, arb]) -> arb:
    """A ball containing ``expr`` for every point of the input balls (current precision).

    ``env`` maps symbols (or their names) to ``arb`` balls (exact numbers
    are converted with :func:`~certdp.numerics.ball.to_ball`).
    """
    if len(env) == 1:
        ((k, v),) = env.items()
        if isinstance(k, sympy.Symbol) and isinstance(v, arb):  # fast path
            return _compiled(expr, (k,))((v,))
    env2 = _resolve_env(expr, env)
    variables = tuple(env2)
    balls = tuple(v if isinstance(v, arb) else to_ball(v, str(k)) for k, v in env2.items())
    return _compiled(expr, variables)(balls)


def evaluate(
    expr: sympy.Expr,
    env: Mapping[object, object] | None = None,
    digits: int | None = 15,
    *,
    prec: int | None = None,
) -> Enclosure:
    """Certified value of ``expr`` at exact inputs, to ``digits`` significant
    digits (relative width <= 10**-digits; an exact zero is allowed).

    If the ball evaluation stays undecided at every precision (e.g. an exact
    zero under a root reached through rounded constants), the exact inputs
    are substituted symbolically and the resulting constant is evaluated.
    Raises :class:`InputError` when the expression is certainly undefined or
    not real at the point (log of a negative number, division by zero), and
    :class:`PrecisionError` when the value cannot be enclosed otherwise.
    """
    env2 = _resolve_env(expr, env or {})
    q = {k: exact(v, k.name) for k, v in env2.items()}
    variables = tuple(q)
    bits = digits_to_bits(digits if prec is None else None, prec)
    root = _compiled(expr, variables)

    def compute(_p: int) -> arb:
        return root(tuple(to_ball(v) for v in q.values()))

    where = ", ".join(f"{k}={v}" for k, v in q.items())
    try:
        return Enclosure.from_ball(adaptive(compute, bits, bits + 30, f"evaluating {expr}"))
    except PrecisionError as err:
        first = err
    # Fallback: substitute the exact inputs symbolically.  sympy's automatic
    # evaluation settles exact cancellations (sqrt(1/10 - 1/10) = 0) that no
    # ball width can, and exposes certain domain violations (zoo, nan, I).
    exact_expr = expr.xreplace({k: sympy.Rational(v.numerator, v.denominator) for k, v in q.items()})
    if exact_expr.has(sympy.zoo, sympy.nan, sympy.I) or exact_expr.is_real is False:
        raise InputError(f"{expr} is undefined or not real at {where} (it becomes {exact_expr})")
    if exact_expr.free_symbols:
        raise first
    croot = _compiled(exact_expr, ())
    try:
        return Enclosure.from_ball(adaptive(lambda _p: croot(()), bits, bits + 30, f"evaluating {exact_expr}"))
    except PrecisionError as err:
        raise PrecisionError(f"cannot enclose {expr} at {where}: undefined there, or not decidable ({err})") from None


def try_ball(expr: sympy.Expr, env: Mapping[sympy.Symbol, arb]) -> arb | None:
    """:func:`evaluate_ball` for symbolic analyses (identification, thresholds):
    None instead of an error when the expression has no certified ball here —
    an unsupported function, a variable without a value, an infinity, or a
    floating-point literal (a sympy Float may stand for a rounded value, so
    the symbolic analyses never trust one)."""
    if expr.has(sympy.Float, sympy.oo, -sympy.oo, sympy.zoo, sympy.nan):
        return None
    if not expr.free_symbols <= set(env):
        return None
    try:
        return evaluate_ball(expr, env)
    except InputError:
        return None


def constant_sign(expr: sympy.Expr, max_prec: int = 4096) -> int | None:
    """Certified sign (-1, 0, 1) of a variable-free sympy expression, or None
    when it has no certified ball.  The ball is refined by the one decision
    loop (:func:`certdp.numerics.decide.decide`); when it keeps containing 0
    up to ``max_prec`` bits, sympy must prove the exact zero, else None."""
    if expr.free_symbols:
        return None

    def test(_prec: int) -> int | None:
        v = try_ball(expr, {})
        if v is None:
            raise _NoValue
        return 1 if v > 0 else (-1 if v < 0 else None)

    try:
        return decide(test, start=64, cap=max_prec, what=f"the sign of {expr}")
    except _NoValue:
        return None
    except PrecisionError:
        pass
    try:
        z = sympy.simplify(expr)
    except Exception:  # pragma: no cover - sympy's simplification is best effort
        return None
    return 0 if z == 0 else None


class _NoValue(Exception):
    """The expression has no certified ball (internal to :func:`constant_sign`)."""
