"""Certified counterexamples: (ε, δ)-ADP mechanisms that are not (ε̂, δ̂)-PrDP.

Guingona et al. 2023 (Guingona et al.):

* Lemma 3.1 — the diagonal mechanism on ``[n]`` (output ``a`` w.p. ``p``,
  every other output w.p. ``q``) is ``(ε, δ)``-ADP and not ``(ε̂, δ̂)``-PrDP
  when (1) ``p, q ∈ (0,1)``, (2) ``p + (n-1)q = 1``,
  (3) ``e^{ε̂} q < p ≤ e^ε q + δ``, (4) ``p > δ̂``.
* Theorem 3.2 — ``δ̂ = δ``: ``n = ⌈(e^{ε̂}+e^ε)(1-δ)/δ⌉`` and the seed's
  closed form ``q* = (2-δ)/(2(n-1)+e^{ε̂}+e^ε)``, ``p* = ((e^{ε̂}+e^ε) q* + δ)/2``.
* Theorem 3.3 — ``δ̂ = g(δ')``: ``n > (1-δ)(e^{ε̂}+e^ε)/δ + 1`` and ``δ'``
  a root of ``h(x) = g(x) + x`` with ``h(x) = (x(n-1)+E)/(2(n-1)+E)``, found by
  certified bisection (IVT on ball signs).
* Corollary 3.4 (2) — ``g(x) = Kx`` and ``ε̂ < ln(1 + 1/K)``.

The seed's ``p*, q*`` are transcendental.  We take an exact rational ``q``
strictly inside the open window of admissible ``q`` (conditions (1)–(4) are
linear in ``q`` once ``p = 1 - (n-1)q``), chosen near ``q*``, and
``p = 1 - (n-1)q``; so the mechanism is an exact rational table and only
``e^ε, e^{ε̂}`` (and ``g(δ')``) need balls.  Every verdict reported is then
re-derived by the exact checks :func:`is_adp` / :func:`is_prdp`; the
construction is never trusted.

Findings about the printed statements (verified by these checks):

* Thm 3.2's hypotheses ``0 < ε < 1`` and ``δ < 1/2`` are not needed by its
  proof: the key inequality ``(E(1-δ) - (e^{ε̂} - e^ε - δe^{ε̂}))/δ > 1``
  equals ``e^ε(2-δ)/δ > 1``, true for every ``ε ≥ 0, δ ∈ (0,1)``; ``ε < 1`` is
  never used; the WLOG ``ε̂ > ε - ln(1-δ)`` is only needed for the proof's
  algebra (``q* `` is admissible for every ``ε̂ ≥ 0``).  The only real
  restriction is ``n ≥ 2``, which the seed's ``n`` meets when ``δ < 2/3``;
  we use ``max(n, 2)``, which keeps the window non-empty.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable

import sympy
from flint import arb

from certdp.errors import InputError, PrecisionError
from certdp.expr.derivative import may_jump
from certdp.numerics.decide import decide
from certdp.numerics.ball import to_ball, working_precision
from certdp.numerics.enclosure import Enclosure
from certdp.numerics.exact import exact
from certdp.analyses.prdp.exactreal import Exact, as_exact, ball_of, format_exact, is_rational, lin_enclosure, lin_sign
from certdp.analyses.prdp.finite import DPCheck, DiagonalMechanism, is_adp, is_prdp
from certdp.analyses.prdp.rational import ball_bounds, certified_floor, simplest_between

ZERO = Fraction(0)


@dataclass(frozen=True)
class Condition:
    """One certified inequality of Lemma 3.1: ``margin > 0`` (or ``≥ 0``) proves it."""

    name: str
    holds: bool
    margin: Enclosure


@dataclass(frozen=True)
class HypothesisCheck:
    """Status of Thm 3.3's hypothesis ``ε̂ < ε + ln(1 + x/g(x))`` on ``(0, δ)``."""

    established: bool
    detail: str
    cells: int = 0


