"""Compositional monotonicity and sign of expressions on ε ∈ (0, ∞).

Rules (each a textbook fact): ε is increasing; constants are constant; a sum
of functions monotone in the same direction is monotone in that direction;
c·f flips with the sign of c; a product of positive functions monotone in
the same direction is monotone in that direction; exp, log, √, x^r (r > 0,
x ≥ 0), erf are increasing, erfc and x^r (r < 0, x > 0) decreasing; Max/Min
of functions monotone in the same direction keep it.  Anything else: unknown.

``dsign`` returns "pos", "nonneg", "neg", "nonpos" or None for the sign of
the expression on the whole domain ε > 0.
"""

from __future__ import annotations

import functools

import sympy

from certdp.analyses.limits.asymptotics import Undecided, sign_of

_FLIP = {"pos": "neg", "neg": "pos", "nonneg": "nonpos", "nonpos": "nonneg", None: None}


def _const_dsign(c: sympy.Expr) -> str | None:
    try:
        s = sign_of(c)
    except Undecided:
        return None
    return {1: "pos", -1: "neg", 0: "nonneg"}[s]


def _sign_by_monotone_from_zero(e: sympy.Expr, eps: sympy.Symbol) -> str | None:
    """A nondecreasing e with e(0) > 0 (>= 0) is positive (nonnegative) on
    (0, ∞); symmetrically for nonincreasing.  e(0) is the exact value
    e.subs(ε, 0) (finite, so e is continuous at 0), its sign certified by
    ball arithmetic or by the parameters' assumptions."""
    m = mono(e, eps)
    if m not in (1, -1):
        return None
    v = e.subs(eps, 0)
    if v.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo) or v.is_finite is False:
        return None
    try:
        sv = sign_of(v)
    except Undecided:
        return None
    if m == 1 and sv >= 0:
        return "pos" if sv > 0 else "nonneg"
    if m == -1 and sv <= 0:
        return "neg" if sv < 0 else "nonpos"
    return None


def split_erfc_term(t: sympy.Expr, eps: sympy.Symbol):
    """t = c · F · erfc(x) with c ε-free and F a product of ε-dependent factors
    positive on (0, ∞); returns (c, [F factors], x) or None."""
    factors = sympy.Mul.make_args(t)
    erfcs = [f for f in factors if f.func is sympy.erfc]
    if len(erfcs) != 1:
        return None
    c = sympy.Mul(*[f for f in factors if eps not in f.free_symbols])
    F = [f for f in factors if eps in f.free_symbols and f is not erfcs[0]]
    if any(dsign(f, eps) != "pos" for f in F):
        return None
    # log(u**r) = r log u below needs u > 0, not only u**r > 0
    if any(f.is_Pow and dsign(f.args[0], eps) != "pos" for f in F):
        return None
    return c, F, erfcs[0].args[0]


@functools.lru_cache(maxsize=256)
def erfc_pair_data(t1: sympy.Expr, t2: sympy.Expr, eps: sympy.Symbol):
    """For c₁F₁erfc(x₁) + c₂F₂erfc(x₂) with c₁ > 0 > c₂: returns
    (c1, F1, x1, c2, F2, x2, d, D, kappa) where d = x₂ − x₁ and
    D = log F₂ − log F₁ − (x₂² − x₁²) are ε-free and κ = (c₂/c₁)e^D; else None.
    Then the sum is c₁F₁e^{−x₁²}(erfcx(x₁) + κ erfcx(x₂))."""
    a, b = split_erfc_term(t1, eps), split_erfc_term(t2, eps)
    if a is None or b is None:
        return None
    try:
        if sign_of(a[0]) < 0:
            a, b = b, a
        if not (sign_of(a[0]) > 0 > sign_of(b[0])):
            return None
    except Undecided:
        return None
    (c1, F1, x1), (c2, F2, x2) = a, b
    d = sympy.expand(x2 - x1)
    if eps in d.free_symbols:
        d = sympy.simplify(d)
    if eps in d.free_symbols:
        return None
    logF = sum((sympy.expand_log(sympy.log(f), force=True) for f in F2), sympy.Integer(0)) - \
        sum((sympy.expand_log(sympy.log(f), force=True) for f in F1), sympy.Integer(0))
    D = sympy.expand(logF - d * (x1 + x2))
    if eps in D.free_symbols:
        D = sympy.simplify(D)
    if eps in D.free_symbols:
        return None
    kappa = c2 * sympy.exp(D) / c1
    if not kappa.is_Number:
        kappa = sympy.simplify(kappa)
    return c1, F1, x1, c2, F2, x2, d, D, kappa


def erfc_pair_positive(t1: sympy.Expr, t2: sympy.Expr, eps: sympy.Symbol) -> bool:
    """c₁F₁e^{−x₁²}(erfcx(x₁) + κ erfcx(x₂)) > 0 for every ε when κ ≥ −1 and
    x₂ − x₁ = d > 0, because erfcx = e^{x²}erfc(x) is positive and strictly
    decreasing on ℝ (this is δ_μ > 0 for the GDP profile)."""
    data = erfc_pair_data(t1, t2, eps)
    if data is None:
        return False
    d, kappa = data[6], data[8]
    try:
        return sign_of(d) > 0 and sign_of(kappa + 1) >= 0
    except Undecided:
        return False


