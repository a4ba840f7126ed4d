"""The strict μ (η = 0) of mechanisms whose privacy loss is bounded.

When the privacy profile vanishes beyond a finite T (δ(ε) = 0 for ε >= T, so the
mechanism is (T, 0)-DP), the strict GDP parameter is sup_{[0, T]} G (Liu et al.
2022 Cor 4.1; the tail condition of Def 3.2 holds trivially beyond T because
δ(ε) = 0 <= δ_μ(ε) there).  The GDPT cover of :func:`certdp.analyses.gdpt.measure`
on [0, T] with a certified zero at T proves it with no residual.

T comes from the mechanism's structure, never from floats:
:meth:`certdp.mechanisms.base.Mechanism.vanishes_from` (pure DP, randomized
response, Laplace, their compositions — basic composition, T = Σ kᵢTᵢ — and
subsamplings).  What is needed besides T is the profile itself in ball
arithmetic on [0, T].  The catalog leaves k-fold compositions to an accountant;
here the k-fold composition of ``pure_dp`` or ``randomized_response`` is
evaluated exactly as a binomial sum (Kairouz, Oh & Viswanath 2015 Thm 3.3:
the optimal composition; written independently of the checker's copy in
:mod:`certdp.verifier.mechs`, which re-verifies the resulting certificate),
also under Poisson subsampling.  Other bounded-loss compositions (Laplace,
subsampled pure DP, heterogeneous mixes) and compositions of more than
:data:`STRICT_MAX_K` steps keep the accountant's "μ-GDP except η" report, with the
proved strict bound of :func:`pure_dp_bound`:
a (T, 0)-DP mechanism is μ_T-GDP with μ_T = −2Φ⁻¹(1/(1 + e^T)) (Liu et al. 2022 Thm 5.1).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Callable, Mapping

import sympy
from flint import arb

from certdp.mechanisms.base import Mechanism, ProfileKind
from certdp.mechanisms.basic import PureDP, RandomizedResponse
from certdp.mechanisms.params import positive_part
from certdp.mechanisms.transforms import Compose, Subsample
from certdp.numerics.ball import dyadic_to_fraction, to_ball
from certdp.numerics.enclosure import Enclosure

#: Largest k evaluated as a binomial sum: the checker's bound
#: (:data:`certdp.verifier.mechs.MAX_BINOMIAL_K`), so every answer stays checkable.
MAX_BINOMIAL_K = 10_000
#: Largest total k :func:`strict_measure` takes on by default.  The cover has first-order
#: cells only (the binomial profile has no derivative the second-order test could use), and
#: its cost grows like k × cells: k = 50 takes 1 s, k = 400 12 s, k = 1000 85 s (4 300,
#: 9 300 and 18 900 cells); beyond, the accountant's report answers, with :func:`pure_dp_bound`.
STRICT_MAX_K = 256

Profile = Callable[[arb], arb]


def _binary_step(m: Mechanism) -> tuple[Fraction | None, Fraction] | None:
    """(ε₀, None-free q) of a mechanism dominated by binary randomized response with
    losses ±ℓ: ``pure_dp(eps=ε₀)`` (ℓ = ε₀) → (ε₀, 0), ``randomized_response(p)``
    → (None, q = max(p, 1 − p)); None for anything else (``approx_dp`` included)."""
    if type(m) is PureDP:
        return m.eps0, Fraction(0)
    if isinstance(m, RandomizedResponse):
        return None, m.q
    return None


def binomial_ball(m: Mechanism, k: int, eps: arb) -> arb:
    """Ball containing δ(ε') for every ε' in ``eps`` (ε' >= 0) of the k-fold composition
    of the binary mechanism ``m`` (:func:`_binary_step`): with i of the k steps at loss −ℓ
    (P-probability C(k, i) q^{k−i}(1 − q)^i) the loss is L_i = (k − 2i)ℓ, and
    δ(ε) = E_P[(1 − e^{ε − L})⁺] (Gomez et al. 2025 Thm A.7)."""
    e0, q = _binary_step(m)  # type: ignore[misc]
    if e0 is not None:
        ell = to_ball(e0)
        lq, l1q = -((-ell).exp().log1p()), -(ell.exp().log1p())  # log q, log(1 − q), q = e^ℓ/(1 + e^ℓ)
    else:
        if q == Fraction(1, 2):
            return arb(0)  # no loss at all: δ ≡ 0
        lq, l1q = to_ball(q).log(), to_ball(1 - q).log()
        ell = lq - l1q
    eps_q = dyadic_to_fraction(eps) if e0 is not None and eps.is_exact() else None
    total, log_c = arb(0), arb(0)
    for i in range((k + 1) // 2):  # k − 2i > 0: the positive losses
        if i:
            log_c += (arb(k - i + 1) / i).log()
        if eps_q is not None and (k - 2 * i) * e0 <= eps_q:
            break  # exactly: L_i <= ε, and L decreases with i
        f = -(eps - (k - 2 * i) * ell).expm1()  # 1 − e^{ε − L_i}
        if f <= 0:
            break  # certainly <= 0 on the whole ball, and for every later i
        total += (log_c + (k - i) * lq + i * l1q).exp() * positive_part(f)
    return total


def exact_profile(mech: Mechanism, max_k: int = MAX_BINOMIAL_K) -> Profile | None:
    """Ball evaluator of the exact profile of a k-fold pure-DP / randomized-response
    composition (k <= ``max_k`` <= :data:`MAX_BINOMIAL_K`), also Poisson-subsampled (Balle,
    Barthe & Gaboardi 2018: δ'(ε) = γ δ(log(1 + (e^ε − 1)/γ))); None for every other mechanism."""
    if isinstance(mech, Compose) and not mech.has_closed_form:
        inner, k = mech.mechanism, int(mech.k)
        if 1 < k <= min(max_k, MAX_BINOMIAL_K) and _binary_step(inner) is not None:
            return lambda eps: binomial_ball(inner, k, eps)
        return None
    if isinstance(mech, Subsample) and mech.rate < 1:
        inner_fn = exact_profile(mech.mechanism, max_k)
        if inner_fn is None:
            return None
        rate = mech.rate
        return lambda eps: to_ball(rate) * inner_fn((eps.expm1() / to_ball(rate)).log1p())
    return None


class _ExactProfile(Mechanism):
    """``mech`` seen through :func:`exact_profile` (what :func:`measure` evaluates):
    its spec, kind and assumptions are ``mech``'s."""

    name = "exact_profile"

    def __init__(self, mech: Mechanism, fn: Profile) -> None:
        self._mech, self._fn = mech, fn

    @property
    def params(self) -> Mapping[str, Any]:
        return self._mech.params

    def profile(self) -> sympy.Expr:
        raise NotImplementedError("binomial profiles are evaluated in balls only (first-order cells)")

    @property
    def profile_kind(self) -> ProfileKind:
        return self._mech.profile_kind

    @property
    def assumptions(self) -> tuple[str, ...]:
        return tuple(self._mech.assumptions)

    def vanishes_from(self) -> Fraction | None:
        return self._mech.vanishes_from()

    def delta_ball(self, eps: arb) -> arb:
        return self._fn(eps)

    def spec(self) -> str:
        return self._mech.spec()


def _cell_end(t: Fraction) -> Fraction:
    """A dyadic >= t (short: every ball of it is exact, so δ there is decided exactly)."""
    scale = 2**40
    return Fraction(-((-t.numerator * scale) // t.denominator), scale)


def strict_measure(mech: Mechanism, *, width: object, max_cells: int | None = None,
                   max_k: int = STRICT_MAX_K) -> Any | None:
    """The strict μ (η = 0) of a bounded-loss mechanism the catalog leaves to an
    accountant (:func:`exact_profile`, k <= ``max_k``), as a :class:`certdp.analyses.gdpt.Measurement`
    with a zero tail (certificate kind ``gdp``); None when this route does not apply."""
    fn = exact_profile(mech, max_k)
    t = mech.vanishes_from()
    if fn is None or t is None or t <= 0:
        return None
    from certdp.analyses.gdpt import MAX_CELLS, measure  # noqa: PLC0415

    wrapped = _ExactProfile(mech, fn)
    return measure(wrapped, width=width, eps_max=_cell_end(t), identify_tail=False,
                   max_cells=MAX_CELLS if max_cells is None else max_cells, second_order=False)


def pure_dp_bound(mech: Mechanism) -> tuple[Fraction, Enclosure] | None:
    """(T, μ_T) when the profile vanishes from T (:meth:`Mechanism.vanishes_from`): the
    mechanism is (T, 0)-DP, hence strictly μ_T-GDP with μ_T = −2Φ⁻¹(1/(1 + e^T))
    (Liu et al. 2022 Thm 5.1); None otherwise."""
    t = mech.vanishes_from()
    if t is None:
        return None
    from certdp.numerics.gdp import mu_from_pure_dp  # noqa: PLC0415

    return t, mu_from_pure_dp(t)