@dataclass(frozen=True)
class Counterexample:
    """A Lemma 3.1 mechanism with its certified verdicts.

    ``delta`` is the ADP δ (δ for Thm 3.2, the rational δ' for Thm 3.3);
    ``delta_hat`` the PrDP δ̂ that fails (exact: a rational or a closed sympy
    expression such as ``g(δ')``).  ``valid`` iff the mechanism is certified
    ``(eps, delta)``-ADP and certified not ``(eps_hat, delta_hat)``-PrDP.
    """

    theorem: str
    n: int
    p: Fraction
    q: Fraction
    eps: Fraction
    delta: Fraction
    eps_hat: Fraction
    delta_hat: Exact
    adp: DPCheck
    prdp: DPCheck
    conditions: tuple[Condition, ...]
    notes: tuple[str, ...] = ()
    penalty: sympy.Expr | None = None
    hypothesis: HypothesisCheck | None = None
    root_bracket: Enclosure | None = None
    seed_q: Enclosure | None = None
    mechanism: DiagonalMechanism = field(default=None, repr=False)  # type: ignore[assignment]

    @property
    def valid(self) -> bool:
        return self.adp.holds and not self.prdp.holds

    def delta_hat_enclosure(self) -> Enclosure:
        return lin_enclosure(ZERO, ZERO, self.delta_hat, ZERO, 128)

    def to_json(self) -> dict:
        """The JSON shape of ``certdp prdp counterexample --json`` (issue 6)."""
        dh: object = format_exact(self.delta_hat) if is_rational(self.delta_hat) else self.delta_hat_enclosure().to_json()
        adp = {"holds": self.adp.holds}
        adp["margin" if self.adp.holds else "violation"] = (
            self.adp.margin if self.adp.holds else self.adp.violation
        ).to_json()
        prdp = {"holds": self.prdp.holds}
        prdp["margin" if self.prdp.holds else "violation"] = (
            self.prdp.margin if self.prdp.holds else self.prdp.violation
        ).to_json()
        return {
            "n": self.n,
            "p": format_exact(self.p),
            "q": format_exact(self.q),
            "eps": format_exact(self.eps),
            "delta": format_exact(self.delta),
            "eps_hat": format_exact(self.eps_hat),
            "delta_hat": dh,
            "adp": adp,
            "prdp": prdp,
            **({"notes": list(self.notes)} if self.notes else {}),  # e.g. the rational stand-in for log(2)
        }

    def __str__(self) -> str:
        lines = [
            f"{self.theorem}: mechanism on [n], output a w.p. p, each other output w.p. q",
            f"  n = {self.n}",
            f"  p = {format_exact(self.p)}  (≈ {float(self.p):.10g})",
            f"  q = {format_exact(self.q)}  (≈ {float(self.q):.10g})",
        ]
        if self.penalty is not None:
            lines.append(f"  penalty g(x) = {sympy.sstr(self.penalty)}")
        if self.root_bracket is not None:
            what = ("h(x) - g(x) - x changes sign (g may jump there: not necessarily a root)" if may_jump(self.penalty)
                    else "root of h(x) = g(x) + x")
            lines.append(f"  {what} bracketed in {self.root_bracket}; δ' = {format_exact(self.delta)}")
        if self.seed_q is not None:
            lines.append(f"  seed's closed-form q* ∈ {self.seed_q}")
        dh = format_exact(self.delta_hat)
        if not is_rational(self.delta_hat):
            dh += f" ∈ {self.delta_hat_enclosure()}"
        lines.append(f"  ADP : {self.adp}")
        lines.append(f"  PrDP: ({format_exact(self.eps_hat)}, {dh}) — {self.prdp}")
        for c in self.conditions:
            lines.append(f"  Lemma 3.1 {c.name}: {'ok' if c.holds else 'FAILS'}, margin ∈ {c.margin}")
        if self.hypothesis is not None:
            h = self.hypothesis
            lines.append(f"  hypothesis ε̂ < ε + ln(1 + x/g(x)) on (0, δ): "
                         f"{'established' if h.established else 'NOT established'} — {h.detail}")
        for note in self.notes:
            lines.append(f"  note: {note}")
        lines.append("  verdict: " + ("CERTIFIED counterexample" if self.valid else "construction FAILED (see above)"))
        return "\n".join(lines)


