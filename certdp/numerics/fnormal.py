"""The standard normal distribution on certified float vectors (:mod:`certdp.numerics.fvec`).

* :func:`upper_tail` — Φ̄(z) = P(N(0,1) > z), elementwise.  For z >= 0 from an
  anchor a (a table of Φ̄(a), φ(a) computed once in ``arb``; spacing
  1/(8(k+1)) on [k, k+1), so |z − a|·max(1, a) <= 1/16):

      Φ̄(a + t) = Φ̄(a) − φ(a) J(a, t),   J(a, t) = ∫₀ᵗ e^{−as − s²/2} ds;

  for z < 0, Φ̄(z) = 1 − Φ̄(−z); beyond z = 37.5 (Φ̄ < 10⁻³⁰⁰) the ball [0, Φ̄(37)].
* :func:`interval_mass` — N(c, σ²) mass of (x_a, x_b) for float ends (±inf
  allowed).  A narrow interval (|Δ|·max(1, |z_a|) <= 1/8, Δ = (x_b − x_a)/σ) is
  φ(z_a) J(z_a, Δ), without the cancellation of a difference of tails (Δ is
  computed from the float difference x_b − x_a, relatively exact); a wide one
  is a difference of tails on the side that keeps relative accuracy.

J is its Taylor series Σ c_n tⁿ⁺¹/(n+1), with (n+1)c_{n+1} = −a c_n − c_{n−1}
(c₀ = 1, c₋₁ = 0; g(s) = e^{−as−s²/2} satisfies g' = −(a+s)g), evaluated in
ball arithmetic.  Remainder after N terms (Cauchy's estimate on |s| = R =
1/(2 max(1,|a|)), where |g| <= e^{|a|R + R²/2} <= e^{5/8}):
|Σ_{n>N} c_n tⁿ⁺¹/(n+1)| <= |t| e^{5/8} ρ^{N+1}/(1 − ρ), ρ = |t|/R <= 1/4.
"""

from __future__ import annotations

import functools
import math

import numpy as np
from flint import arb

from certdp.numerics.ball import working_precision
from certdp.numerics.fvec import DOWN, UP, FVec, Guide, exp, ipow, union
from certdp.numerics.normal import Phi_upper_ball, phi_ball

#: Beyond this |z| the tail is enclosed by [0, Φ̄(ZFAR_BOUND)].
ZFAR = 37.5
ZFAR_BOUND = 37
#: The remainder of J is kept below this fraction of |t|.
J_REL = 1e-19
_E58 = 1.86825  # > e^{5/8} = 1.8682459...


@functools.lru_cache(maxsize=1)
def _table() -> tuple[np.ndarray, FVec, FVec, np.ndarray, FVec]:
    """(anchors, Φ̄(anchors), φ(anchors), segment offsets, Φ̄(37)) — built once, in arb."""
    anchors: list[float] = []
    offsets = []
    for k in range(int(ZFAR) + 1):
        offsets.append(len(anchors))
        m = 8 * (k + 1)
        anchors.extend(k + j / m for j in range(m))
    offsets.append(len(anchors))
    anchors.append(float(int(ZFAR) + 1))
    qm, qr, pm, pr = [], [], [], []
    with working_precision(128):
        for a in anchors:
            for v, ms, rs in ((Phi_upper_ball(arb(a)), qm, qr), (phi_ball(arb(a)), pm, pr)):
                f = FVec.of_arb(v)
                ms.append(float(f.mid))
                rs.append(float(f.rad))
        far = FVec.of_arb(Phi_upper_ball(arb(ZFAR_BOUND)))
    return (np.array(anchors), FVec(np.array(qm), np.array(qr)), FVec(np.array(pm), np.array(pr)),
            np.array(offsets, dtype=np.int64), far)


def J(a: FVec, t: FVec) -> FVec:
    """∫₀ᵗ e^{−as − s²/2} ds, elementwise; rad = inf where 2|t| max(1, |a|) > 1/4."""
    A, T = a.abs_hi(), t.abs_hi()
    rho = 2.0 * T * np.maximum(1.0, A) * UP
    ok = rho <= 0.25
    rmax = float(np.max(rho, where=ok, initial=0.0))
    # the smallest N with e^{5/8} ρ^{N+1}/(1 − ρ) <= J_REL for the largest ρ used
    n_terms = 1
    if rmax > 0:
        while _E58 * rmax ** (n_terms + 1) / (1 - rmax) > J_REL:
            n_terms += 1
    ctx = type(t)
    c_prev = ctx.exact(0.0)
    c = ctx.exact(1.0)
    tp = t
    acc = t
    for n in range(n_terms):
        c_prev, c = c, (a * c + c_prev).scaled(float(n + 1))
        c = -c
        tp = tp * t
        acc = acc + (c * tp).scaled(float(n + 2))
    if ctx is Guide:
        return acc
    r = np.where(ok, rho, 0.0)
    rem = T * (_E58 * ipow(r, n_terms + 1) / ((1 - r) * DOWN)) * UP
    return FVec(acc.mid, np.where(ok, (acc.rad + rem) * UP, np.inf))


