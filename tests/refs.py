"""Independent reference values computed with mpmath at high precision.

Nothing here imports certdp: these are the "truth" the tests compare with.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath

#: Relative slack allowed when checking that an mpmath value lies in an
#: enclosure: far below the 1e-15 widths under test, so it cannot hide an
#: error, yet above mpmath's own rounding at the precisions used here.
REF_SLACK = mpmath.mpf(10) ** -45


def mpf(q: Fraction | int | str) -> mpmath.mpf:
    """q as an mpf with 200 significant digits (enough for every test here)."""
    q = Fraction(q) if not isinstance(q, Fraction) else q
    with mpmath.workdps(200):
        return mpmath.mpf(q.numerator) / q.denominator


def dps_for(mu: Fraction, eps: Fraction) -> int:
    """Digits for δ_μ(ε): 60 plus the cancellation log10(ε/μ²) plus the
    magnitude of the Φ argument."""
    extra = math.log10(1 + float(eps) / float(mu) ** 2) + 2 * math.log10(1 + float(eps) / float(mu))
    return 60 + int(extra) + 10


def delta_mu_ref(mu, eps) -> mpmath.mpf:
    mu, eps = Fraction(mu), Fraction(eps)
    with mpmath.workdps(dps_for(mu, eps)):
        m, e = mpf(mu), mpf(eps)
        return +(mpmath.ncdf(-e / m + m / 2) - mpmath.exp(e) * mpmath.ncdf(-e / m - m / 2))


def Phi_ref(x) -> mpmath.mpf:
    with mpmath.workdps(80):
        return +mpmath.ncdf(mpf(x))


def Phi_inv_ref(p) -> mpmath.mpf:
    """Φ⁻¹(p) = √2 erfinv(2p - 1), with enough digits that 2p - 1 keeps p's."""
    q = Fraction(p)
    extra = int(-math.log10(float(min(q, 1 - q)))) if min(q, 1 - q) > 0 else 0
    with mpmath.workdps(80 + extra):
        return +(mpmath.sqrt(2) * mpmath.erfinv(2 * mpf(q) - 1))


def tradeoff_ref(mu, alpha) -> mpmath.mpf:
    z = Phi_inv_ref(alpha)
    with mpmath.workdps(120):
        return +mpmath.ncdf(-z - mpf(mu))  # Φ(Φ⁻¹(1-α) - μ), Φ⁻¹(1-α) = -Φ⁻¹(α)


def mu_pure_ref(eps) -> mpmath.mpf:
    """-2Φ⁻¹(1/(1+e^ε)): solve log Φ(x) = -log(1+e^ε) by Newton at 80 digits
    (working in logs avoids the ε/ln10 digits that 2p - 1 would need)."""
    with mpmath.workdps(80):
        e = mpf(eps)
        target = -(e + mpmath.log1p(mpmath.exp(-e)))  # log p, p = 1/(1+e^ε)
        x = -mpmath.sqrt(-2 * target)  # start below the root
        x = mpmath.findroot(lambda t: mpmath.log(mpmath.ncdf(t)) - target, x, tol=mpmath.mpf(10) ** -70)
        return -2 * x


def in_enclosure(enc, value: mpmath.mpf) -> bool:
    """lo <= value <= hi up to the negligible relative slack REF_SLACK."""
    with mpmath.workdps(200):
        lo = _to_mpf(enc.lo)
        hi = _to_mpf(enc.hi)
        slack = abs(value) * REF_SLACK
        return lo - slack <= value <= hi + slack


def _to_mpf(v) -> mpmath.mpf:
    man, exp = v.man_exp()
    return mpmath.ldexp(mpmath.mpf(int(man)), int(exp))


# -- helpers at the caller's mpmath precision ---------------------------------
# (the modules that use them pin mp.dps with the `mp_digits` fixture below)


def mpq(x) -> mpmath.mpf:
    """An exact number (Fraction, int, ``"p/q"`` or decimal string, mpf) as an
    mpf at the current mpmath precision."""
    if isinstance(x, mpmath.mpf):
        return x
    if isinstance(x, str) and "/" in x:
        p, q = x.split("/")
        return mpmath.mpf(p) / mpmath.mpf(q)
    if isinstance(x, str):
        return mpmath.mpf(x)
    x = Fraction(x)
    return mpmath.mpf(x.numerator) / x.denominator


def mp_delta_mu(mu, eps) -> mpmath.mpf:
    """δ_μ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) at the current precision."""
    mu, eps = mpq(mu), mpq(eps)
    return mpmath.ncdf(-eps / mu + mu / 2) - mpmath.exp(eps) * mpmath.ncdf(-eps / mu - mu / 2)


def mp_mu_gdp(eps, delta, lo="1e-9", hi=60, steps: int = 90) -> mpmath.mpf:
    """μ with δ_μ(ε) = δ by bisection in mpmath (δ_μ(ε) increases with μ)."""
    eps, delta = mpq(eps), mpq(delta)
    a, b = mpmath.mpf(lo), mpmath.mpf(hi)
    for _ in range(steps):
        mid = (a + b) / 2
        if mp_delta_mu(mid, eps) > delta:
            b = mid
        else:
            a = mid
    return (a + b) / 2


def mp_digits(dps: int):
    """A pytest fixture body pinning mpmath to ``dps`` digits for one test module
    (restored afterwards: a module-level assignment would leak into others)."""
    def fixture():
        with mpmath.workdps(dps):
            yield
    return fixture


