"""Noise-refinement ``value`` certificates (``refined_sigma``, ``refined_eps0``,
``refined_delta0``; Liu et al. 2022 App. C, §5.2) under the second kernel (``certdp verify
--kernel mpmath``): the proof of :func:`certdp.verifier.check_optimum.check_refined` in
mpmath intervals.  The claim's formula is read by the checker's own grammar and evaluated,
with F' by forward mode, in intervals (:mod:`certdp.verifier.formula`, no sympy); a formula
outside it takes the safe parser and the expression evaluator's interval backend (sympy).
The cells are bisected at exact rational midpoints (:func:`certdp.verifier.switch_iv._cells`).

With δ0(x) = (δ + e^ε − (1 − δ)eˣ)/(1 + e^ε) and F(x) = f(x, δ0(x)) on [ε, x_max]: every cell of
[ε, r0] has F' < 0 or F > F(ρ), every cell of [r1, x_max] has F' > 0 or F > F(ρ)
(ρ = max(r0, ε)); a cell where F is not enclosed is bounded by f(x_max, δ0(a)) under the
monotonicity the certificate states or the sign calculus proves; then the quantity over [r0, r1]
lies in [lo, hi].
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Callable, Mapping

from mpmath import iv, libmp

from certdp.verifier import iv as kernel
from certdp.verifier.switch import bracket_of
from certdp.verifier.switch_iv import _cells, _finite, _hull, _run, _Undecided


def _rational(raw: Any) -> Fraction:
    return Fraction(*libmp.to_rational(raw))


def _safe(g: Callable[[Any], bool]) -> Callable[[Any, Fraction, Fraction], bool]:
    def ok(c: Any, u: Fraction, v: Fraction) -> bool:
        try:
            return g(c, u, v)
        except (ValueError, ZeroDivisionError, ArithmeticError):
            return False
    return ok


def _grammar_functions(r: Any) -> tuple[Callable[..., Any], ...]:
    """F, F', f(x, d), δ0 and the target of a formula in the checker's grammar, in intervals."""
    from certdp.verifier import formula as fm  # noqa: PLC0415

    big, d0, b = r.big_f(), r.delta0(), fm.intervals()
    return (lambda c: fm.evaluate(big, {"eps": c}, b), lambda c: fm.value_and_slope(big, c, b)[1],
            lambda x, d: fm.evaluate(r.f, {"eps": x, "delta": d}, b), lambda c: fm.evaluate(d0, {"eps": c}, b),
            lambda: fm.evaluate(r.eps, {}, b), lambda: fm.evaluate(r.delta, {}, b))


def _sympy_functions(doc: Mapping[str, Any]) -> tuple[Callable[..., Any], ...] | None:
    """The same for a formula outside the grammar: safe parser and the expression
    evaluator's interval backend (sympy)."""
    import sympy  # noqa: PLC0415  (the claim's formula is outside the checker's grammar)

    from certdp.expr.derivative import derivative  # noqa: PLC0415
    from certdp.expr.ivbackend import compile_iv  # noqa: PLC0415
    from certdp.expr.symbols import DELTA, EPS  # noqa: PLC0415
    from certdp.verifier.check_optimum import refined_setup  # noqa: PLC0415

    f, e, d = refined_setup(doc)
    d0 = (d + sympy.exp(e) - (1 - d) * sympy.exp(EPS)) / (1 + sympy.exp(e))
    big = f.xreplace({DELTA: d0})
    dbig = derivative(big)
    if dbig is None:
        return None
    return (compile_iv(big, (EPS,)), compile_iv(dbig, (EPS,)), compile_iv(f, (EPS, DELTA)), compile_iv(d0, (EPS,)),
            compile_iv(e, ()), compile_iv(d, ()))


def check_refined_iv(doc: Mapping[str, Any], quantity: str, lo: Fraction, hi: Fraction, prec: int) -> str | None:
    """First failing step of a noise-refinement value certificate in mpmath intervals, or None."""
    from certdp.verifier.check_optimum import assumption_step, setup  # noqa: PLC0415

    r, needed = setup(doc)
    step = assumption_step(needed, doc)
    if step is not None:
        return step
    r0, r1, _ = bracket_of(doc["evidence"], "evidence", tail=False)
    fns = _grammar_functions(r) if r is not None else _sympy_functions(doc)
    if fns is None:
        return "F(x) = f(x, δ0(x)) or its derivative cannot be evaluated"
    big_f, dbig_f, f2, d0b, e_f, d_f = fns

    def proof() -> str | None:
        eb, db = e_f(), d_f()
        if not (_finite(eb) and _finite(db)):
            raise _Undecided
        if not (eb.a >= 0 and db.a > 0 and db.b < 1):
            if eb.b < 0 or db.b <= 0 or db.a >= 1:
                return "claim.at needs eps >= 0 and 0 < delta < 1"
            raise _Undecided
        xmax = iv.log((db + iv.exp(eb)) / (1 - db))
        if not _finite(xmax):
            raise _Undecided
        (xmax_lo, xmax_up), (e_lo, e_up) = (map(_rational, x._mpi_) for x in (xmax, eb))
        if not r0 < xmax_lo:
            if r0 >= xmax_up:
                return "the bracket's left end is not below x_max: outside the domain [ε, x_max]"
            raise _Undecided
        rho = kernel.point(r0) if r0 >= e_up else eb
        f_ref = big_f(rho)
        if not _finite(f_ref):
            raise _Undecided
        f_ref_up = f_ref.b

        def above(c: Any, u: Fraction) -> bool:
            v = big_f(c)
            if _finite(v):
                return bool(v.a > f_ref_up)
            w = f2(kernel.point(xmax_up), d0b(kernel.point(u)))
            return bool(_finite(w) and w.a > f_ref_up)

        def left(c: Any, u: Fraction, v: Fraction) -> bool:
            g = dbig_f(c)
            return bool((_finite(g) and g.b < 0) or above(c, u))

        def right(c: Any, u: Fraction, v: Fraction) -> bool:
            if u > xmax_up:
                return True
            g = dbig_f(c)
            return bool((_finite(g) and g.a > 0) or above(c, u))

        if r0 > e_lo and not _cells(e_lo, r0, _safe(left)):
            return "a cell of [ε, r0] has neither F' < 0 nor F > F(r0): a minimiser may lie left of the bracket"
        if r1 < xmax_up and not _cells(r1, xmax_up, _safe(right)):
            return "a cell of [r1, x_max] has neither F' > 0 nor F > F(r0): a minimiser may lie right of the bracket"
        hull = _hull(kernel.point(r0), kernel.point(r1))
        value = big_f(hull) if quantity == "refined_sigma" else d0b(hull) if quantity == "refined_delta0" else hull
        if not _finite(value):
            raise _Undecided
        lo_i, hi_i = kernel.point(lo), kernel.point(hi)
        if value.a >= lo_i.b and value.b <= hi_i.a:
            return None
        if value.b < lo_i.a or value.a > hi_i.b:
            return f"{quantity} on the bracket is not inside [lo, hi]"
        raise _Undecided

    return _run(proof, prec)