def _exp(x: Fraction) -> arb:
    return to_ball(x).exp()


def lemma_3_1_conditions(
    n: int, p: Fraction, q: Fraction, eps: Fraction, delta: Exact, eps_hat: Fraction, delta_hat: Exact
) -> tuple[Condition, ...]:
    """Certify conditions (1)–(4) of Guingona et al. 2023 Lemma 3.1 (each as a signed margin)."""
    conds = []
    conds.append(Condition("(1) 0 < p < 1", 0 < p < 1, Enclosure.exact(min(p, 1 - p))))
    conds.append(Condition("(1) 0 < q < 1", 0 < q < 1, Enclosure.exact(min(q, 1 - q))))
    conds.append(Condition("(2) p + (n-1)q = 1", p + (n - 1) * q == 1, Enclosure.exact(p + (n - 1) * q - 1)))
    # (3a) p - e^{ε̂} q > 0
    s, pr = lin_sign(p, q, ZERO, eps_hat, "p - e^eps_hat q")
    conds.append(Condition("(3) e^ε̂ q < p", s > 0, lin_enclosure(p, q, ZERO, eps_hat, pr)))
    # (3b) e^ε q + δ - p >= 0   i.e.  (δ - p) - e^ε (-q)
    s, pr = lin_sign(_sub(delta, p), -q, ZERO, eps, "e^eps q + delta - p")
    conds.append(Condition("(3) p ≤ e^ε q + δ", s >= 0, lin_enclosure(_sub(delta, p), -q, ZERO, eps, pr)))
    # (4) p - δ̂ > 0
    s, pr = lin_sign(p, ZERO, _neg(delta_hat), ZERO, "p - delta_hat")
    conds.append(Condition("(4) p > δ̂", s > 0, lin_enclosure(p, ZERO, _neg(delta_hat), ZERO, pr)))
    return tuple(conds)


def _neg(x: Exact) -> Exact:
    return -x


def _sub(x: Exact, y: Exact) -> Exact:
    if is_rational(x) and is_rational(y):
        return x - y
    return sympy.sympify(0) + (x if not is_rational(x) else sympy.Rational(x.numerator, x.denominator)) - (
        y if not is_rational(y) else sympy.Rational(y.numerator, y.denominator)
    )


def _choose_q(
    n: int,
    eps: Fraction,
    eps_hat: Fraction,
    delta: Fraction,
    dhat_ball: Callable[[], arb],
    target: Callable[[], arb],
    choice: str = "wide",
) -> tuple[Fraction, Enclosure]:
    """A rational ``q`` strictly inside the admissible window of Lemma 3.1,

        (1-δ)/(n-1+e^ε)  ≤  q  <  min(1/(n-1+e^{ε̂}), (1-δ̂)/(n-1)),

    ``choice="wide"``: the simplest rational between the midpoints of
    ``[L, q*]`` and ``[q*, U]`` (``q*`` = ``target``, the seed's value, is
    strictly inside), which gives comfortable margins; ``choice="seed"``: the
    simplest rational within relative distance ``2^-50`` of ``q*``, which
    reproduces the seed's ``p*, q*`` (and their small margins).  Raises :class:`PrecisionError` if the
    window cannot be certified non-empty around the target.
    """
    def test(_prec: int) -> tuple[Fraction, Enclosure] | None:
        m = arb(n - 1)
        lo_w = (1 - to_ball(delta)) / (m + _exp(eps))
        hi_1 = 1 / (m + _exp(eps_hat))
        hi_2 = (1 - dhat_ball()) / m
        t = target()
        Llo, Lhi = ball_bounds(lo_w)
        U = min(ball_bounds(hi_1)[0], ball_bounds(hi_2)[0])
        tlo, thi = ball_bounds(t)
        if Lhi < tlo and thi < U:
            if choice == "seed":
                w = min((tlo - Lhi) / 2, (U - thi) / 2, tlo / 2**50)
                a, b = tlo - w, thi + w
            else:
                a = tlo - (tlo - Lhi) / 2
                b = thi + (U - thi) / 2
            return simplest_between(a, b), Enclosure.from_ball(t)
        if Lhi < U and (tlo >= U or thi <= Lhi):
            # q* is certainly outside the window (only when n was raised to 2):
            # use the middle half of the window itself
            a, b = Lhi + (U - Lhi) / 4, U - (U - Lhi) / 4
            return simplest_between(a, b), Enclosure.from_ball(t)
        return None

    return decide(test, start=128, what="certifying an admissible q near the seed's q*")


