"""The one sympy compiler: an expression tree is walked once, here, and turned
into nested closures over the values of a *backend* (a number context).

Backends (after mpmath's idea of one algorithm run in several contexts):

* :data:`certdp.expr.evaluate.BALLS` — python-flint ``arb`` balls
  (:func:`certdp.expr.evaluate.compile_ball`);
* :data:`certdp.expr.extended.DERIVATIVES` — extended intervals (half-infinite
  ranges allowed) carrying forward-mode derivative enclosures
  (:func:`certdp.expr.extended.compile_interval_ad`).

The compiler owns everything that is about the *tree*: which sympy node is
what, constant subtrees (evaluated once per precision in the ball backend and
lifted), folding of n-ary sums/products/Max/Min, powers by exponent kind,
Piecewise semantics (a condition the backend cannot decide contributes the
hull of the possible branches; no applicable branch gives the backend's
"no information" value) and condition logic.  A backend owns the arithmetic:
each operation must return an enclosure of the exact operation over its
inputs (interval soundness), which makes every compiled function sound.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Protocol, Sequence

import sympy
from flint import ctx

from certdp.verifier.errors import InputError
from certdp.expr.logic import junction, negation

Env = Any  # what a compiled function is called with (backend-specific)
Node = Callable[[Env], Any]
Cond = Callable[[Env], "bool | None"]  # True / False / None (undecided)

RELATIONS = ("<", "<=", ">", ">=", "==", "!=")


class Backend(Protocol):
    """The arithmetic a number context supplies to :class:`Compiler`.

    Every operation returns an enclosure of the exact result over all points
    of its inputs; "no information" (a domain violation) is a value too
    (NaN ball / UNKNOWN interval), never an exception.
    """

    verb: str  # "evaluate" / "differentiate" (error messages)
    constants: "Backend"  # evaluates variable-free subtrees (the ball backend)
    unary: Mapping[type, Callable[[Any], Any]]  # sympy function class -> operation

    def lift(self, ball: Any) -> Any: ...  # a constant of ``constants`` as a value here
    def atom(self, e: sympy.Basic) -> Node | None: ...  # numbers, pi, E, ±oo (constants backend)
    def variable(self, index: int) -> Node: ...
    def condition_env(self, env: Env) -> Env: ...  # where Piecewise conditions are decided
    def add(self, a: Any, b: Any) -> Any: ...
    def mul(self, a: Any, b: Any) -> Any: ...
    def inv(self, a: Any) -> Any: ...
    def int_pow(self, a: Any, n: int) -> Any: ...
    def rational_pow(self, a: Any, p: int, q: int) -> Any: ...
    def general_pow(self, a: Any, b: Any) -> Any: ...
    def max2(self, a: Any, b: Any) -> Any: ...
    def min2(self, a: Any, b: Any) -> Any: ...
    def compare(self, a: Any, b: Any, op: str) -> bool | None: ...
    def hull(self, a: Any, b: Any) -> Any: ...  # two possible Piecewise branches
    def undecided(self, a: Any) -> Any: ...  # after a condition that was not decided
    def nothing(self) -> Any: ...  # no applicable branch: no information


class Compiler:
    """Compile sympy expressions in ``variables`` for one backend."""

    def __init__(self, backend: Backend, variables: Sequence[sympy.Symbol]):
        self.backend = backend
        self.index = {v: i for i, v in enumerate(variables)}

    def node(self, e: sympy.Basic) -> Node:
        if isinstance(e, sympy.Symbol):
            if e not in self.index:
                names = ", ".join(str(v) for v in self.index) or "none"
                raise InputError(f"expression has a free variable {e} that was not given a value "
                                 f"(variables: {names})")
            return self.backend.variable(self.index[e])
        if not e.free_symbols:
            return self.constant(e)
        return self.composite(e)

    def constant(self, e: sympy.Basic) -> Node:
        """A variable-free subtree (3, sqrt(2), log(3)/2, pi): evaluated once per precision."""
        base = self.backend.constants
        if not e.args:
            inner = base.atom(e)
            if inner is None:
                raise InputError(f"cannot {self.backend.verb} {e}: unsupported in certified evaluation")
            if base is self.backend:
                return inner  # atoms cache per precision themselves
        else:
            inner = Compiler(base, ()).composite(e)
        lift = self.backend.lift
        precision = getattr(self.backend, "precision", None) or (lambda: ctx.prec)
        cache: dict[int, Any] = {}

        def const(_env: Env) -> Any:
            p = precision()
            v = cache.get(p)
            if v is None:
                v = cache[p] = lift(inner(()))
            return v

        return const

    def composite(self, e: sympy.Basic) -> Node:
        b = self.backend
        for cls, op in ((sympy.Add, b.add), (sympy.Mul, b.mul), (sympy.Max, b.max2), (sympy.Min, b.min2)):
            if isinstance(e, cls):  # n-ary: folded left to right
                return _fold(op, [self.node(t) for t in e.args])
        if isinstance(e, sympy.Pow):
            return self.pow(e)
        if isinstance(e, sympy.Piecewise):
            return self.piecewise(e)
        fn = b.unary.get(type(e))
        if fn is not None and len(e.args) == 1:
            inner = self.node(e.args[0])
            return lambda env: fn(inner(env))
        raise InputError(f"cannot {b.verb} {type(e).__name__} in {e}: unsupported in certified evaluation")

    def pow(self, e: sympy.Pow) -> Node:
        b = self.backend
        base, ex = e.args
        f = self.node(base)
        if ex.is_Integer:
            n = int(ex)
            if n == -1:
                inv = b.inv
                return lambda env: inv(f(env))
            int_pow = b.int_pow
            return lambda env: int_pow(f(env), n)
        if ex.is_Rational:
            p, q = int(ex.p), int(ex.q)
            rational_pow = b.rational_pow
            return lambda env: rational_pow(f(env), p, q)
        g = self.node(ex)
        general_pow = b.general_pow
        return lambda env: general_pow(f(env), g(env))

    def piecewise(self, e: sympy.Piecewise) -> Node:
        b = self.backend
        branches = [(self.node(pair.expr), self.cond(pair.cond)) for pair in e.args]
        where = b.condition_env

        def piecewise(env: Env) -> Any:
            cenv = where(env)
            result = None
            for value, cond in branches:
                c = cond(cenv)
                if c is False:
                    continue
                v = value(env)
                result = v if result is None else b.hull(result, v)
                if c is True:
                    return result
                result = b.undecided(result)
            return b.nothing()  # some point may have no applicable branch

        return piecewise

    def cond(self, c: sympy.Basic) -> Cond:
        if c is sympy.true:
            return lambda _env: True
        if c is sympy.false:
            return lambda _env: False
        if isinstance(c, sympy.core.relational.Relational) and c.rel_op in RELATIONS:
            lhs, rhs = self.node(c.lhs), self.node(c.rhs)
            op = c.rel_op
            compare = self.backend.compare
            return lambda env: compare(lhs(env), rhs(env), op)
        if isinstance(c, (sympy.And, sympy.Or)):
            return junction([self.cond(t) for t in c.args], isinstance(c, sympy.And))
        if isinstance(c, sympy.Not):
            return negation(self.cond(c.args[0]))
        raise InputError(f"unsupported condition {c} in a Piecewise")


def _fold(op: Callable[[Any, Any], Any], nodes: list[Node]) -> Node:
    if len(nodes) == 2:
        f, g = nodes
        return lambda env: op(f(env), g(env))

    def folded(env: Env) -> Any:
        r = nodes[0](env)
        for n in nodes[1:]:
            r = op(r, n(env))
        return r

    return folded
