"""Exact GDP identification (Liu et al. 2022 Thm 4.3, Thm 4.4; Liu et al. 2022 (later version) Thm 3.2–3.3).

A mechanism with privacy profile δ is GDP iff

    L = limsup_{ε→∞} ε² / (−2 log δ(ε))

is finite, and then limsup_{ε→∞} G_δ(ε) = √L (the tail μ).  The asymptotic
engine (:mod:`certdp.analyses.limits.engine`) computes the leading term of log δ(ε):

* δ(ε) = 0 for all ε ≥ T (certified T)        → L = 0, GDP;
* log δ(ε) ~ −C ε² with C > 0 exact           → L = 1/(2C), GDP;
* log δ(ε) ~ k ε^p (log ε)^q, order > ε², k<0 → L = 0, GDP;
* log δ(ε) = o(ε²), δ ≤ 1                     → L = +∞, not GDP
  (δ → δ₀ > 0, ε^{-k} tails, ...).

Anything the rules cannot settle gives verdict "undecided" with the reason;
a numeric estimate is never returned as L.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import sympy

from certdp.errors import InputError, PrecisionError
from certdp.expr.evaluate import try_ball
from certdp.analyses.limits.asymptotics import OO, ZERO_ORDER, Undecided, cmp_order, sign_of
from certdp.analyses.limits.engine import Engine
from certdp.numerics.decide import decide
from certdp.numerics.enclosure import Enclosure


@dataclass(frozen=True)
class Step:
    """One step of the proof trace: what was shown, and by which rule."""

    step: str
    rule: str

    def to_json(self) -> dict[str, str]:
        return {"step": self.step, "rule": self.rule}


@dataclass(frozen=True)
class Identification:
    """Result of :func:`identify`.

    ``L`` is exact (sympy; ``oo`` when not GDP; None when undecided),
    ``sqrt_L`` = √L, ``tail_mu`` an Enclosure of √L when L is a finite number,
    ``vanishing_point`` T with δ(ε) = 0 for all ε ≥ T (for ε > T when
    ``vanishing_strict``; exact sympy, when the profile is eventually zero and
    T is explicit; None otherwise), ``reason`` for "undecided".
    """

    verdict: str
    L: sympy.Expr | None
    sqrt_L: sympy.Expr | None
    tail_mu: Enclosure | None
    vanishing_point: sympy.Expr | None
    reason: str | None
    trace: tuple[Step, ...]
    profile: sympy.Expr | None = None
    seconds: float = 0.0
    #: True when δ(ε) = 0 is proved for ε > vanishing_point (not at the point)
    vanishing_strict: bool = False
    #: unproved hypotheses the verdict rests on (profile validity, nested mechanisms)
    assumptions: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """{"verdict", "L", "tail_mu", "trace", "assumptions"}."""
        return {
            "verdict": self.verdict,
            "L": None if self.L is None else str(self.L),
            "tail_mu": None if self.tail_mu is None else self.tail_mu.to_json(),
            "trace": [s.to_json() for s in self.trace],
            "assumptions": list(self.assumptions),
        }

    def __str__(self) -> str:
        head = {"gdp": "GDP", "not_gdp": "NOT GDP", "undecided": "UNDECIDED"}[self.verdict]
        lines = [f"verdict: {head}" + (" (assuming unproved hypotheses, listed below)" if self.assumptions else "")]
        lines += [f"assuming (unproved): {a}" for a in self.assumptions]
        if self.L is not None:
            lines.append(f"L = limsup eps^2/(-2 log delta(eps)) = {self.L}")
        if self.tail_mu is not None:
            lines.append(f"tail mu = sqrt(L) = {self.sqrt_L} in {self.tail_mu}")
        elif self.sqrt_L is not None:
            lines.append(f"tail mu = sqrt(L) = {self.sqrt_L}")
        if self.vanishing_point is not None:
            rel = ">" if self.vanishing_strict else ">="
            lines.append(f"delta(eps) = 0 for all eps {rel} {self.vanishing_point}")
        if self.reason:
            lines.append(f"reason: {self.reason}")
        lines.append("proof trace:")
        for i, s in enumerate(self.trace, 1):
            lines.append(f"  {i}. {s.step}")
            lines.append(f"     [{s.rule}]")
        return "\n".join(lines)


def _validate(expr: sympy.Expr) -> tuple[str, ...]:
    """Check that a bare expression is a privacy profile before identifying
    it (Liu et al. 2022 Def 4.1 as certdp states it: values in [0, 1],
    non-increasing, δ(0) < 1).  Certainly invalid → InputError with the
    witness; what could not be proved → returned as assumptions.  With
    symbolic parameters nothing can be evaluated: the hypotheses are then
    all assumed."""
    from certdp.expr.profile import validate_profile  # noqa: PLC0415
    from certdp.expr.symbols import EPS  # noqa: PLC0415

    others = {s for s in expr.free_symbols if s.name != "eps"}
    if others:
        names = ", ".join(sorted(s.name for s in others))
        return (f"delta(eps) is a privacy profile (values in [0, 1], non-increasing, delta(0) < 1): "
                f"not checked, the expression has symbolic parameters ({names})",)
    swap = {s: EPS for s in expr.free_symbols if s.name == "eps" and s != EPS}
    check = validate_profile(expr.xreplace(swap) if swap else expr)
    return tuple(check.unproved)


def _eps_symbol(expr: sympy.Expr) -> sympy.Symbol:
    from certdp.expr.symbols import EPS  # noqa: PLC0415
    if EPS in expr.free_symbols:
        return EPS
    named = [s for s in expr.free_symbols if s.name == "eps"]
    if len(named) == 1:
        return named[0]
    return EPS


def _mu_enclosure(L: sympy.Expr) -> Enclosure | None:
    if L.free_symbols or L == OO:
        return None
    if L == 0:
        return Enclosure.exact(0)
    def test(_prec: int) -> Enclosure | None:
        v = try_ball(L, {})
        if v is None:
            raise Undecided(f"no certified ball for {L}")
        v = v.sqrt()
        return Enclosure.from_ball(v) if v.is_finite() and v.rad() < v.mid().abs_lower() * 2.0**-60 else None

    try:
        return decide(test, start=128, cap=512, what=f"√{L}")
    except (Undecided, PrecisionError):
        return None


def _max_point(points: list) -> sympy.Expr | None:
    best = None
    for p in points:
        if p is None:
            return None
        if best is None:
            best = p
            continue
        try:
            best = p if sign_of(p - best) > 0 else best
        except Undecided:
            best = sympy.Max(best, p)
    return best


def _normalise_erf(expr: sympy.Expr, eng: Engine) -> sympy.Expr:
    """Rewrite erf/erfc exactly so that each erfc argument tends to +∞ (or a
    finite limit): cancellations such as 1 + erf(y), y → −∞, then become
    explicit (= erfc(−y)).  erfc(−x) is built unevaluated (sympy would turn
    it back into 2 − erfc(x))."""
    eps = eng.eps

    def lim(x: sympy.Expr) -> sympy.Expr | None:
        try:
            return eng.an(x).limit
        except Undecided:
            return None

    def rw(node: sympy.Expr) -> sympy.Expr:
        x = node.args[0]
        L = lim(x)
        if node.func is sympy.erf:
            if L == -OO:
                return sympy.erfc(-x, evaluate=False) - 1
            if L == OO:
                return 1 - sympy.erfc(x)
            return node
        if L == -OO:
            return 2 - sympy.erfc(-x, evaluate=False)
        return node

    return expr.replace(lambda n: n.func in (sympy.erf, sympy.erfc) and eps in n.free_symbols, rw)


def _composed_subsampled_gaussian(mech: Any, t0: float) -> Identification | None:
    """T-fold Poisson-subsampled Gaussian (DP-SGD, no closed-form profile):
    L = T (Δ/σ)², whatever the rate q (Liu et al. 2022 §5.3 with Thm 4.4).

    Proof (both directions elementary).  Write G = N(Δ, σ²), Q = N(0, σ²),
    P = (1-q)Q + qG, μ = √T Δ/σ.  Upper: P^T is a mixture over the set S of
    sampled steps of G^S ⊗ Q^(rest); the hockey-stick divergence is jointly
    convex, so δ_T(ε) <= Σ_S w_S δ_{√|S| Δ/σ}(ε) <= δ_μ(ε) for both neighbouring
    relations.  Lower: P^T >= q^T G^T as measures, so for every event E,
    P^T(E) - e^ε Q^T(E) >= q^T (G^T(E) - e^{ε + T log(1/q)} Q^T(E)); hence
    δ_T(ε) >= q^T δ_μ(ε + T log(1/q)).  A constant factor and a constant shift
    of ε do not change lim ε²/(-2 log δ), so L = μ² exactly.
    """
    from certdp.mechanisms.basic import Gaussian  # noqa: PLC0415
    from certdp.mechanisms.transforms import Compose, Subsample  # noqa: PLC0415

    if not isinstance(mech, Compose) or mech.has_closed_form:
        return None
    inner = mech.mechanism
    if not (isinstance(inner, Subsample) and isinstance(inner.mechanism, Gaussian)):
        return None
    g = inner.mechanism
    k, q = int(mech.k), sympy.Rational(inner.rate.numerator, inner.rate.denominator)
    ratio = sympy.Rational(g.sensitivity.numerator, g.sensitivity.denominator) / sympy.Rational(
        g.sigma.numerator, g.sigma.denominator)
    L = sympy.Integer(k) * ratio**2
    steps = (
        Step(f"mechanism {mech!r}: {k}-fold Poisson-subsampled Gaussian, rate q = {q}, Δ/σ = {ratio}", "input"),
        Step(f"delta_T(eps) <= delta_mu(eps) with mu = sqrt({k})*{ratio}",
             "joint convexity of the hockey-stick divergence over the mixture of sampled subsets"),
        Step(f"delta_T(eps) >= q^T delta_mu(eps + T log(1/q)) with q^T = ({q})**{k}",
             "P^T >= q^T G^T as measures (all steps sampled)"),
        Step("log delta_mu(eps) = -eps^2/(2 mu^2) + O(log eps); constant factors and shifts of eps do not "
             f"change the limit, so L = mu^2 = {L}", "Thm 4.4 (Liu et al. 2022 §5.3: subsampling leaves the tail unchanged)"),
    )
    return Identification("gdp", L, sympy.sqrt(L), _mu_enclosure(L), None, None, steps, None,
                          time.perf_counter() - t0)


def _composition_from_parts(mech: Any, t0: float) -> Identification | None:
    """The tail of a composition without a closed-form profile, from its parts.

    **NOT GDP when one part is.**  Ignoring the other parts' outputs is
    post-processing, so for every neighbouring pair and every ε the composition's
    hockey-stick divergence is at least the part's: δ_comp(ε) >= δ_part(ε)
    (composition is monotone in each part's trade-off function: Dong, Roth & Su
    2022).  Then ε²/(−2 log δ_comp(ε)) >= ε²/(−2 log δ_part(ε)), and L_part = ∞
    gives L_comp = ∞ (Liu et al. 2022 Thm 4.3/4.4).

    **L = 0 when every part's profile vanishes.**  δ_i(ε) = 0 for ε >= T_i means
    the part's privacy loss is at most T_i almost surely for every neighbouring
    pair (δ is continuous, so a strict threshold vanishes at T_i too); the losses
    of a composition add, so δ_comp(ε) = 0 for ε >= Σ T_i and L = 0 (Thm 4.4).

    Where a part's verdict is about an upper-bound profile (a stated guarantee),
    so is this one, and the parts' assumptions travel with it.  None when neither
    rule applies (the composition is then refused as before).
    """
    from certdp.mechanisms.transforms import Compose, ComposeAll  # noqa: PLC0415

    if not isinstance(mech, (Compose, ComposeAll)) or mech.has_closed_form:
        return None
    if isinstance(mech, Compose):
        parts, counts = (mech.mechanism,), (int(mech.k),)
    else:
        parts = tuple(mech.children())
        counts = (1,) * len(parts)
    subs = []
    for part in parts:
        try:
            sub = identify(part)
        except InputError:
            sub = None
        if sub is not None and sub.verdict == "not_gdp":
            steps = (
                Step(f"mechanism {mech!r}: a composition with no closed-form profile; its part {part!r} "
                     "is analysed", "input"),
                *(Step(f"  [part] {s.step}", s.rule) for s in sub.trace),
                Step("delta_comp(eps) >= delta_part(eps) for every eps (dropping the other parts' outputs is "
                     "post-processing), so L_comp >= L_part = oo",
                     "composition is monotone in each part (Dong, Roth & Su 2022); Thm 4.3/4.4: not GDP"),
            )
            return Identification("not_gdp", OO, OO, None, None, None, steps, None, time.perf_counter() - t0,
                                  assumptions=tuple(sub.assumptions))
        subs.append(sub)
    if any(s is None or s.verdict != "gdp" or s.vanishing_point is None for s in subs):
        return None
    total = sympy.Add(*(c * s.vanishing_point for c, s in zip(counts, subs)))
    steps = [Step(f"mechanism {mech!r}: a composition with no closed-form profile; its parts are analysed",
                  "input")]
    for c, (part, s) in zip(counts, zip(parts, subs)):
        steps += [Step(f"  [part {part!r}] {t.step}", t.rule) for t in s.trace]
        times = f"{c} times: " if c > 1 else ""
        steps.append(Step(f"{times}{part!r} has privacy loss <= {s.vanishing_point} almost surely",
                          "delta(eps) = 0 for eps >= T (delta is continuous in eps)"))
    steps.append(Step(f"the losses add: delta_comp(eps) = 0 for eps >= {total}, so L = 0",
                      "composition of pure-DP losses; Thm 4.4"))
    assumptions = tuple(dict.fromkeys(a for s in subs for a in s.assumptions))
    return Identification("gdp", sympy.Integer(0), sympy.Integer(0), Enclosure.exact(0), total, None,
                          tuple(steps), None, time.perf_counter() - t0, False, assumptions)


def identify(mechanism_or_profile: Any, *, validate: bool = True) -> Identification:
    """Identify GDP exactly from δ(ε) (a sympy expression in ε, or a Mechanism).

    Liu et al. 2022 Thm 4.4: limsup G_δ = √L with L = limsup ε²/(−2 log δ(ε)); the
    mechanism is GDP iff L < ∞ (Thm 4.3).  A Mechanism is analysed through
    ``profile()``; when that is only an upper bound on the true profile the
    verdict is about the bound (L is then an upper bound on the true tail).
    """
    t0 = time.perf_counter()
    special = (_composed_subsampled_gaussian(mechanism_or_profile, t0)
               or _composition_from_parts(mechanism_or_profile, t0))
    if special is not None:
        return special
    if hasattr(mechanism_or_profile, "profile") and callable(mechanism_or_profile.profile):
        expr = mechanism_or_profile.profile()
        source = (f"mechanism {mechanism_or_profile!r} (its profile() is analysed; where profile() is an "
                  f"upper bound on the true profile, e.g. subsample/clip_reify/trade-off mechanisms, L bounds "
                  f"the mechanism's tail from above and not_gdp means the stated guarantee implies no GDP)")
    else:
        expr = mechanism_or_profile
        source = "profile"
    if not isinstance(expr, sympy.Expr):
        raise InputError(f"identify: expected a sympy expression or a Mechanism, got {type(expr).__name__}")
    if source == "profile":
        # validate=False: the limit L of any positive expression (a statement
        # about the function, not about a mechanism); by default a bare
        # expression must be a privacy profile first
        assumptions = _validate(expr) if validate else ()
    else:
        assumptions = tuple(mechanism_or_profile.assumptions)
    eps = _eps_symbol(expr)
    eng = Engine(eps)
    eng.note(f"{source}: delta(eps) = {expr}", "input")

    def done(verdict, L, reason=None, vanish=None, strict=False) -> Identification:
        sq = None if L is None else (OO if L == OO else sympy.sqrt(L))
        mu = None if L is None else _mu_enclosure(L)
        steps = tuple(Step(s, r) for s, r in eng.trace)
        return Identification(verdict, L, sq, mu, vanish, reason, steps, expr, time.perf_counter() - t0, strict,
                              assumptions)

    if eps not in expr.free_symbols:
        try:
            s = sign_of(expr)
        except Undecided as u:
            eng.note(str(u), "undecided")
            return done("undecided", None, str(u))
        if s == 0:
            eng.note("delta is identically 0: L = 0", "Thm 4.4")
            return done("gdp", sympy.Integer(0), vanish=sympy.Integer(0))
        if s < 0:
            raise InputError(f"identify: profile is a negative constant {expr}")
        if sign_of(expr - 1) >= 0:
            raise InputError(f"identify: constant profile {expr} >= 1 gives no privacy guarantee")
        eng.note(f"delta = {expr} > 0 is constant, so log delta = O(1) = o(eps^2) and L = oo",
                 "Thm 4.4: limsup eps^2/(-2 log delta) = oo")
        return done("not_gdp", OO)
    try:
        expr_n = _normalise_erf(expr, eng)
        if expr_n != expr:
            eng.note(f"delta(eps) = {expr_n}", "erf(x) = 1 - erfc(x) = erfc(-x) - 1 and erfc(x) = 2 - erfc(-x), "
                     "chosen so that every erfc argument tends to +oo")
        a = eng.an(expr_n)
        if a.sign == 0:
            T = _max_point([t.point for t in eng.thresholds])
            strict = any(t.strict for t in eng.thresholds)
            rel = ">" if strict else ">="
            eng.note(f"delta(eps) = 0 for all eps {rel} {T if T is not None else 'some T (symbolic)'} (the "
                     f"largest certified threshold above), so -log delta = +oo there and L = 0",
                     "eventually-zero profile; Thm 4.4")
            return done("gdp", sympy.Integer(0), vanish=T, strict=strict)
        if a.sign < 0:
            raise InputError(f"identify: profile {expr} is eventually negative")
        ll = a.llead
        if ll is None:
            raise Undecided(f"no leading term for log delta(eps) of {expr}")
        two = (sympy.Integer(2), sympy.Integer(0))
        c = cmp_order(ll.order, two)
        if c > 0:
            if sign_of(ll.k) > 0:
                raise InputError(f"identify: profile {expr} is unbounded")
            eng.note(f"log delta(eps) ~ {ll.show()} grows faster than eps^2 (to -oo), so "
                     f"eps^2/(-2 log delta) -> 0", "Thm 4.4")
            return done("gdp", sympy.Integer(0))
        if c == 0:
            k = ll.k
            if sign_of(k) >= 0:
                raise InputError(f"identify: profile {expr} does not tend to 0")
            L = sympy.simplify(-1 / (2 * k))
            eng.note(f"log delta(eps) = ({k}) eps^2 (1 + o(1)), so eps^2/(-2 log delta(eps)) -> "
                     f"1/(2*({-k})) = {L}", "Thm 4.4 (limit of a rational function of the leading coefficient)")
            return done("gdp", L)
        # log δ = o(ε²)
        lim = a.limit
        if lim not in (OO, -OO):
            s1 = sign_of(lim - 1)
            if s1 > 0:
                raise InputError(f"identify: profile {expr} tends to {lim} > 1")
            if s1 == 0:
                raise Undecided(f"delta(eps) -> 1; cannot bound log delta away from 0 from below")
        else:
            raise InputError(f"identify: profile {expr} is unbounded")
        what = f"delta(eps) -> {lim} > 0" if cmp_order(ll.order, ZERO_ORDER) == 0 and lim != 0 else \
            f"log delta(eps) ~ {ll.show()} = o(eps^2)"
        eng.note(f"{what}, so -2 log delta(eps) = o(eps^2) and eps^2/(-2 log delta(eps)) -> +oo: "
                 f"no mu-GDP curve stays above delta", "Thm 4.4 / Thm 4.3: L = oo, not GDP")
        return done("not_gdp", OO)
    except Undecided as u:
        eng.note(f"undecided: {u}", "no rule applies")
        return done("undecided", None, str(u))