def rr_delta_ref(p, eps) -> mpmath.mpf:
    """δ(ε) of randomized response from the definition: the hockey-stick divergence
    Σ_y (P(y) − e^ε Q(y))⁺ of its output laws P = (p, 1−p), Q = (1−p, p) on
    neighbouring bits (both orders give the same sum), 60 digits."""
    with mpmath.workdps(60):
        p, e = mpq(p), mpmath.exp(mpq(eps))
        return sum(max(mpmath.mpf(0), a - e * b) for a, b in ((p, 1 - p), (1 - p, p)))


def mp_binomial_delta(k: int, eps, *, eps0=None, p=None) -> mpmath.mpf:
    """Exact profile of the k-fold composition of ε₀-DP (``eps0``), or of binary
    randomized response with truth probability ``p``, at the current precision
    (Kairouz, Oh & Viswanath 2015 Thm 3.3): one step's privacy loss is ±ℓ with
    P-probabilities q, 1 − q (q = e^{ε₀}/(1 + e^{ε₀}), ℓ = ε₀; or q = max(p, 1 − p),
    ℓ = log(q/(1 − q))), so with i steps at −ℓ
    δ(ε) = Σ_i C(k, i) (q^{k−i}(1 − q)^i − e^ε q^i (1 − q)^{k−i})⁺."""
    e = mpq(eps)
    if eps0 is not None:
        e0 = mpq(eps0)
        q = mpmath.exp(e0) / (1 + mpmath.exp(e0))
    else:
        q = mpq(p)
        q = max(q, 1 - q)
    ell = mpmath.log(q / (1 - q))
    total = mpmath.mpf(0)
    for i in range(k + 1):
        if eps0 is not None and not isinstance(eps, mpmath.mpf) and (k - 2 * i) * Fraction(eps0) <= Fraction(eps):
            continue  # the loss (k − 2i)ε₀ is <= ε: the term is exactly 0 (decided in rationals)
        term = mpmath.binomial(k, i) * q ** (k - i) * (1 - q) ** i * -mpmath.expm1(e - (k - 2 * i) * ell)
        if term > 0:
            total += term
    return total


def mp_sup_scan(delta, lo, hi, n: int, *, refine: int = 0, bracket=(0, 60)) -> tuple[mpmath.mpf, mpmath.mpf]:
    """(max of G(ε) = μ_GDP(ε, δ(ε)) over n + 1 equally spaced ε in [lo, hi], its ε), then
    ``refine`` golden-section steps around the best point: a lower bound of sup G (each
    value is G at a point, to the bisection's accuracy).  ``bracket`` holds every μ."""
    lo, hi = mpq(lo), mpq(hi)

    def G(x):
        d = delta(x)
        return mp_mu_gdp(x, d, lo=bracket[0] or "1e-9", hi=bracket[1], steps=100) if d > 0 else mpmath.mpf(0)

    best = (mpmath.mpf(0), lo)
    step = (hi - lo) / n
    for j in range(n + 1):
        x = lo + step * j
        best = max(best, (G(x), x))
    a, b = max(best[1] - step, lo), min(best[1] + step, hi)
    g = (mpmath.sqrt(5) - 1) / 2
    for _ in range(refine):
        x1, x2 = b - g * (b - a), a + g * (b - a)
        v1, v2 = G(x1), G(x2)
        best = max(best, (v1, x1), (v2, x2))
        if v1 >= v2:
            b = x2
        else:
            a = x1
    return best


# -- compositions with a subsampled Gaussian (closed form + one quadrature) ----


def subsampled_gaussian_delta(s, q, sigma, relation: str) -> mpmath.mpf:
    """Hockey stick E_P[(1 − e^{s − L})⁺] at any real s of the Poisson-subsampled
    Gaussian pair, sensitivity 1: remove P = (1−q)N(0, σ²) + qN(1, σ²) vs Q = N(0, σ²);
    add: the same two swapped.  The likelihood ratio (1−q) + q e^{(x − 1/2)/σ²} is
    increasing in x, so the positive part is a half-line and the value a closed form
    in Φ (at the caller's mpmath precision)."""
    s, q, m = mpq(s), mpq(q), 1 / mpq(sigma)  # standardised: N(0, 1) vs N(m, 1)
    es = mpmath.exp(s)
    if relation == "remove":  # P − e^s Q > 0  ⇔  ratio > e^s
        if es <= 1 - q:
            return 1 - es
        xs = (mpmath.log((es - (1 - q)) / q) + m * m / 2) / m
        return (1 - q) * mpmath.ncdf(-xs) + q * mpmath.ncdf(m - xs) - es * mpmath.ncdf(-xs)
    if relation == "add":  # Q − e^s P > 0  ⇔  ratio < e^{−s}
        t = 1 / es
        if t <= 1 - q:
            return mpmath.mpf(0)
        xs = (mpmath.log((t - (1 - q)) / q) + m * m / 2) / m
        return mpmath.ncdf(xs) - es * ((1 - q) * mpmath.ncdf(xs) + q * mpmath.ncdf(xs - m))
    raise ValueError(relation)


def with_laplace_delta(inner, eps) -> mpmath.mpf:
    """δ(ε) of a pair composed with Laplace(scale 1, sensitivity 1), given the pair's
    hockey stick ``inner(s)`` at every real s: conditioning on the Laplace loss
    (P = Lap(0, 1), Q = Lap(1, 1): loss +1 w.p. 1/2, −1 w.p. e^{−1}/2, and 1 − 2x
    with density e^{−x}/2 for x in (0, 1)), δ(ε) = E[inner(ε − L_Lap)]."""
    e = mpq(eps)
    body = mpmath.quad(lambda x: mpmath.exp(-x) / 2 * inner(e - 1 + 2 * x), mpmath.linspace(0, 1, 9))
    return inner(e - 1) / 2 + mpmath.exp(-1) / 2 * inner(e + 1) + body
