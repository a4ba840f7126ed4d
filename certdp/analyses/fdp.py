"""Certified f-DP reporting from certified PLDs: μ*, residual, regret, advantage.

Gomez et al. 2025 (Thm A.10, Alg. 2, eqs. 8, 21, 23) computes the trade-off curve of a
discrete PLD, the tight GDP parameter μ* = max_i Φ⁻¹(1−α_i) − Φ⁻¹(β_i) over
its breakpoints, and the regret Δ.  certdp does the same with certified
upper/lower PLDs (:mod:`certdp.analyses.accountants.pld`) and says exactly what is
proved.

Notation, one neighbouring relation at a time.  The upper PLD ν (masses
m_k at y_k, plus m_∞) gives the certified profile bound
D(γ) = F_{log γ}(ν) >= δ(log γ), which on [e^{y_k}, e^{y_{k+1}}] equals
M_k − γ S_k with M_k = ν((y_k, ∞]) and S_k = Σ_{j>k} m_j e^{−y_j}.  The
breakpoints of the trade-off curve of ν are (α_k, β_k) = (S_k, 1 − M_k)
(Gomez et al. 2025 Thm A.10).

* **μ with residual.**  D(γ) = max_k (M_k − γ S_k), and for every k,
  δ_μ(γ) >= 1 − f_μ(S_k) − γ S_k.  So f_μ(S_k) <= 1 − M_k + η, i.e.
  μ >= Φ⁻¹(M_k − η) − Φ⁻¹(S_k) (eq. 21 with the residual moved inside,
  Φ⁻¹(1−p) = −Φ⁻¹(p)), proves M_k − γ S_k <= δ_μ(γ) + η for all γ; a k with
  M_k <= η needs nothing (M_k − γ S_k <= η).  Checking every k from the
  segment holding ε = 0 up to the cut c (the first k with M_k <= η; M_k
  decreases) proves the certified statement

      δ(ε) <= δ_μ(ε) + η   for all ε >= 0, both relations,

  ("μ-GDP except η", DESIGN.md) with η the requested residual.  Using the
  residual inside each segment, not only beyond the cut, is what makes μ.hi
  tight: near the cut M_k is of the order of η.  μ.hi is the reported μ.
  μ.lo: for μ < μ.lo the lower PLD shows δ(ε_j) > δ_μ(ε_j) + η at a point, so
  no μ below μ.lo is "μ-GDP except η".  The strict GDP parameter can be far
  larger (Liu et al. 2022 Thm 4.4: Poisson-subsampled Gaussian has tail μ = √T/σ).
* **Regret** Δ(f, f_μ) = inf{κ >= 0 : f(α+κ) − κ <= f_μ(α) ∀α} (eq. 6/23)
  of the reported μ = μ.hi against the mechanism's true trade-off curve f
  (the symmetric curve of the max-over-relations profile).  Upper bound:
  cell argument with f <= f_U from the lower PLDs (f(x) <= sup_γ 1 − δ_L(γ) − γx);
  lower bound: a witness α with f_L(α+κ) − κ > f_μ(α), f_L from the upper PLDs.
* **Advantage** η(f) = max_α 1 − α − f(α) (eq. 8) = δ(0) (take the line of
  slope −1); enclosure from the PLDs.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from fractions import Fraction

from flint import arb

from certdp.errors import InputError, PrecisionError
from certdp.numerics.ball import lower_bound, to_ball, upper_bound, working_precision
from certdp.numerics.enclosure import Enclosure
from certdp.numerics.exact import exact
from certdp.numerics.normal import Phi_ball, Phi_inv_ball

PREC = 128


_STD_NORMAL = statistics.NormalDist()


def _ndtri(p: float) -> float:
    """Float Φ⁻¹ for search only (stdlib; NaN outside (0, 1))."""
    if not 0.0 < p < 1.0:
        return math.nan
    return _STD_NORMAL.inv_cdf(min(max(p, 1e-300), 1 - 1e-16))


def _phi_inv_small(p: arb) -> arb:
    """Φ⁻¹(p) for a ball p in (0, 1) (argument of erfcinv kept away from 2)."""
    if p < 0.5:
        return Phi_inv_ball(p)
    return -Phi_inv_ball(1 - p)


def phi_inv_upper(p: arb) -> arb:
    """An exact upper bound of Φ⁻¹(p) for a ball p ⊂ (0,1): a float guess z
    (search only) is certified by Φ(z) >= p.upper(); fallback: Φ⁻¹ in balls."""
    pf = float(p.mid())
    if 0 < pf < 1:
        z = _ndtri(pf)
        z += 1e-12 * max(1.0, abs(z))
        zb = arb(z)
        with working_precision(64):
            ok = Phi_ball(zb) >= p
        if ok:
            return zb
    return upper_bound(_phi_inv_small(p))


def phi_inv_lower(p: arb) -> arb:
    """An exact lower bound of Φ⁻¹(p): certified by Φ(z) <= p.lower()."""
    pf = float(p.mid())
    if 0 < pf < 1:
        z = _ndtri(pf)
        z -= 1e-12 * max(1.0, abs(z))
        zb = arb(z)
        with working_precision(64):
            ok = Phi_ball(zb) <= p
        if ok:
            return zb
    return lower_bound(_phi_inv_small(p))



def f_mu_ball(mu: arb, alpha: arb) -> arb:
    """f_μ(α) = Φ(Φ⁻¹(1−α) − μ) = Φ(−Φ⁻¹(α) − μ)."""
    if alpha <= 0:
        return arb(1)
    if alpha >= 1:
        return arb(0)
    return Phi_ball(-_phi_inv_small(alpha) - mu)


class _Grid:
    """The support points y_k = (offset + k) h as exact Fractions, on demand."""

    def __init__(self, offset: int, h: Fraction, n: int) -> None:
        self.offset, self.h, self.n = offset, h, n

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, k: int) -> Fraction:
        if not 0 <= k < self.n:
            raise IndexError(k)
        return (self.offset + k) * self.h


@dataclass
class _Profile:
    """Cumulative data of one composed PLD: support y_k (exact Fractions),
    M_k (exact units and balls) and S_k (balls), k = 0..n−1, for masses
    strictly above y_k."""

    ys: _Grid
    M_units: list[int]
    M: list[arb]
    S: list[arb]
    bits: int

    offset: int = 0
    h: Fraction = Fraction(1)
    M_all: arb = arb(0)  # all mass (finite atoms + ∞)
    S_all: arb = arb(0)  # Σ m_k e^{−y_k} over all finite atoms
    M_inf: arb = arb(0)  # the atom at +∞

    @classmethod
    def of(cls, pld) -> "_Profile":
        Ms, Ss, Mu = pld.grid_profile()
        ys = _Grid(pld.offset, pld.h, len(Ms))
        scale = arb(2) ** (-pld.bits)
        m0 = int(pld.poly[0]) if pld.poly.length() else 0
        y0 = to_ball(ys[0]) if len(ys) else arb(0)
        M_all = to_ball(pld.total_units()) * scale
        S_all = (Ss[0] + to_ball(m0) * scale * (-y0).exp()) if len(ys) else arb(0)
        return cls(ys, Mu, Ms, Ss, pld.bits, pld.offset, pld.h, M_all, S_all,
                   to_ball(pld.inf) * scale)

    def y_ball(self, k: int) -> arb:
        return arb(self.offset + k) * self._hb()

    def ey(self, k: int) -> arb:
        """e^{y_k} (cached)."""
        c = self.__dict__.setdefault("_ey", {})
        v = c.get(k)
        if v is None:
            v = c[k] = self.y_ball(k).exp()
        return v

    def nonneg(self, k: int) -> bool:
        return self.offset + k >= 0

    def _hb(self) -> arb:
        hb = self.__dict__.get("_h_ball")
        if hb is None:
            hb = self.__dict__["_h_ball"] = to_ball(self.h)
        return hb

    def index_of(self, y: Fraction) -> int | None:
        """Index k with y_k = y (may be out of range), None if y is off-grid."""
        q = y / self.h - self.offset
        if q.denominator != 1:
            return None
        return int(q)

    def first_nonneg(self) -> int:
        """Index of the segment containing ε = 0 (largest k with y_k <= 0, or 0)."""
        return max(0, min(len(self.ys) - 1, -self.offset))

    def delta_at(self, k: int) -> arb:
        """F at ε = y_k (ball)."""
        return self.M[k] - to_ball(self.ys[k]).exp() * self.S[k]


@dataclass(frozen=True)
class GDPReport:
    """What certdp certifies about GDP for a composed mechanism.

    ``mu.hi`` with ``residual.hi`` = η: δ(ε) <= δ_{mu.hi}(ε) + η for all ε >= 0.
    ``mu.lo``: no μ' < mu.lo satisfies δ <= δ_μ' + η' for any η' up to
    max(η, the requested residual).
    """

    mu: Enclosure
    residual: Enclosure
    regret: Enclosure | None
    advantage: Enclosure
    mu_reported: Enclosure
    residual_exact: Fraction | None = None  # η itself (the residual's enclosure holds it)

    def to_json(self) -> dict:
        out = {"mu": self.mu, "residual": self.residual, "advantage": self.advantage}
        if self.regret is not None:
            out["regret"] = self.regret
        return out


# ---------------------------------------------------------------------------
# μ upper bound (certified branch and bound over breakpoints)
# ---------------------------------------------------------------------------


#: Branch-and-bound tolerance for μ.hi: blocks whose bound is within this of
#: the incumbent are accepted with their (valid, slightly larger) bound.
MU_SLACK = Fraction(1, 2**20)


def _mu_upper_one(prof: _Profile, resid: Fraction) -> tuple[arb, int]:
    """Certified upper bound of max_{k0 <= k < c} Φ⁻¹(M_k − η) − Φ⁻¹(S_k) (eq. 21
    with the residual η inside) and the cut index c (first k >= k0 with M_k <= η)."""
    n = len(prof.ys)
    if prof.offset > 0:
        # the segment [0, y_0) would need the vertex (S_all, 1 − M_all): not handled
        raise PrecisionError("PLD support lies above 0: refine the grid (smaller h)")
    k0 = prof.first_nonneg()
    resid_units = resid * (1 << prof.bits)  # exact comparison with the integer units
    c = k0
    while c < n - 1 and prof.M_units[c] > resid_units:
        c += 1
    if prof.M_units[c] > resid_units:
        raise PrecisionError("the residual is below the upper PLD's mass at +infinity")

    def above(k: int) -> arb:
        # M_k − η > 0 exactly (k < c); its ball's upper end bounds Φ⁻¹ from above
        return upper_bound(to_ball(prof.M_units[k] - resid_units) * arb(2) ** (-prof.bits))

    def val(k: int) -> arb:
        M, S = above(k), prof.S[k]
        if not (S > 0 and M < 1 and S < 1):
            raise PrecisionError(f"breakpoint {k} is outside (0,1)^2: M={M}, S={S}")
        return phi_inv_upper(M) - phi_inv_lower(S)  # exact upper bound

    def block_bound(k1: int, k2: int) -> arb:
        # M_k and S_k decrease with k: on [k1, k2] the value is <= Φ⁻¹(M_k1 − η) − Φ⁻¹(S_k2)
        M, S = above(k1), prof.S[k2]
        if not (S > 0 and M < 1 and S < 1):
            return arb("inf")
        return phi_inv_upper(M) - phi_inv_lower(S)

    if c <= k0:
        return arb(0), c
    # incumbent from a float estimate of the argmax (search only)
    eta_f = float(resid)
    est = [_ndtri(float(prof.M[k].mid()) - eta_f) - _ndtri(float(prof.S[k].mid())) for k in range(k0, c)]
    finite = [(v, i) for i, v in enumerate(est) if math.isfinite(v)]
    kbest = k0 + (max(finite)[1] if finite else 0)
    best = upper_bound(val(kbest))
    slack = to_ball(MU_SLACK)
    accept = upper_bound(best + slack)
    result = best
    stack = [(k0, c - 1)]
    while stack:
        k1, k2 = stack.pop()
        b = block_bound(k1, k2)
        if b <= accept:
            ub = upper_bound(b)
            if ub > result:
                result = ub
            continue
        if k2 - k1 <= 1:
            for k in range(k1, k2 + 1):
                ub = upper_bound(val(k))
                if ub > result:
                    result = ub
                if ub > accept:
                    accept = upper_bound(ub + slack)
            continue
        m = (k1 + k2) // 2
        stack.append((k1, m))
        stack.append((m + 1, k2))
    return result, c


def _mu_lower_one(prof_lo: _Profile, resid: arb) -> arb:
    """Certified lower bound: max over a few points of μ_GDP(ε_j, δ_L(ε_j) − η).
    The points are chosen by floats (search only): a coarse pass over the
    support, then every point near the three best."""
    from certdp.numerics.ball import dyadic_to_fraction  # noqa: PLC0415
    from certdp.numerics.gdp import mu_from_eps_delta  # noqa: PLC0415

    n = len(prof_lo.ys)
    k0 = prof_lo.first_nonneg()
    eta_f = float(resid.mid())

    def guess(k: int) -> float | None:
        if prof_lo.ys[k] <= 0:
            return None
        df = float(prof_lo.delta_at(k).mid()) - eta_f
        return _mu_float(float(prof_lo.ys[k]), df) if df > 0 else None

    stride = max(1, (n - k0) // 400)
    coarse = [(g, k) for k in range(k0, n, stride) if (g := guess(k)) is not None]
    if not coarse:
        return arb(0)
    coarse.sort(reverse=True)
    near = {j for _, k in coarse[:3] for j in range(max(k0, k - stride), min(n, k + stride + 1))}
    cand = sorted(((g, k) for k in near if (g := guess(k)) is not None), reverse=True)
    best = arb(0)
    for _, k in cand[:3]:
        d = lower_bound(prof_lo.delta_at(k) - resid)
        if not d > 0 or not d < 1:
            continue
        enc = mu_from_eps_delta(prof_lo.ys[k], dyadic_to_fraction(d))
        if enc.lo > best:
            best = enc.lo
    return best


def _mu_float(eps: float, delta: float) -> float:
    """Float μ with δ_μ(ε) = δ (search only)."""

    def dmu(mu: float) -> float:
        a = -eps / mu + mu / 2
        b = -eps / mu - mu / 2
        return 0.5 * math.erfc(-a / math.sqrt(2)) - math.exp(eps) * 0.5 * math.erfc(-b / math.sqrt(2))

    lo, hi = 1e-6, 1.0
    while dmu(hi) < delta and hi < 1e6:
        hi *= 2
    for _ in range(100):
        mid = (lo + hi) / 2
        if dmu(mid) < delta:
            lo = mid
        else:
            hi = mid
    return hi


# ---------------------------------------------------------------------------
# trade-off bounds at a point
# ---------------------------------------------------------------------------


def _delta_upper_at(profs_up: list[_Profile], y: Fraction) -> arb:
    """max_r of the upper profile at ε = y (a grid point): M − e^y S with the
    masses strictly above y (index arithmetic on the common grid)."""
    best: arb | None = None
    for prof in profs_up:
        k = prof.index_of(y)
        if k is None:
            continue
        if k < 0:
            d = prof.M_all - to_ball(y).exp() * prof.S_all
        elif k >= len(prof.ys):
            d = prof.M_inf
        else:
            d = prof.M[k] - to_ball(y).exp() * prof.S[k]
        best = d if best is None else _bmax(best, d)
    assert best is not None
    return best


def _bmax(a: arb, b: arb) -> arb:
    """A ball containing max(a, b) for every a, b in the balls."""
    if a > b:
        return a
    if b > a:
        return b
    return upper_bound(a).union(upper_bound(b)).union(_lmax(a, b))


def _lmax(a: arb, b: arb) -> arb:
    la, lb = lower_bound(a), lower_bound(b)
    return la if la > lb else lb


def f_lower_at(profs_up: list[_Profile], x: arb) -> arb:
    """Certified lower bound of f(x) (symmetric curve of the max profile):
    f(x) >= 1 − δ(ε) − e^ε x and >= e^{−ε}(1 − δ(ε) − x) for every ε >= 0,
    with δ <= max_r upper profile; ε chosen at the best kinks (floats)."""
    best = arb(0)
    for prof in profs_up:
        n = len(prof.ys)
        k0 = prof.first_nonneg()
        ka = _first_index(prof.S, x, k0, n)
        kb = _first_index(prof.M, 1 - x, k0, n)
        for k in {ka - 1, ka, ka + 1, kb - 1, kb, kb + 1}:
            if not (k0 <= k < n) or not prof.nonneg(k):
                continue
            d = _delta_upper_at(profs_up, prof.ys[k])
            e = prof.ey(k)
            for g in (1 - d - e * x, (1 - d - x) / e):
                lb = lower_bound(g)
                if lb > best:
                    best = lb
    return best


def f_upper_at(profs_lo: list[_Profile], x: arb) -> arb:
    """Certified upper bound of f(x): for each relation r,
    f(x) <= sup_{ε>=0} max(1 − δ_L^r(ε) − e^ε x, e^{−ε}(1 − δ_L^r(ε) − x))
    (δ >= δ_L^r), and f(x) <= 1 − x.  δ_L^r is piecewise linear in γ = e^ε
    (kinks at the support), so each sup is at a kink located by certified
    monotone slopes: family A has slope S_k − x on segment k, family B is
    increasing in ε on segment k iff M_k > 1 − x."""
    result = upper_bound(1 - x)
    for prof in profs_lo:
        n = len(prof.ys)
        k0 = prof.first_nonneg()
        vals: list[arb] = [arb(0)]
        for arr, t, fam in ((prof.S, x, "A"), (prof.M, 1 - x, "B")):
            ka = _first_index(arr, t, k0, n)
            # certify the window: arr[ka-1] > t (or ka == k0), arr[kb] < t (or kb == n-1)
            while ka > k0 and not arr[ka - 1] > t:
                ka -= 1
            kb = max(ka, k0)
            while kb < n - 1 and not arr[kb] < t:
                kb += 1
            # δ_L is linear in γ between support points that carry mass, and both
            # families are monotone on each linear piece: only those points (and
            # the window's ends) can give the sup
            cands = [k for k in range(max(ka, k0), kb + 1)
                     if k in (ka, kb, k0) or prof.M_units[k - 1] != prof.M_units[k]]
            if len(cands) > 4096:  # too many kinks to visit: the global bound below
                vals.append(1 - x if fam == "A" else arb(1) - x)
                continue
            for k in cands:
                if prof.nonneg(k):
                    e = prof.ey(k)
                    d = prof.M[k] - e * prof.S[k]
                    vals.append(1 - d - e * x if fam == "A" else (1 - d - x) / e)
            # the start γ = 1 (ε = 0) on segment k0 (y_k0 <= 0 < y_k0+1)
            if not prof.nonneg(k0) or prof.offset + k0 == 0:
                d0 = prof.M[k0] - prof.S[k0]
                vals.append(1 - d0 - x)
            if kb == n - 1:
                # beyond the support (γ >= e^{y_last}) δ_L = m_∞: family A is
                # 1 − m_∞ − γx <= 1 − m_∞ − e^{y_last}x, B is (1 − m_∞ − x)/γ <= that over e^{y_last}
                e_last = prof.ey(n - 1)
                vals.append((1 - prof.M_inf - x) / e_last if fam == "B" else 1 - prof.M_inf - e_last * x)
        mx = upper_bound(vals[0])
        for v in vals[1:]:
            ub = upper_bound(v)
            if ub > mx:
                mx = ub
        if mx < result:
            result = mx
    return result if result > 0 else arb(0)


def tradeoff_enclosure(accountant, alpha: object) -> Enclosure:
    """Certified enclosure of f(α), the symmetric trade-off curve of the composition
    (the type II error of the best test at type I error α, both neighbouring relations;
    Gomez et al. 2025 Thm A.10, Dong, Roth & Su 2022 Prop 2.12 for the duality with δ).
    Lower end: :func:`f_lower_at` on the upper PLDs (δ <= D_U gives
    f(α) >= sup_ε 1 − D_U(ε) − e^ε α and e^{−ε}(1 − D_U(ε) − α)); upper end:
    :func:`f_upper_at` on the lower PLDs, or 1 − α when only upper PLDs exist."""
    a = exact(alpha, "alpha")
    if not 0 <= a <= 1:
        raise InputError(f"alpha must lie in [0, 1], got {alpha!r}")
    two_sided = getattr(accountant, "two_sided", True)
    with working_precision(PREC):
        x = to_ball(a)
        profs_up = [_Profile.of(accountant.plds("upper")[k]) for k in ("add", "remove")]
        lo = f_lower_at(profs_up, x)
        if two_sided:
            profs_lo = [_Profile.of(accountant.plds("lower")[k]) for k in ("add", "remove")]
            hi = f_upper_at(profs_lo, x)
        else:
            hi = upper_bound(1 - x)
        lo = lo if lo > 0 else arb(0)
        if lo > hi:
            raise PrecisionError(f"inconsistent trade-off bounds {lo} > {hi}")
    return Enclosure(lo, hi)


def _first_index(vals: list[arb], x: arb, k0: int, n: int) -> int:
    """First k >= k0 with vals[k] <= x for decreasing vals (float bisection; a
    search hint only — callers certify the neighbourhood)."""
    xf = float(x.mid())
    lo, hi = k0, n - 1
    while lo < hi:
        m = (lo + hi) // 2
        if float(vals[m].mid()) > xf:
            lo = m + 1
        else:
            hi = m
    return lo


# ---------------------------------------------------------------------------
# regret
# ---------------------------------------------------------------------------


def _profile_at(profs: list[_Profile], eps: arb) -> arb:
    """max over relations of the PLD profile at ε (a ball; ε >= 0):
    on [y_k, y_{k+1}) the profile is M_k − e^ε S_k (masses above y_k)."""
    best: arb | None = None
    for prof in profs:
        n = len(prof.ys)
        hb = prof._hb()
        kf = math.floor(float((eps / hb).mid())) - prof.offset
        # certify y_k <= eps < y_{k+1}; widen to the hull of both neighbours if undecided
        vals = []
        for k in (kf - 1, kf, kf + 1):
            if k >= n:
                vals.append((k, prof.M_inf))
                continue
            if k < 0:
                vals.append((k, prof.M_all - eps.exp() * prof.S_all))
                continue
            vals.append((k, prof.M[k] - eps.exp() * prof.S[k]))
        chosen = None
        for k, v in vals:
            lo_ok = (prof.offset + k) * hb <= eps
            hi_ok = eps < (prof.offset + k + 1) * hb
            if lo_ok and hi_ok:
                chosen = v
                break
        if chosen is None:  # undecided at a grid point: the profile is continuous there
            # the union covers the true cell only if ε ∈ [y_{kf-1}, y_{kf+2}) is certain
            covered = ((prof.offset + kf - 1) * hb <= eps) and (eps < (prof.offset + kf + 2) * hb)
            if not covered:
                raise PrecisionError(f"cannot locate eps = {eps} on the PLD grid (float guess {kf} is off)")
            chosen = vals[0][1].union(vals[1][1]).union(vals[2][1])
        best = chosen if best is None else _bmax(best, chosen)
    assert best is not None
    return best


def regret_bounds(profs_up: list[_Profile], profs_lo: list[_Profile], mu: arb,
                  rel_tol: float = 1e-3) -> Enclosure:
    """Enclosure of Δ(f, f_μ) (Gomez et al. 2025 eqs. 6/23) for the true curve f.

    With g(α) = f(α+κ) − κ, convex conjugacy gives δ_g(γ) = δ_f(γ) + κ(1+γ)
    (for γ up to |f'(κ)|, constant beyond), and g <= f_μ iff δ_g >= δ_μ, so

        Δ(f, f_μ) = sup_{ε >= 0} (δ_μ(ε) − δ(ε))⁺ / (1 + e^ε)

    (ε < 0 mirrors ε > 0 for symmetric curves).  Upper end: cells [a, b] in ε
    with (δ_μ(a) − δ_L(b))/(1 + e^a), refined adaptively, plus the tail
    δ_μ(E)/(1 + e^E); lower end: the value at the best point with δ_U."""
    from certdp.numerics.gdp import delta_mu_ball  # noqa: PLC0415

    if mu.is_exact() and mu.is_zero():  # δ_0 ≡ 0 <= δ: no curve lies below f_0 = 1 − α
        return Enclosure.from_ball(arb(0))
    with working_precision(PREC):
        def point_lb(e: Fraction) -> arb:
            eb = to_ball(e)
            v = (delta_mu_ball(mu, eb) - _profile_at(profs_up, eb)) / (1 + eb.exp())
            return lower_bound(v)

        def cell_ub(a: Fraction, b: Fraction) -> tuple[arb, arb]:
            """(bound on the cell, how much a finer cell could gain at most)."""
            ab, bb = to_ball(a), to_ball(b)
            den = 1 + ab.exp()
            dla = _profile_at(profs_lo, ab)
            dlb = _profile_at(profs_lo, bb)
            v = (delta_mu_ball(mu, ab) - dlb) / den
            return upper_bound(v), upper_bound((dla - dlb) / den)

        E = Fraction(8)
        muf = float(mu.mid())
        while True:
            tail = upper_bound(delta_mu_ball(mu, to_ball(E)) / (1 + to_ball(E).exp()))
            if tail < arb("1e-12") or E > 400:
                break
            E += 8 + int(muf * muf)
        step = Fraction(1, 64)
        cells = []
        a = Fraction(0)
        while a < E:
            cells.append((a, min(a + step, E)))
            a += step
        # incumbent: best certified point value among cell midpoints
        best_lb = arb(0)
        best_pt = Fraction(0)
        for a, b in cells:
            m = (a + b) / 2
            v = point_lb(m)
            if v > best_lb:
                best_lb, best_pt = v, m
        # refine around the incumbent point for a better lower end
        span = step
        for _ in range(12):
            span /= 2
            for cand in (best_pt - span, best_pt + span):
                if cand >= 0:
                    v = point_lb(cand)
                    if v > best_lb:
                        best_lb, best_pt = v, cand
        # the level the upper end can reach: best point value with the lower profile
        reach = arb(0)
        for a, b in cells:
            m = to_ball((a + b) / 2)
            v = upper_bound((delta_mu_ball(mu, m) - _profile_at(profs_lo, m)) / (1 + m.exp()))
            if v > reach:
                reach = v
        level = reach if reach > best_lb else best_lb
        tol = to_ball(Fraction(rel_tol)) * level + arb("1e-12")
        accept = upper_bound(level + tol)
        upper = tail if tail > best_lb else best_lb
        # best-first refinement: always split the cell with the largest bound
        import heapq  # noqa: PLC0415

        heap: list = []
        for a, b in cells:
            ub, gain = cell_ub(a, b)
            heapq.heappush(heap, (-float(ub.mid()), a, b, ub, gain))
        budget = 6000  # refinements; afterwards the remaining cells' bounds are used (sound)
        while heap and budget > 0:
            _, a, b, ub, gain = heap[0]
            if ub <= accept or gain <= tol or b - a <= Fraction(1, 2**20):
                break  # the largest remaining bound is good enough
            heapq.heappop(heap)
            budget -= 1
            m = (a + b) / 2
            for c, d in ((a, m), (m, b)):
                u, g = cell_ub(c, d)
                heapq.heappush(heap, (-float(u.mid()), c, d, u, g))
        for item in heap:
            if item[3] > upper:
                upper = item[3]
        lo = best_lb if best_lb > 0 else arb(0)
        hi = upper if upper > 0 else arb(0)
        return Enclosure(lo, hi)


# ---------------------------------------------------------------------------
# the report
# ---------------------------------------------------------------------------


def gdp_report(accountant, residual: object = Fraction(1, 10**10), regret: bool = True) -> GDPReport:
    """Certified GDP report for a composed :class:`PLDAccountant` (see module doc).

    ``residual`` — target for the certified residual η (the breakpoints whose
    upper mass above is <= it are not checked; η is reported as an enclosure).
    Without lower PLDs (an accountant holding a profile pair: upper bounds only)
    μ.lo is 0 and no regret is reported: nothing is proved from below.
    """
    r = exact(residual, "residual")
    if not 0 < r < 1:
        raise InputError(f"residual must lie in (0, 1), got {residual!r}")
    two_sided = getattr(accountant, "two_sided", True)  # lower PLDs exist (not a profile pair)
    plds_up = accountant.plds("upper")
    plds_lo = accountant.plds("lower") if two_sided else {}
    with working_precision(PREC):
        profs_up = [_Profile.of(plds_up[k]) for k in ("add", "remove")]
        profs_lo = [_Profile.of(plds_lo[k]) for k in ("add", "remove")] if two_sided else []
        # η: the requested residual, or the mass beyond the last support point when
        # that is larger (no finite μ covers it)
        eta = max([r] + [Fraction(p.M_units[-1], 1 << p.bits) for p in profs_up if len(p.M_units)])
        mus = [_mu_upper_one(prof, eta)[0] for prof in profs_up]
        mu_hi = mus[0] if mus[0] > mus[1] else mus[1]
        eta_hi = upper_bound(to_ball(eta))
        # μ.lo is certified against the larger of the achieved and the requested
        # residual: no μ' < μ.lo satisfies δ <= δ_μ' + η' for any η' <= that
        # value (a larger η' only lowers the bound, so this is the weaker, and
        # for claims allowing up to the requested residual, the relevant one).
        r_ball = to_ball(r)
        eta_for_lower = eta_hi if eta_hi > r_ball else upper_bound(r_ball)
        mu_lo = arb(0)
        for prof in profs_lo:
            v = _mu_lower_one(prof, eta_for_lower)
            if v > mu_lo:
                mu_lo = v
        if mu_lo > mu_hi:
            raise PrecisionError(f"inconsistent mu bounds {mu_lo} > {mu_hi}")
        adv = accountant.delta(0)
        reg = regret_bounds(profs_up, profs_lo, mu_hi) if regret and two_sided else None
    return GDPReport(
        mu=Enclosure(mu_lo, mu_hi),
        residual=Enclosure(arb(0), eta_hi),
        regret=reg,
        advantage=adv,
        mu_reported=Enclosure(mu_hi, mu_hi),
        residual_exact=eta,
    )