def _upper_tail_nonneg(w: FVec) -> FVec:
    """Φ̄(w) for balls with mid >= 0."""
    anchors, q_tab, p_tab, offsets, far = _table()
    m = np.where(np.isfinite(w.mid), w.mid, 0.0)
    k = np.clip(np.floor(m), 0, int(ZFAR)).astype(np.int64)
    j = np.rint((m - k) * (8 * (k + 1))).astype(np.int64)
    idx = np.clip(offsets[k] + j, 0, len(anchors) - 1)
    a = anchors[idx]
    ctx = type(w)
    t = w - ctx.exact(a)
    if ctx is Guide:
        return Guide(q_tab.mid[idx] - p_tab.mid[idx] * J(ctx.exact(a), t).mid)
    val = q_tab[idx] - p_tab[idx] * J(FVec.exact(a), t)
    is_far = (w.mid > ZFAR) & (w.mid - w.rad >= ZFAR_BOUND)
    far_ball = FVec(np.full_like(m, 0.5 * far.hi()), np.full_like(m, 0.5 * far.hi() * UP))
    out = union(val, far_ball, is_far)
    bad = ~np.isfinite(w.mid) | ~np.isfinite(w.rad) | ((w.mid > ZFAR) & ~is_far)
    return FVec(out.mid, np.where(bad, np.inf, out.rad))


def upper_tail(z: FVec) -> FVec:
    """Φ̄(z) = P(N(0,1) > z), elementwise (any sign)."""
    neg = z.mid < 0
    w = type(z)(np.abs(z.mid), z.rad)  # |z| where mid >= 0, −z where mid < 0: the same ball
    q = _upper_tail_nonneg(w)
    return union(q, 1.0 - q, neg)


def sides(z: FVec) -> tuple[np.ndarray, FVec]:
    """(neg, v): v = Φ̄(z) where z.mid >= 0, v = Φ(z) = Φ̄(−z) where z.mid < 0 —
    the smaller tail, kept relatively accurate."""
    neg = z.mid < 0
    return neg, _upper_tail_nonneg(type(z)(np.abs(z.mid), z.rad))


def density(z: FVec) -> FVec:
    """φ(z) = e^{−z²/2}/√(2π) (rad = inf where z²/2 > 700)."""
    inv = _inv_sqrt_2pi()
    return exp((z * z).scaled(-2.0)) * (inv.mid if isinstance(z, Guide) else inv)


@functools.lru_cache(maxsize=1)
def _inv_sqrt_2pi() -> FVec:
    with working_precision(128):
        return FVec.of_arb(1 / (2 * arb.pi()).sqrt())


def interval_mass(xa: np.ndarray, xb: np.ndarray, c: float, inv_sigma: FVec) -> FVec:
    """N(c, σ²)((x_a, x_b)) for float ends x_a <= x_b (±inf allowed), elementwise;
    ``inv_sigma`` encloses 1/σ (a :class:`~certdp.numerics.fvec.Guide`: the same
    algorithm on plain floats, a search guide)."""
    with np.errstate(all="ignore"):  # the branches not taken may overflow: union drops them
        return _interval_mass(xa, xb, c, inv_sigma)


def _interval_mass(xa: np.ndarray, xb: np.ndarray, c: float, inv_sigma: FVec) -> FVec:
    xa, xb = np.asarray(xa, dtype=np.float64), np.asarray(xb, dtype=np.float64)
    ctx = type(inv_sigma)
    fa, fb = np.isfinite(xa), np.isfinite(xb)
    za = (ctx.exact(np.where(fa, xa, 0.0)) - c) * inv_sigma
    # narrow cells: φ(z_a) J(z_a, Δ), Δ from the float difference (relatively exact)
    d = (ctx.exact(np.where(fa & fb, xb, 0.0)) - ctx.exact(np.where(fa & fb, xa, 0.0))) * inv_sigma
    nonempty = xa < xb
    use_narrow = fa & fb & nonempty & (2.0 * d.abs_hi() * np.maximum(1.0, za.abs_hi()) <= 0.125)
    mid = np.zeros(xa.shape)
    rad = np.zeros(xa.shape)
    sel = np.nonzero(use_narrow)[0]
    if len(sel):
        zs = za[sel]
        nar = density(zs) * J(zs, d[sel])
        mid[sel], rad[sel] = nar.mid, nar.rad
        bad = ~nar.finite()
        use_narrow[sel[bad]] = False  # (an overflowing density: the tails below)
    # the rest (wide cells, infinite ends): tails on the side that keeps relative accuracy
    sel = np.nonzero(nonempty & ~use_narrow)[0]
    if len(sel):
        w = _by_tails(xa[sel], xb[sel], fa[sel], fb[sel], za[sel], c, inv_sigma)
        mid[sel], rad[sel] = w.mid, w.rad
    return ctx(mid, rad)


def _by_tails(xa: np.ndarray, xb: np.ndarray, fa: np.ndarray, fb: np.ndarray, za: FVec, c: float,
              inv_sigma: FVec) -> FVec:
    """N(c, σ²)((x_a, x_b)), x_a < x_b, as a difference of tails (or a tail, or 1)."""
    ctx = type(inv_sigma)
    zb = (ctx.exact(np.where(fb, xb, 0.0)) - c) * inv_sigma
    neg_a, sa = sides(za)
    neg_b, sb = sides(zb)
    below_b = union(1.0 - sb, sb, neg_b)  # Φ(z_b)
    above_a = union(sa, 1.0 - sa, neg_a)  # Φ̄(z_a)
    sb_pos = union(sb, 1.0 - sb, neg_b)  # Φ̄(z_b)
    sa_neg = union(1.0 - sa, sa, neg_a)  # Φ(z_a)
    # z_a >= 0: Φ̄(z_a) − Φ̄(z_b);  z_b < 0: Φ(z_b) − Φ(z_a);  else 1 − Φ(z_a) − Φ̄(z_b)
    out = union(union(1.0 - sa_neg - sb_pos, sb - sa, neg_b), sa - sb_pos, ~neg_a)
    out = union(out, below_b, ~fa & fb)
    out = union(out, above_a, fa & ~fb)
    return union(out, ctx.exact(np.ones(xa.shape)), ~fa & ~fb)