def dsign(e: sympy.Expr, eps: sympy.Symbol) -> str | None:
    """Sign of e(ε) for every ε > 0, when provable compositionally."""
    if eps not in e.free_symbols:
        return _const_dsign(e)
    if e.is_Add and len(e.args) == 2 and erfc_pair_positive(e.args[0], e.args[1], eps):
        return "pos"
    if e == eps:
        return "pos"  # the domain is ε > 0 (ε = 0 is handled by continuity)
    if e.func in (sympy.exp, sympy.erfc):
        return "pos"
    if e.func is sympy.Abs:
        return "nonneg"
    if e.is_Add:
        ss = [dsign(a, eps) for a in e.args]
        if all(s in ("pos", "nonneg") for s in ss):
            return "pos" if "pos" in ss else "nonneg"
        if all(s in ("neg", "nonpos") for s in ss):
            return "neg" if "neg" in ss else "nonpos"
        return _sign_by_monotone_from_zero(e, eps)
    if e.is_Mul:
        neg, strict = False, True
        for a in e.args:
            s = dsign(a, eps)
            if s is None:
                return None
            if s in ("neg", "nonpos"):
                neg = not neg
            if s in ("nonneg", "nonpos"):
                strict = False
        if neg:
            return "neg" if strict else "nonpos"
        return "pos" if strict else "nonneg"
    if e.is_Pow:
        b, x = e.args
        if eps in x.free_symbols:
            return "pos" if dsign(b, eps) == "pos" else None
        sb = dsign(b, eps)
        if sb == "pos":
            return "pos"
        if sb == "nonneg" and sign_of(x) > 0:
            return "nonneg"
        if x.is_Integer and sb is not None:
            return sb if int(x) % 2 else ("pos" if sb in ("pos", "neg") else "nonneg")
        return None
    if e.func is sympy.Max:
        ss = [dsign(a, eps) for a in e.args]
        if "pos" in ss:
            return "pos"
        if "nonneg" in ss:
            return "nonneg"
        if all(s == "neg" for s in ss):
            return "neg"
        return None
    if e.func is sympy.Min:
        ss = [dsign(a, eps) for a in e.args]
        if all(s == "pos" for s in ss):
            return "pos"
        if all(s in ("pos", "nonneg") for s in ss):
            return "nonneg"
        if "neg" in ss:
            return "neg"
        return None
    return None


def _combine(dirs: list[int | None]) -> int | None:
    nz = {d for d in dirs if d != 0}
    if None in nz:
        return None
    if not nz:
        return 0
    if len(nz) == 1:
        return nz.pop()
    return None


def mono(e: sympy.Expr, eps: sympy.Symbol) -> int | None:
    """+1 nondecreasing, -1 nonincreasing, 0 constant on (0, ∞); None unknown."""
    if eps not in e.free_symbols:
        return 0
    if e == eps:
        return 1
    if e.is_Add:
        return _combine([mono(a, eps) for a in e.args])
    if e.is_Mul:
        const = [a for a in e.args if eps not in a.free_symbols]
        var = [a for a in e.args if eps in a.free_symbols]
        c = sympy.Mul(*const)
        try:
            sc = sign_of(c)
        except Undecided:
            return None
        if len(var) == 1:
            m = mono(var[0], eps)
            return None if m is None else m * sc
        if all(dsign(a, eps) == "pos" for a in var):
            m = _combine([mono(a, eps) for a in var])
            return None if m is None else m * sc
        return None
    if e.is_Pow:
        b, x = e.args
        if eps in x.free_symbols:
            return mono(sympy.exp(x * sympy.log(b)), eps) if dsign(b, eps) == "pos" else None
        sx = sign_of(x)
        m = mono(b, eps)
        if m is None:
            return None
        sb = dsign(b, eps)
        if sx > 0 and sb in ("pos", "nonneg"):
            return m
        if sx < 0 and sb == "pos":
            return -m
        return None
    if e.func in (sympy.exp, sympy.erf):
        return mono(e.args[0], eps)
    if e.func is sympy.log:
        return mono(e.args[0], eps) if dsign(e.args[0], eps) == "pos" else None
    if e.func is sympy.erfc:
        m = mono(e.args[0], eps)
        return None if m is None else -m
    if e.func in (sympy.Max, sympy.Min):
        return _combine([mono(a, eps) for a in e.args])
    if e.func is sympy.Abs:
        s = dsign(e.args[0], eps)
        m = mono(e.args[0], eps)
        if m is None:
            return None
        if s in ("pos", "nonneg"):
            return m
        if s in ("neg", "nonpos"):
            return -m
        return None
    return None