def _check_eps(x: object, name: str) -> Fraction:
    v = exact(x, name)
    if v < 0:
        raise InputError(f"{name} must be >= 0, got {v}")
    return v


#: Relative distance of the rational stand-in for a closed-form input (``log(2)``).
CLOSED_FORM_BITS = 60


def _rational_side(x: object, name: str, side: str, notes: list[str], why: str, label: str = "") -> Fraction:
    """An exact rational x' for a closed-form input x >= 0 (``log(2)``, ``exp(-2)``): the simplest
    rational within relative 2^-60 below x (``side="below"``) or above it.  The constructions
    then run at rationals and are sound at x by monotonicity (``why``, added to ``notes``):
    (ε', δ)-ADP with ε' <= ε implies (ε, δ)-ADP; not (ε̂', δ̂')-PrDP with ε̂' >= ε̂ and
    δ̂' >= δ̂ implies not (ε̂, δ̂)-PrDP.  A rational x is returned as it is."""
    from certdp.expr.brackets import bracket  # noqa: PLC0415

    lo, hi = bracket(x, name)
    if lo == hi:  # rational: checked as before (ε >= 0 here, δ's range by the construction)
        return lo if name.startswith("delta") else _check_eps(lo, name)
    if hi <= 0:
        raise InputError(f"{name} must be >= 0, got {name} = {x}")
    if side == "below":
        r = simplest_between(lo - lo / 2**CLOSED_FORM_BITS, lo) if lo > 0 else Fraction(0)
        if lo <= 0:  # x may be >= 0 and tiny: 0 is below it only when x >= 0 is certified
            from certdp.expr.constants import exact_real, sign  # noqa: PLC0415

            if sign(exact_real(x, name), name) < 0:
                raise InputError(f"{name} must be >= 0, got {name} = {x}")
    else:
        r = simplest_between(hi, hi + hi / 2**CLOSED_FORM_BITS)
    notes.append(f"{name} = {x} is a closed form: certified at the rational {label or name + chr(39)} = "
                 f"{format_exact(r)} {'<=' if side == 'below' else '>='} {name} ({why})")
    return r


def _check_choice(choice: str) -> str:
    if choice not in ("wide", "seed"):
        raise InputError(f"choice must be 'wide' or 'seed', got {choice!r}")
    return choice


