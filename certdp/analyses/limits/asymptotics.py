"""Asymptotic rewrite engine for privacy profiles δ(ε) as ε → ∞.

Every subexpression f(ε) is summarised by an :class:`Asym`:

* ``sign``  -- the sign of f for all large ε (+1, -1, or 0 = identically zero
  for all large ε);
* ``lead``  -- f ~ k ε^p (log ε)^q  (power-log type), or None;
* ``llead`` -- log|f| ~ k ε^p (log ε)^q (the leading term of the logarithm);
  at order (0, 0) it means log|f| → k exactly; None when unknown;
* ``limit`` -- lim f (extended real, exact sympy).

Each rule is an honest asymptotic statement and is recorded in the trace:

* erfc tail: log erfc(x) = −x² − log x − log √π + o(1) as x → +∞, hence
  log erfc(x) ~ −x² (Abramowitz–Stegun 7.1.23; Liu et al. 2022 Lemma A.1 uses the
  equivalent Mills-ratio bounds); erfc(x) → 2 as x → −∞.
* erfc pair (the δ_μ cancellation, Liu et al. 2022 Lemma A.1 / DESIGN.md): with
  erfcx(x) = e^{x²} erfc(x),
  c₁F₁ erfc(x₁) + c₂F₂ erfc(x₂) = c₁F₁e^{−x₁²}(erfcx(x₁) + κ erfcx(x₂)),
  κ = (c₂/c₁) e^D, D = log F₂ − log F₁ − x₂² + x₁² (must be ε-free).
  If κ = −1 and x₂ − x₁ = d > 0 is constant, erfcx(x₁) − erfcx(x₂) =
  d |erfcx'(ξ)| with erfcx'(ξ) = −1/(√π ξ²)(1 + O(ξ⁻²)), so
  log|sum| = log F₁ − x₁² − 2 log x₁ + O(1).  For δ_μ this is the identity
  δ_μ(ε) = φ(a)(R(−a) − R(−b)), R(x) = 1/x − 1/x³ + O(x⁻⁵), giving
  log δ_μ(ε) = −a²/2 + O(log ε).
  SEED FINDING (Liu et al. 2022 Lemma A.1): the printed equivalent
  δ̃_μ(ε) = μ e^{−a²/2}/√(2π a²) is off by a factor |b|: δ_μ/δ̃_μ → 0 (like
  1/|b|; e.g. 0.0484 at μ = 1, ε = 20, 0.000999 at ε = 1000).  The correct
  equivalent is μ e^{−a²/2}/(√(2π)·a·b) ~ μ e^{−a²/2}/(√(2π) a²), b = a − μ
  (tests/test_identify.py checks both with mpmath).  Thm 4.4 is unaffected:
  the two differ by O(log ε) in log δ, which is o(ε²).
* sums: a term whose log-ratio to every other term tends to +∞ dominates
  (A + B = A(1 + o(1))); terms with finite limits add their limits.
* products, powers, exp, log: monomial arithmetic on lead / llead.
* Max / Min / Piecewise: the eventual branch is chosen from the eventual
  sign of the branch difference; thresholds are certified separately
  (:mod:`certdp.analyses.limits.thresholds`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import sympy

from certdp.expr.evaluate import constant_sign as const_sign

OO = sympy.oo


class Undecided(Exception):
    """The engine cannot decide; the message is the reason."""


@dataclass(frozen=True)
class Mono:
    """The monomial k · ε^p · (log ε)^q (p may be +oo: faster than any power)."""

    k: sympy.Expr
    p: sympy.Expr
    q: sympy.Expr

    @property
    def order(self) -> tuple[sympy.Expr, sympy.Expr]:
        return (self.p, self.q)

    def show(self) -> str:
        parts = []
        if self.p == OO:
            return f"{'+' if sign_of(self.k) > 0 else '-'}(super-polynomial)"
        if self.p != 0:
            parts.append("eps" if self.p == 1 else f"eps**({self.p})")
        if self.q != 0:
            parts.append("log(eps)" if self.q == 1 else f"log(eps)**({self.q})")
        body = "*".join(parts)
        if not body:
            return str(self.k)
        return body if self.k == 1 else f"({self.k})*{body}"


ZERO_ORDER = (sympy.Integer(0), sympy.Integer(0))


def _cmp_num(a: sympy.Expr, b: sympy.Expr) -> int:
    if a == b:
        return 0
    if a == OO:
        return 1
    if b == OO:
        return -1
    s = sign_of(a - b)
    return s


def cmp_order(a: tuple, b: tuple) -> int:
    c = _cmp_num(a[0], b[0])
    return c if c else _cmp_num(a[1], b[1])


def sign_of(c: sympy.Expr) -> int:
    """Certified sign of an ε-free constant (ball arithmetic when numeric, sympy
    assumptions when symbolic).  Raises Undecided when unknown."""
    c = sympy.sympify(c)
    if c == 0:
        return 0
    if c == OO:
        return 1
    if c == -OO:
        return -1
    if not c.free_symbols:
        s = const_sign(c)
        if s is not None:
            return s
        raise Undecided(f"cannot certify the sign of the constant {c}")
    if c.is_positive:
        return 1
    if c.is_negative:
        return -1
    if c.is_zero:
        return 0
    z = sympy.simplify(c)
    if z == 0:
        return 0
    if z.is_positive:
        return 1
    if z.is_negative:
        return -1
    raise Undecided(f"cannot decide the sign of {c} (declare parameters positive?)")


@dataclass(frozen=True)
class Asym:
    sign: int
    lead: Mono | None
    llead: Mono | None
    limit: sympy.Expr

    def describe(self) -> str:
        if self.sign == 0:
            return "identically 0 for all large eps"
        bits = []
        if self.lead is not None:
            bits.append(f"~ {self.lead.show()}")
        if self.llead is not None:
            bits.append(f"log|.| ~ {self.llead.show()}" if cmp_order(self.llead.order, ZERO_ORDER) > 0
                        else f"-> {self.limit}")
        return ", ".join(bits) or f"-> {self.limit}"


ZERO = Asym(0, None, None, sympy.Integer(0))


def mono_limit(m: Mono) -> sympy.Expr:
    c = cmp_order(m.order, ZERO_ORDER)
    if c > 0:
        return OO if sign_of(m.k) > 0 else -OO
    if c < 0:
        return sympy.Integer(0)
    return m.k


def llead_from_lead(m: Mono) -> Mono | None:
    """log|k ε^p (log ε)^q| = p log ε + q log log ε + log|k| + o(1)."""
    if m.p == OO:
        return None
    if m.p != 0:
        return Mono(m.p, sympy.Integer(0), sympy.Integer(1))
    if m.q != 0:
        return None  # log log ε scale: not represented
    return Mono(sympy.log(sympy.Abs(m.k)), sympy.Integer(0), sympy.Integer(0))


def normalise_llead(m: Mono | None) -> Mono | None:
    if m is None:
        return None
    if cmp_order(m.order, ZERO_ORDER) < 0:
        return Mono(sympy.Integer(0), sympy.Integer(0), sympy.Integer(0))
    return m


def sum_leading(monos: list[Mono], exact_const: bool = False) -> Mono | None:
    """Leading monomial of a sum of functions with the given leading monomials;
    None if the leading coefficients cancel.  With ``exact_const`` (lleads,
    where order (0, 0) means an exact limit) a zero sum at order (0, 0) is
    kept: the limits add exactly."""
    top = monos[0].order
    for m in monos[1:]:
        if cmp_order(m.order, top) > 0:
            top = m.order
    k = sympy.Add(*[m.k for m in monos if cmp_order(m.order, top) == 0])
    k = sympy.simplify(k) if k.free_symbols else k
    if top[0] == OO:
        ks = [sign_of(m.k) for m in monos if m.p == OO]
        if len(set(ks)) != 1:
            return None
        return Mono(sympy.Integer(ks[0]), OO, sympy.Integer(0))
    if sign_of(k) == 0 and (cmp_order(top, ZERO_ORDER) != 0 or not exact_const):
        return None
    return Mono(k, top[0], top[1])


def asym_from(sign: int, lead: Mono | None, llead: Mono | None, limit: sympy.Expr | None = None) -> Asym:
    if sign not in (1, -1):
        # "identically zero for large ε" is only ever concluded from certified branch
        # thresholds, never from a vanishing leading coefficient
        raise Undecided("leading terms cancel")
    llead = normalise_llead(llead)
    if limit is None:
        if lead is not None:
            limit = mono_limit(lead)
        elif llead is not None:
            c = cmp_order(llead.order, ZERO_ORDER)
            if c > 0:
                limit = OO * sign if sign_of(llead.k) > 0 else sympy.Integer(0)
            else:
                limit = sign * sympy.exp(llead.k)
        else:
            raise Undecided("no asymptotic information")
    if llead is None and lead is not None:
        llead = normalise_llead(llead_from_lead(lead))
    return Asym(sign, lead, llead, limit)


def log_ratio(a: Asym, b: Asym) -> Mono | None:
    """Leading monomial of log|a| − log|b| (None if unknown)."""
    la, lb = a.llead, b.llead
    if la is None or lb is None:
        return None
    c = cmp_order(la.order, lb.order)
    if c > 0:
        return la
    if c < 0:
        return Mono(-lb.k, lb.p, lb.q)
    if la.p == OO:
        return None
    k = la.k - lb.k
    if la.order == ZERO_ORDER:
        return Mono(k, la.p, la.q)
    if sign_of(k) == 0:
        return None
    return Mono(k, la.p, la.q)


def dominates(a: Asym, b: Asym) -> bool:
    """True if b/a → 0 (proved); False if not proved."""
    if b.sign == 0:
        return a.sign != 0
    if a.sign == 0:
        return False
    d = log_ratio(a, b)
    if d is not None and cmp_order(d.order, ZERO_ORDER) > 0:
        return d.p != OO and sign_of(d.k) > 0 or (d.p == OO and sign_of(d.k) > 0)
    if d is not None:
        return False
    if a.lead is not None and b.lead is not None:
        r = Mono(a.lead.k / b.lead.k, a.lead.p - b.lead.p, a.lead.q - b.lead.q)
        return cmp_order(r.order, ZERO_ORDER) > 0
    return False


Tracer = Callable[[str, str], None]
