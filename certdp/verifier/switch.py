"""The switch point of an sgd/icea refined profile (Liu et al. 2022 App. B), sympy-free.

The naive profile δ̂ of ``sgd(A, B, sigma)`` / ``icea(m, n)`` is a closed form in
balls (:func:`naive_ball`, with its derivative).
Every pair (x, min(1, δ̂(x))) is a guarantee; by Thm 3.1 it implies, for ε <= x,
δ(ε) <= g(ε, x) = 1 − (1 + e^ε) q(x), q(x) = (1 − min(1, δ̂(x)))/(1 + eˣ), and the
refined profile is δ(ε) = inf_{x >= ε} g(ε, x) = 1 − (1 + e^ε) sup_{x >= ε} q(x).

**The switch-point proof** (evidence ``{"bracket": [r0, r1], "tail": T}``): where
δ̂ < 1, q' = −S/(1 + eˣ)² with S(x) = δ̂'(x)(1 + eˣ) + (1 − δ̂(x))eˣ.  Every maximiser
of q on [0, ∞) lies in [r0, r1] when

* every cell of [0, r0] has S < 0 or q < q(r0) (where δ̂ cannot be enclosed, at
  ICEA's pole, q <= (1 − min(1, δ̂(b)))/(1 + eᵃ) on [a, b]: δ̂ is non-increasing);
* every cell of [r1, T] has S > 0 or q < q(r0);
* 1/(1 + e^T) < q(r0), which bounds q beyond T (δ̂ >= 0).

A point with δ̂ >= 1 has q = 0 < q(r0); elsewhere S < 0 makes q strictly
increasing, so no maximiser lies left of r0 (symmetrically right of r1), and q,
continuous where δ̂ is enclosed, attains its maximum on [r0, r1].

**Value claims** ``switch_eps`` need [r0, r1] ⊆ [lo, hi]; ``switch_delta``
(δ* = δ̂(ε*)) needs min(1, δ̂)([r0, r1]) ⊆ [lo, hi].

**The refined profile in GDP claims** (:class:`Refined`, evidence ``switch``):
an upper bound needs no proof, δ(ε) <= min(min(1, δ̂(ε)), g(ε, r0) if ε <= r0);
a lower bound uses the proof: q <= Q = upper(q([r0, r1])) everywhere, so
δ(ε) >= 1 − (1 + e^ε) Q (and >= 0).  Right of the bracket the checker also tries
to prove S > 0 on every cell of [r1, X] (X = the claim's largest ε + 64); then q is
decreasing there (S > 0 forces δ̂ < 1, as δ̂' < 0), q <= 1/(1 + e^X) beyond X, and for
ε in [r1, X]: δ(ε) >= min(min(1, δ̂(ε)), 1 − (1 + e^ε)/(1 + e^X)).  That bounds the worst case of the guarantee
from below when the refined profile is that worst case: δ̂ convex in t = e^ε on
[e^{ε*}, ∞).  ICEA: K/log t is convex for t > 1.  SGD: the second derivative of
B exp(−c² log² t) (c = σ/A) is (2c²δ̂/t²)(2c²u² + u − 1), u = log t, positive for
u >= r0 when 2c²r0² + r0 − 1 > 0 (checked; otherwise the profile is an upper bound only).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Callable, Mapping

from flint import arb

from certdp.verifier.errors import InputError, PrecisionError
from certdp.verifier.ball import lower_bound, to_ball, upper_bound, working_precision
from certdp.verifier.cells import CellBudgetExceeded, prove_on_cells
from certdp.verifier.decide import decide
from certdp.verifier.exact import exact
from certdp.verifier.facts import assumptions_of
from certdp.verifier.mechs import GUARANTEE, UPPER, Kind, Mech, NaiveFamily
from certdp.verifier.schema import MalformedCertificate, _fields, number_string

#: Largest tail point T of a switch-point certificate (q <= 1/(1+e^T) beyond it).
MAX_TAIL = 10_000
#: Cells one proof may use (the seeds' proofs use about 160).
MAX_CELLS = 2_000


def _num(text: Any, where: str) -> Fraction:
    try:
        return exact(number_string(text, where), where)
    except InputError as err:
        raise MalformedCertificate(str(err)) from None


def bracket_of(ev: Any, where: str, tail: bool) -> tuple[Fraction, Fraction, Fraction | None]:
    """(r0, r1, T) of ``{"bracket": [r0, r1], "tail": T}`` (T only when ``tail``)."""
    ev = _fields(ev, where, {"bracket", "tail"} if tail else {"bracket"}, set())
    b = ev["bracket"]
    if not isinstance(b, list) or len(b) != 2:
        raise MalformedCertificate(f"{where}.bracket must be a list [r0, r1] of two decimal strings")
    r0, r1 = _num(b[0], f"{where}.bracket[0]"), _num(b[1], f"{where}.bracket[1]")
    if not r0 <= r1:
        raise MalformedCertificate(f"{where}.bracket needs r0 <= r1")
    t = _num(ev["tail"], f"{where}.tail") if tail else None
    if t is not None and not (r1 <= t <= MAX_TAIL and r0 >= 0):
        raise MalformedCertificate(f"{where} needs 0 <= r0 <= r1 <= tail <= {MAX_TAIL}")
    return r0, r1, t


def inside(x: arb, lo: Fraction, hi: Fraction) -> bool | None:
    """[x] ⊆ [lo, hi] (True), certainly not (False), or undecided (None)."""
    if not x.is_finite():
        return None
    if lower_bound(x) >= to_ball(lo) and upper_bound(x) <= to_ball(hi):
        return True
    if x.upper() < to_ball(lo) or x.lower() > to_ball(hi):
        return False
    return None


def run_proof(proof: Callable[[], str | None], prec: int) -> str | None:
    """Run ``proof`` (None: holds; a string: the failing step; PrecisionError:
    undecided, retried) at prec, 2 prec, 4 prec (the one decision loop)."""
    failed: list[str] = []

    def test(p: int) -> bool | None:
        with working_precision(p):
            try:
                step = proof()
            except PrecisionError as err:
                failed[:] = [f"undecided: {err}"]
                return None
        failed[:] = [] if step is None else [step]
        return True

    try:
        decide(test, start=prec, doublings=2, what="an optimum certificate's proof")
    except PrecisionError:
        return failed[0] if failed else "undecided"
    return failed[0] if failed else None


def naive_ball(mech: NaiveFamily, x: arb) -> arb:
    """δ̂ over the ball ``x`` (sympy-free; not finite where ICEA's pole at 0 is in ``x``):
    sgd B exp(−(σx/A)²), icea n e^{−m/10}/x."""
    p = mech.params
    if mech.name == "sgd":
        c = to_ball(p["sigma"] / p["A"])
        return to_ball(p["B"]) * (-((c * x) ** 2)).exp()
    return to_ball(p["n"]) * (-to_ball(p["m"]) / 10).exp() / x


def dnaive_ball(mech: NaiveFamily, x: arb) -> arb:
    """δ̂' over the ball ``x``: −2c²x δ̂(x) (sgd, c = σ/A), −K/x² (icea, K = n e^{−m/10})."""
    p = mech.params
    if mech.name == "sgd":
        c = to_ball(p["sigma"] / p["A"])
        return -2 * c * c * x * naive_ball(mech, x)
    return -to_ball(p["n"]) * (-to_ball(p["m"]) / 10).exp() / (x * x)


def dhat(mech: NaiveFamily, x: arb) -> arb:
    """min(1, δ̂) on the ball x (δ̂ > 0); [0, 1] where δ̂ cannot be enclosed."""
    s = naive_ball(mech, x)
    if not s.is_finite():
        return arb(0).union(arb(1))
    return arb(1) if s >= 1 else (s if s < 1 else s.union(arb(1)))


def q_ball(mech: NaiveFamily, x: arb) -> arb:
    return (1 - dhat(mech, x)) / (1 + x.exp())


def switch_proof(mech: NaiveFamily, r0: Fraction, r1: Fraction, tail: Fraction) -> str | None:
    """At the working precision: None when every maximiser of q lies in [r0, r1], else the
    failing step (PrecisionError: undecided)."""
    b0, b1, bt = lower_bound(to_ball(r0)), upper_bound(to_ball(r1)), upper_bound(to_ball(tail))
    q0 = q_ball(mech, b0)
    q_star, tail_q = q0.lower(), 1 / (1 + bt.exp())
    if not tail_q < q_star:
        if tail_q >= q0.upper():
            return f"1/(1 + e^T) < q(r0) does not hold at T = {tail}: the tail is not excluded"
        raise PrecisionError("1/(1 + e^T) against q(r0)")

    def big_s(x: arb) -> arb:
        return dnaive_ball(mech, x) * (1 + x.exp()) + (1 - naive_ball(mech, x)) * x.exp()

    def below(c: arb) -> bool:
        if naive_ball(mech, c).is_finite():
            return bool(q_ball(mech, c).upper() < q_star)
        return bool(((1 - dhat(mech, upper_bound(c))) / (1 + lower_bound(c).exp())).upper() < q_star)

    def left(c: arb) -> bool:
        s = big_s(c)
        return bool((s.is_finite() and s < 0) or below(c))

    def right(c: arb) -> bool:
        s = big_s(c)
        return bool((s.is_finite() and s > 0) or below(c))

    try:
        if r0 > 0:
            prove_on_cells(arb(0), b0, left, MAX_CELLS)
    except CellBudgetExceeded:
        return "a cell of [0, r0] has neither S < 0 nor q < q(r0): a maximiser may lie left of the bracket"
    try:
        if r1 < tail:
            prove_on_cells(b1, bt, right, MAX_CELLS)
    except CellBudgetExceeded:
        return "a cell of [r1, T] has neither S > 0 nor q < q(r0): a maximiser may lie right of the bracket"
    if not naive_ball(mech, b0.union(b1)).is_finite():
        raise PrecisionError("δ̂ cannot be enclosed on the bracket")
    return None


def naive_mechanism(doc: Mapping[str, Any]) -> NaiveFamily:
    """The sgd/icea mechanism of a switch-point certificate (MalformedCertificate otherwise)."""
    from certdp.verifier.mechs import parse  # noqa: PLC0415

    if not isinstance(doc["mechanism"], str):
        raise MalformedCertificate("a switch point needs its mechanism (a spec string)")
    try:
        mech = parse(doc["mechanism"], exclude=("tradeoff",))
    except InputError as err:
        raise MalformedCertificate(f"mechanism: {err}") from None
    if not isinstance(mech, NaiveFamily):
        raise MalformedCertificate("switch points are certified for sgd(...) and icea(...) only")
    return mech


def check_switch(doc: Mapping[str, Any], quantity: str, lo: Fraction, hi: Fraction, prec: int) -> str | None:
    """First failing step of a switch-point value certificate, or None."""
    mech = naive_mechanism(doc)
    if assumptions_of(doc):
        return "claim.assumptions lists hypotheses the mechanism does not have"
    r0, r1, tail = bracket_of(doc["evidence"], "evidence", tail=True)
    assert tail is not None

    def proof() -> str | None:
        step = switch_proof(mech, r0, r1, tail)
        if step is not None:
            return step
        hull = lower_bound(to_ball(r0)).union(upper_bound(to_ball(r1)))
        ok = inside(hull if quantity == "switch_eps" else dhat(mech, hull), lo, hi)
        if ok is None:
            raise PrecisionError("δ̂ on the bracket against [lo, hi]")
        return None if ok else f"{quantity} on the bracket is not inside [lo, hi]"

    return run_proof(proof, prec)


class Refined(Mech):
    """The refined profile of an sgd/icea mechanism, with the switch-point bracket of the
    certificate's evidence (proved by :meth:`prove` before any lower bound is used)."""

    #: its (P, P') for the second-order cell test come from :meth:`functions`, not the spec
    own_functions = True

    def __init__(self, naive: NaiveFamily, r0: Fraction, r1: Fraction, tail: Fraction) -> None:
        self.name, self.params = naive.name, {}
        self.naive, self.r0, self.r1, self.tail = naive, r0, r1, tail
        self.proved = False
        self.decreasing_to: Fraction | None = None  # q decreasing on [r1, X] (proved)

    def own_assumptions(self) -> tuple[str, ...]:
        return ()

    @property
    def profile_kind(self) -> Kind:  # type: ignore[override]
        if not self.proved:
            return UPPER
        if self.naive.name == "icea":
            return GUARANTEE
        c = self.naive.params["sigma"] / self.naive.params["A"]
        return GUARANTEE if 2 * c * c * self.r0 * self.r0 + self.r0 - 1 > 0 else UPPER

    def prove(self, prec: int, reach: Fraction) -> str | None:
        """The switch-point proof (None: holds, else the failing step); then, for tight
        lower bounds right of the bracket, S > 0 on [r1, X], X = reach + 64 (optional)."""
        step = run_proof(lambda: switch_proof(self.naive, self.r0, self.r1, self.tail), prec)
        self.proved = step is None
        x = min(max(reach, self.r1) + 64, Fraction(MAX_TAIL))
        mech = self.naive

        def positive(c: arb) -> bool:
            s = dnaive_ball(mech, c) * (1 + c.exp()) + (1 - naive_ball(mech, c)) * c.exp()
            return bool(s.is_finite() and s > 0)

        def monotone() -> str | None:
            try:
                prove_on_cells(upper_bound(to_ball(self.r1)), upper_bound(to_ball(x)), positive, MAX_CELLS)
            except CellBudgetExceeded:
                return "not proved"
            return None

        if self.proved and run_proof(monotone, prec) is None:
            self.decreasing_to = x
        return step

    def upper_at(self, eps: arb) -> arb:
        u = dhat(self.naive, eps).upper()
        if eps <= lower_bound(to_ball(self.r0)):  # g(ε, r0), r0 >= ε
            g = (1 - (1 + eps.exp()) * q_ball(self.naive, to_ball(self.r0))).upper()
            if g < u:
                u = g
        return u

    def lower_at(self, eps: arb) -> arb:
        if not self.proved:
            return arb(0)
        hull = lower_bound(to_ball(self.r0)).union(upper_bound(to_ball(self.r1)))
        low = (1 - (1 + eps.exp()) * q_ball(self.naive, hull).upper()).lower()
        x = self.decreasing_to
        if x is not None and eps >= upper_bound(to_ball(self.r1)) and eps <= lower_bound(to_ball(x)):
            right = dhat(self.naive, eps).lower()
            beyond = (1 - (1 + eps.exp()) / (1 + to_ball(x).exp())).lower()
            right = right if right < beyond else beyond
            if right > low:
                low = right
        return low if low > 0 else arb(0)

    def point(self, eps: arb) -> arb:
        return self.lower_at(eps).union(self.upper_at(eps))

    def functions(self) -> tuple[Callable[[arb], arb], Callable[[arb], arb]]:
        """(P, P') for the second-order cell test: an upper bound P of δ that is
        continuous and piecewise smooth, P = g(·, r0) left of r0 (slope −eᵋ q(r0)) and
        min(1, δ̂) right of it (slope δ̂' where δ̂ < 1, 0 where δ̂ > 1); NaN on a cell
        that straddles r0 (the test then fails)."""
        naive = self.naive

        def left(x: arb) -> bool:
            return bool(x <= lower_bound(to_ball(self.r0)))

        def p(x: arb) -> arb:
            if left(x):
                return 1 - (1 + x.exp()) * q_ball(naive, to_ball(self.r0))
            return dhat(naive, x)

        def dp(cell: arb) -> arb:
            if left(cell):
                return -cell.exp() * q_ball(naive, to_ball(self.r0))
            if not cell >= lower_bound(to_ball(self.r0)):
                return arb("nan")
            s, d = naive_ball(naive, cell), dnaive_ball(naive, cell)
            if not (s.is_finite() and d.is_finite()):
                return arb("nan")
            return d if s < 1 else arb(0) if s > 1 else d.union(arb(0))

        return p, dp


def reach_of(doc: Mapping[str, Any]) -> Fraction:
    """The largest ε a GDP claim evaluates its profile at (eps_max, the witness)."""
    pts = [doc["claim"].get("eps_max", "0"), doc["evidence"].get("witness", {}).get("eps", "0")]
    return max(_num(t, "claim.eps_max / evidence.witness.eps") for t in pts)


def refined_mechanism(doc: Mapping[str, Any], mech: Any) -> Any:
    """A GDP certificate's mechanism: ``mech`` itself, or for sgd/icea the :class:`Refined`
    profile with the evidence's ``switch`` bracket, proved (MalformedCertificate when the
    evidence and the mechanism do not match; the proof's failure is returned as a step)."""
    ev = doc["evidence"]
    if not isinstance(mech, NaiveFamily):
        if "switch" in ev:
            raise MalformedCertificate("evidence.switch is for sgd(...) and icea(...) only")
        return mech
    if "switch" not in ev:
        raise MalformedCertificate("the refined profile of sgd/icea needs evidence.switch (the switch-point bracket)")
    r0, r1, tail = bracket_of(ev["switch"], "evidence.switch", tail=True)
    assert tail is not None
    return Refined(mech, r0, r1, tail)