def theorem_3_2(eps: object, delta: object, eps_hat: object, *, choice: str = "wide") -> Counterexample:
    """Guingona et al. 2023 Thm 3.2: an ``(ε, δ)``-ADP mechanism that is not ``(ε̂, δ)``-PrDP.

    Stated for ``0 < ε < 1``, ``0 < δ < 1/2``, ``ε̂ > 0``; we run the
    construction for every ``ε, ε̂ ≥ 0`` and ``0 < δ < 1`` and report (in
    ``notes``) when the inputs are outside the theorem — the verdicts are
    certified independently either way.  ``δ ≤ 0`` or ``δ ≥ 1`` is an
    :class:`InputError`: for ``δ ≥ 1`` every mechanism is ``(ε̂, δ)``-PrDP,
    and for ``δ = 0`` ADP implies PrDP at the same ε.
    """
    notes: list[str] = []
    e = _rational_side(eps, "eps", "below", notes, "ADP at eps' implies ADP at eps")
    eh = _rational_side(eps_hat, "eps_hat", "above", notes, "not PrDP at eps_hat' implies not PrDP at eps_hat")
    # δ̂ = δ: the ADP side at a rational δ' <= δ, the PrDP side at a rational δ̂' >= δ
    d = _rational_side(delta, "delta", "below", notes, "ADP with delta' implies ADP with delta")
    dh = _rational_side(delta, "delta_hat", "above", [], "")
    if d >= 1:
        raise InputError(f"delta = {d} >= 1: every mechanism is (eps_hat, delta)-PrDP, no counterexample exists")
    if d <= 0:
        raise InputError(f"delta = {d} <= 0: Thm 3.2 needs delta > 0 ((eps,0)-ADP implies (eps,0)-PrDP)")
    if dh != d:
        notes.append(f"the PrDP side at the rational delta_hat' = {format_exact(dh)} >= delta "
                     "(not PrDP with delta_hat' implies not PrDP with delta)")
    if not (0 < e < 1 and 0 < d < Fraction(1, 2) and eh > 0):
        notes.append(
            "inputs outside Thm 3.2's hypotheses (0 < ε < 1, 0 < δ < 1/2, ε̂ > 0); "
            "construction attempted anyway — verdicts below are certified independently"
        )

    def X() -> arb:
        return (_exp(eh) + _exp(e)) * (1 - to_ball(d)) / to_ball(d)

    if e == 0 and eh == 0:
        x = 2 * (1 - d) / d
        n_seed = -((-x.numerator) // x.denominator)  # exact ceiling
    else:  # X is irrational (Lindemann–Weierstrass), so ⌈X⌉ = ⌊X⌋ + 1
        n_seed = certified_floor(X, "(e^eps_hat + e^eps)(1-delta)/delta") + 1
    n = max(n_seed, 2)
    if n != n_seed:
        notes.append(
            f"seed's n = {n_seed} < 2 (δ ≥ 2/3); using n = 2 and q in the middle of the admissible window "
            "(the seed's q* is not admissible then)"
        )

    def q_star() -> arb:
        return (2 - to_ball(d)) / (2 * arb(n - 1) + _exp(eh) + _exp(e))

    q, seed_q = _choose_q(n, e, eh, d, lambda: to_ball(dh), q_star, _check_choice(choice))
    p = 1 - (n - 1) * q
    return _finish("Guingona et al. 2023 Theorem 3.2", n, p, q, e, d, eh, dh, notes, seed_q=seed_q)


def lemma_3_1(
    n: int, p: object, q: object, eps: object, delta: object, eps_hat: object, delta_hat: object
) -> Counterexample:
    """Guingona et al. 2023 Lemma 3.1 for given exact ``n, p, q``: conditions (1)–(4) certified
    and the mechanism checked with :func:`is_adp` / :func:`is_prdp`.  ``valid`` says
    whether it is a certified counterexample (the conditions are sufficient, not
    necessary: the exact checks decide)."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 2:
        raise InputError(f"n must be an integer >= 2, got {n!r}")
    pf, qf = exact(p, "p"), exact(q, "q")
    e, eh = _check_eps(eps, "eps"), _check_eps(eps_hat, "eps_hat")
    d = exact(delta, "delta")
    if d < 0:
        raise InputError(f"delta must be >= 0, got {d}")
    dh = as_exact(delta_hat, "delta_hat")
    return _finish("Guingona et al. 2023 Lemma 3.1", n, pf, qf, e, d, eh, dh, [])


def _finish(theorem, n, p, q, e, d, eh, dh, notes, **extra) -> Counterexample:
    conds = lemma_3_1_conditions(n, p, q, e, d, eh, dh)
    mech = DiagonalMechanism(n, p, q)
    adp = is_adp(mech, e, d)
    prdp = is_prdp(mech, eh, dh)
    return Counterexample(
        theorem, n, p, q, e, d, eh, dh, adp, prdp, conds, tuple(notes), mechanism=mech, **extra
    )


# --------------------------------------------------------------------------- Thm 3.3


def parse_penalty(penalty: object) -> tuple[sympy.Expr, sympy.Symbol]:
    """The penalty ``g`` as a sympy expression in one variable (``x``).

    Strings go through the safe parser ``certdp.expr.parse_expression`` with
    ``variables=("x",)``; sympy expressions must have at most one free symbol.
    """
    if isinstance(penalty, str):
        from certdp.expr import parse_expression  # noqa: PLC0415

        expr = parse_expression(penalty, variables=("x",))
    elif isinstance(penalty, sympy.Expr):
        expr = penalty
    else:
        raise InputError(f"penalty must be an expression in x, got {type(penalty).__name__}")
    syms = sorted(expr.free_symbols, key=str)
    if len(syms) > 1:
        raise InputError(f"penalty {expr} has more than one variable: {syms}")
    x = syms[0] if syms else sympy.Symbol("x")
    return expr, x


def _g_ball(g: sympy.Expr, x: sympy.Symbol, xb: arb) -> arb:
    from certdp.expr import evaluate_ball  # noqa: PLC0415

    if not g.free_symbols:
        return evaluate_ball(g, {})
    return evaluate_ball(g, {x: xb})


def _g_exact(g: sympy.Expr, x: sympy.Symbol, v: Fraction) -> Exact:
    val = g.subs(x, sympy.Rational(v.numerator, v.denominator)) if g.free_symbols else g
    return as_exact(val, "g(delta')")


def check_hypothesis_3_3(
    g: sympy.Expr, x: sympy.Symbol, eps: Fraction, eps_hat: Fraction, delta: Fraction, *, max_cells: int = 2000
) -> HypothesisCheck:
    """Certify ``ε̂ < ε + ln(1 + x/g(x))`` for ``0 < x < δ`` (Guingona et al. 2023 Thm 3.3).

    For ``g ≥ 0`` (the theorem's standing assumption, not checked here) this
    is ``c·r(x) < 1`` with ``r = g(x)/x`` (sympy-cancelled) and
    ``c = e^{ε̂-ε} - 1``.  If ``ε̂ ≤ ε`` then ``c ≤ 0`` and it holds.  Otherwise
    ``c·r`` is enclosed in ball arithmetic on cells of ``[0, δ]`` (breadth-first
    bisection, at most ``max_cells`` cells, widths down to ``δ·2^-30``).  An
    undecided cell is also probed at its exact midpoint: ``c·r(mid) > 1``
    there *refutes* the hypothesis.  Cells next to 0 where ``r`` has no finite
    enclosure may stay open: the result then says on which ``[x₀, δ]`` the
    hypothesis was certified and that ``(0, x₀)`` was not.
    """
    if eps_hat <= eps:
        return HypothesisCheck(True, "ε̂ ≤ ε: e^(ε̂-ε) - 1 ≤ 0, so it holds for every g ≥ 0")
    try:
        r = sympy.cancel(g / x) if g.free_symbols else g / x
    except Exception:  # noqa: BLE001 - sympy cannot cancel (e.g. Piecewise): use g/x as is
        r = g / x
    queue = deque([(Fraction(0), delta)])
    done = 0
    open_cells: list[tuple[Fraction, Fraction]] = []

    def value(xb: arb) -> arb:
        return _g_ball(r, x, xb) * to_ball(eps_hat - eps).expm1()

    while queue:
        a, b = queue.popleft()
        done += 1
        try:
            with working_precision(128):
                v = value(_interval_ball(a, b))
                if v.is_finite() and v < 1:
                    continue
                mid = (a + b) / 2
                vm = value(to_ball(mid))
                if vm.is_finite() and vm > 1:
                    return HypothesisCheck(
                        False,
                        f"REFUTED: at x = {format_exact(mid)} (≈ {float(mid):.6g}), (e^(ε̂-ε) - 1)·g(x)/x ∈ "
                        f"{Enclosure.from_ball(vm)} > 1, i.e. ε̂ > ε + ln(1 + x/g(x))",
                        done,
                    )
        except (InputError, PrecisionError, ValueError, ZeroDivisionError):
            pass
        if done + len(queue) >= max_cells or (b - a) <= delta / 2**30:
            open_cells.append((a, b))
            continue
        mid = (a + b) / 2
        queue.extend([(a, mid), (mid, b)])
    if not open_cells:
        return HypothesisCheck(True, f"certified on [0, δ] with {done} cells (g(x)/x = {sympy.sstr(r)})", done)
    if all(a == 0 for a, _ in open_cells):
        x0 = max(b for _, b in open_cells)
        return HypothesisCheck(
            False,
            f"NOT established on (0, {float(x0):.3g}): certified only on [{float(x0):.3g}, δ] ({done} cells; "
            f"g(x)/x = {sympy.sstr(r)} has no finite enclosure near 0)",
            done,
        )
    a, b = min(open_cells)
    return HypothesisCheck(
        False, f"NOT established: undecided on [{float(a):.6g}, {float(b):.6g}] and {len(open_cells) - 1} more cells", done
    )


def _interval_ball(a: Fraction, b: Fraction) -> arb:
    """A ball containing the whole interval ``[a, b]`` (current precision)."""
    return to_ball(a).union(to_ball(b))


def theorem_3_3(
    eps: object,
    delta: object,
    eps_hat: object,
    penalty: object,
    *,
    rel_width: int = 24,
    choice: str = "wide",
    _notes: tuple[str, ...] = (),
) -> Counterexample:
    """Guingona et al. 2023 Thm 3.3: δ' ∈ (0, δ) and an ``(ε, δ')``-ADP mechanism that is
    not ``(ε̂, g(δ'))``-PrDP.

    ``n = ⌊(1-δ)(e^{ε̂}+e^ε)/δ⌋ + 2`` (so ``n > (1-δ)E/δ + 1``); the root of
    ``F(x) = h(x) - g(x) - x`` is bracketed by certified bisection
    (``F(0) > 0 > F(δ)``, ball signs only) to relative width ``2^-rel_width``;
    ``δ'`` is the simplest rational in the final bracket.  The mechanism is
    then built as in Thm 3.2 with ``δ̂ = g(δ')`` and checked exactly.
    """
    notes: list[str] = list(_notes)
    e = _rational_side(eps, "eps", "below", notes, "ADP at eps' implies ADP at eps")
    eh = _rational_side(eps_hat, "eps_hat", "above", notes, "not PrDP at eps_hat' implies not PrDP at eps_hat")
    d = _rational_side(delta, "delta", "below", notes, "the root δ' lies below it, hence below delta",
                       label="bound on δ'")
    if not 0 < d < 1:
        raise InputError(f"delta must be in (0, 1), got {d}")
    g, x = parse_penalty(penalty)
    if not (e > 0 and eh > 0 and d < Fraction(1, 2)):
        notes.append("inputs outside Thm 3.3's hypotheses (ε, ε̂ > 0, 0 < δ < 1/2); construction attempted anyway")
    hyp = check_hypothesis_3_3(g, x, e, eh, d)

    def X() -> arb:
        return (1 - to_ball(d)) * (_exp(eh) + _exp(e)) / to_ball(d)

    if e == 0 and eh == 0:
        xv = 2 * (1 - d) / d
        n = xv.numerator // xv.denominator + 2
    else:
        n = certified_floor(X, "(1-delta)(e^eps_hat + e^eps)/delta") + 2

    def F(v: Fraction) -> arb:
        E = _exp(eh) + _exp(e)
        m = arb(n - 1)
        xb = to_ball(v)
        return (xb * m + E) / (2 * m + E) - _g_ball(g, x, xb) - xb

    def sign_F(v: Fraction) -> int:
        def test(_prec: int) -> int | None:
            try:
                y = F(v)
            except (InputError, ValueError, ZeroDivisionError):
                return None
            return (1 if y > 0 else -1 if y < 0 else None) if y.is_finite() else None

        try:
            return decide(test, start=64, cap=4096, what=f"the sign of F at {v}")
        except PrecisionError:
            return 0  # undecided (a root at v, or g not evaluable there)

    if sign_F(d) != -1:
        raise InputError(
            f"F(δ) = h(δ) - g(δ) - δ is not certainly negative at δ = {d} (is g(δ) >= 0?); the IVT bracket fails"
        )
    a = Fraction(0)
    if sign_F(a) != 1:
        for k in range(1, 200):
            a = d / 2**k
            if sign_F(a) == 1:
                break
        else:
            raise InputError("could not find a point in (0, δ) with h(x) > g(x) + x (is g(0) = 0 and g continuous?)")
    b = d
    while (b - a) > d / 2**rel_width:
        mid = (a + b) / 2
        s = sign_F(mid)
        if s == 1:
            a = mid
        elif s == -1:
            b = mid
        else:  # F(mid) undecided at 4096 bits: the root is extremely close; keep [a, b]
            break
    bracket = Enclosure.exact(a) if a == b else Enclosure(_exact_ball(a, "lo"), _exact_ball(b, "hi"))
    dprime = simplest_between(a, b) if a > 0 else simplest_between(Fraction(0), b)
    if not 0 < dprime < d:
        raise PrecisionError(f"bisection produced δ' = {dprime} outside (0, δ)")
    dhat = _g_exact(g, x, dprime)

    def dhat_ball() -> arb:
        return ball_of(dhat)

    def q_star() -> arb:
        return (2 - to_ball(dprime)) / (2 * arb(n - 1) + _exp(eh) + _exp(e))

    try:
        q, seed_q = _choose_q(n, e, eh, dprime, dhat_ball, q_star, _check_choice(choice))
    except PrecisionError as err:
        if hyp.established:
            raise
        raise InputError(
            f"Theorem 3.3 construction failed at δ' = {format_exact(dprime)}: no admissible q "
            f"(e^ε̂ q < p ≤ e^ε q + δ' cannot hold); the hypothesis ε̂ < ε + ln(1 + x/g(x)) on (0, δ): {hyp.detail}"
        ) from None
    p = 1 - (n - 1) * q
    return _finish(
        "Guingona et al. 2023 Theorem 3.3", n, p, q, e, dprime, eh, dhat, notes,
        penalty=g, hypothesis=hyp, root_bracket=bracket, seed_q=seed_q,
    )


def _exact_ball(v: Fraction, direction: str) -> arb:
    with working_precision(256):
        from flint import fmpq  # noqa: PLC0415

        b = arb(fmpq(v.numerator, v.denominator))
        from certdp.numerics.ball import lower_bound, upper_bound  # noqa: PLC0415

        return lower_bound(b) if direction == "lo" else upper_bound(b)


def corollary_3_4(
    K: object, eps: object, eps_hat: object, delta: object = Fraction(1, 4), *, choice: str = "wide"
) -> Counterexample:
    """Guingona et al. 2023 Cor 3.4 (2): for ``g(x) = Kx`` and ``0 < ε̂ < ln(1 + 1/K)``, an
    ``(ε, δ')``-ADP mechanism that is not ``(ε̂, Kδ')``-PrDP (hence not
    ``(ε̂, g(δ'))``-PrDP for any ``g ≤ Kx``).  ``δ`` bounds ``δ'`` (Thm 3.3)."""
    k = exact(K, "K")
    if k <= 0:
        raise InputError(f"K must be > 0, got {k}")
    notes: list[str] = []
    e = _rational_side(eps, "eps", "below", notes, "ADP at eps' implies ADP at eps")
    eh = _rational_side(eps_hat, "eps_hat", "above", notes, "not PrDP at eps_hat' implies not PrDP at eps_hat")
    if e <= 0:
        raise InputError(f"Corollary 3.4 needs eps > 0, got {e}")
    if eh <= 0:
        raise InputError(f"Corollary 3.4 needs eps_hat > 0, got {eh}")
    # certify ε̂ < ln(1 + 1/K)  <=>  e^{ε̂} < 1 + 1/K  <=>  (1 + 1/K) - e^{ε̂} > 0
    s, _ = lin_sign(1 + 1 / k, Fraction(1), ZERO, eh, "ln(1+1/K) - eps_hat")
    if s <= 0:
        raise InputError(f"eps_hat = {eh} is not below ln(1 + 1/K) = ln({1 + 1 / k}); Corollary 3.4 (2) does not apply")
    from certdp.expr import X as xs  # noqa: PLC0415
    cx = theorem_3_3(e, delta, eh, sympy.Rational(k.numerator, k.denominator) * xs, choice=choice, _notes=tuple(notes))
    return Counterexample(**{**cx.__dict__, "theorem": f"Guingona et al. 2023 Corollary 3.4 (2), K = {format_exact(k)}"})
