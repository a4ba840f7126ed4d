"""The upper one-step PLD of a Gaussian-mixture pair on certified float vectors.

The same connect-the-dots construction as :func:`certdp.analyses.accountants.pld_onestep.upper_one_step`
(Doroshenko et al. 2022, "Connect the dots", Thm 3.1), computed for all cells at
once in float ball arithmetic (:mod:`certdp.numerics.fvec`, :mod:`certdp.numerics.fnormal`)
instead of one ``arb`` call per cell.  What changes, and why it stays sound:

* **Cell ends are floats.**  For each grid point ω_i = i·h the float guide
  gives x with L(x) ≈ ω_i; the end used is a float x_i a little below it, with
  L(x_i) <= ω_i *certified* (1 − q + q e^{t(x_i)} <= e^{ω_i} for remove,
  >= e^{−ω_i} for add, in ball arithmetic).  A grid point outside the loss
  range is certified outside (e^{ω_i} <= 1 − q, resp. e^{−ω_i} <= 1 − q) and
  gets the end ∓∞.  A grid point certified neither way is dropped: its two
  cells merge (connect-the-dots holds for any set of support points).
* **Support points.**  The cell (x_i, x_j) has losses in [L(x_i), L(x_j)]
  (L increases), so connect-the-dots splits its P-mass between the support
  points L(x_i) and L(x_j) (an end at ∓∞ uses the grid point itself, which
  lies beyond the loss range): A = (Q − e^{−L(x_j)} P)/(e^{−L(x_i)} − e^{−L(x_j)})
  at L(x_i), P − A at L(x_j).  The split pair dominates the true pair.
* **Rounding up.**  Each support point L(x_i) <= ω_i moves up to ω_i; a lower
  end of A (clipped to [0, P]) stays at the lower point and the rest of an upper
  end of P goes to the upper one.  Moving mass up and adding mass only increase
  F_ε(ν) = ∫(1 − e^{ε−y})⁺dν for every ε, and both survive convolution.
  The masses are then rounded up to multiples of 2^−bits.

Cancellation is avoided where it would cost accuracy: a narrow cell's
Gaussian mass is φ(z_a)·J(z_a, Δ) (:func:`certdp.numerics.fnormal.interval_mass`),
and e^{−L(x_i)} − e^{−L(x_j)} is q e^{t}·expm1(Δt)/(…) with Δt from the float
difference x_j − x_i.  Anything the floats cannot certify raises
:class:`Fallback`; the caller then runs the ``arb`` construction.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Protocol, Sequence

import numpy as np

from certdp.errors import check_budget
from certdp.numerics.fnormal import interval_mass
from certdp.numerics.fvec import TINY, U4, FVec, Guide, fexp, fexpm1, union



class MixturePair(Protocol):
    """What this module reads of :class:`certdp.analyses.accountants.pld_measure.MixturePair`
    (not imported: pld imports this module)."""

    sigma: Fraction
    q: Fraction
    p_comps: tuple[tuple[Fraction, int], ...]
    q_comps: tuple[tuple[Fraction, int], ...]
    sign: int

    @property
    def _floats(self) -> tuple[float, float]: ...

#: Largest share of grid points whose float end may fail certification (they are
#: dropped, which is sound) before the float path gives up.
MAX_DROPPED = 0.02


class Fallback(Exception):
    """The float path could not certify this construction (use ``arb``)."""


def _x_guide(pair: "MixturePair", w: np.ndarray) -> np.ndarray:
    """Float guide (not part of the proof): x with L(x) = w, ∓inf beyond the loss range."""
    s2, q = pair._floats
    u = w if pair.sign > 0 else -w
    with np.errstate(all="ignore"):
        if pair.q == 1:
            t = u
        else:
            big = u > 700
            arg = (np.expm1(np.where(big, 0.0, u)) + q) / q
            t_small = np.where(arg > 0, np.log(np.where(arg > 0, arg, 1.0)), -np.inf)
            t_big = u - np.log(q) + np.log1p((q - 1) * np.exp(-np.where(big, u, 0.0)))
            t = np.where(big, t_big, t_small)
        x = t * s2 + 0.5
    return x if pair.sign > 0 else -x


def _loss_slope_guide(pair: "MixturePair", x: np.ndarray) -> np.ndarray:
    """Float guide: dL/dx at x (q e^t/((1 − q + q e^t) σ²), t = (2sx − 1)/(2σ²))."""
    s2, q = pair._floats
    with np.errstate(all="ignore"):
        t = (2.0 * pair.sign * x - 1.0) / (2.0 * s2)
        r = q / (q + (1.0 - q) * np.exp(-t))  # q e^t / D without overflow
        return np.where(np.isfinite(x), r / s2, 0.0)


def _grid_losses(idx: np.ndarray, h: Fraction) -> FVec:
    """Balls of ω_i = i·h."""
    hf = float(h)
    w = idx.astype(np.float64) * hf
    err = abs(Fraction(hf) - h)
    if err == 0 and np.all(np.abs(idx) < 2**52):
        # i·hf is exact when hf is a power of 2 times an integer of few bits;
        # otherwise it is rounded once: 2u|w|
        return FVec(w, np.abs(w) * U4 + TINY)
    return FVec(w, (np.abs(idx) * (float(err) * 2 + 2.0**-1070)) + np.abs(w) * U4 + TINY)


#: Grid points per slice of the float construction (bounds the arrays' memory: about
#: 150 arrays of this length at once).
CHUNK = 1 << 17


def upper_one_step_vec(pair: "MixturePair", h: Fraction, bits: int, indices: Sequence[int]) -> tuple[list[int], int, int]:
    """(coefficients, offset, inf units) of the upper one-step PLD of ``pair`` with
    support points at the grid indices ``indices`` (sorted; the first and last are
    the grid's ends, offset = indices[0]).  Raises :class:`Fallback`.

    Long grids go in slices of :data:`CHUNK` points sharing their end points: a slice's
    cells put their masses on its points, the first slice adds the cell below the
    grid, the last the cell above it (to +∞); the slices' units add up (each rounded
    up on its own: at most one unit more per shared point)."""
    idx_all = np.asarray(indices, dtype=np.int64)
    n_grid = int(idx_all[-1] - idx_all[0]) + 1
    # the float guides (numpy's log/exp) once for all points: a shared end point must get
    # the very same float end in both slices (numpy may round a libm function differently
    # in its vector body and its scalar tail; the IEEE operations after it are exact)
    w_mid = _grid_losses(idx_all, h).mid
    xg_all = _x_guide(pair, w_mid)
    with np.errstate(all="ignore"):
        step = _loss_slope_guide(pair, xg_all)
        base = 2.0**-44 * np.maximum(1.0, np.abs(w_mid)) / np.where(step > 0, step, np.inf)
        base_all = np.maximum(np.nan_to_num(base, nan=0.0, posinf=0.0), 2.0**-50 * (np.abs(xg_all) + 1.0))
    coeffs = [0] * n_grid
    inf_units = 0
    starts = list(range(0, max(len(idx_all) - 1, 1), CHUNK))
    for j, a in enumerate(starts):
        check_budget("the upper PLD of one step (float vectors)", a, len(idx_all))
        part = slice(a, a + CHUNK + 1)
        units, inf_u, kept_idx = _upper_slice(pair, h, bits, idx_all[part], xg_all[part], base_all[part],
                                              first=j == 0, last=j == len(starts) - 1)
        for i, u in zip((kept_idx - idx_all[0]).tolist(), units.tolist()):
            coeffs[i] += int(u)
        inf_units += inf_u
    return coeffs, int(idx_all[0]), inf_units


def _upper_slice(pair: "MixturePair", h: Fraction, bits: int, idx: np.ndarray, xg: np.ndarray,
                 base: np.ndarray, first: bool, last: bool) -> tuple[np.ndarray, int, np.ndarray]:
    """Units per kept grid point of one slice of :func:`upper_one_step_vec` (the
    slice's end points must certify), the units at +∞, and the kept indices.  ``xg``:
    the float guide x(ω_i); ``base``: the first step down from it."""
    sign = pair.sign
    inv_2s2 = FVec.of_fraction(1 / (2 * pair.sigma**2))
    inv_s2 = FVec.of_fraction(1 / pair.sigma**2)
    q = FVec.of_fraction(pair.q)
    one_minus_q = FVec.of_fraction(1 - pair.q)
    inv_s = FVec.of_fraction(1 / pair.sigma)
    w = _grid_losses(idx, h)
    with np.errstate(all="ignore"):
        # e^{±ω_i}
        e_w = fexp(w)
        e_mw = fexp(-w)
        fin = np.isfinite(xg)
        # move each finite end a little down (L increases in x), then certify L(x) <= ω;
        # ``base`` moves the loss down by about 2⁻⁴⁴ max(1, |ω|) (dL/dx = q e^t/(D σ²)):
        # a loss shift, not an x shift, is what costs tightness (a cell's split A
        # divides by a difference of support losses)
        x = xg.copy()
        kept = np.zeros(len(idx), dtype=bool)
        et = FVec.exact(np.zeros(len(idx)))
        todo = fin.copy()
        for grow in (1.0, 2.0**4, 2.0**8, 2.0**12, 2.0**16, 2.0**20):
            if not todo.any():
                break
            xs = np.where(todo, xg - grow * base, 0.0)
            t = (FVec.exact(2.0 * sign * xs) - 1.0) * inv_2s2
            ee = fexp(t)
            d = one_minus_q + q * ee
            if sign > 0:  # L = log D <= ω  <=>  D <= e^ω
                good = todo & ee.finite() & e_w.finite() & (d.hi() <= e_w.lo())
            else:  # L = −log D <= ω  <=>  D >= e^{−ω}
                good = todo & ee.finite() & e_mw.finite() & (d.lo() >= e_mw.hi())
            x = np.where(good, xs, x)
            et = union(et, ee, good)
            kept |= good
            todo &= ~good
        # grid points beyond the loss range: certified outside, end ∓inf, support ω itself
        if pair.q == 1:
            outside = np.zeros(len(idx), dtype=bool)
        elif sign > 0:  # below inf L = log(1 − q):  e^ω <= 1 − q
            outside = ~fin & e_w.finite() & (e_w.hi() <= one_minus_q.lo())
        else:  # above sup L = −log(1 − q):  e^{−ω} <= 1 − q
            outside = ~fin & e_mw.finite() & (e_mw.hi() <= one_minus_q.lo())
        x = np.where(outside, -np.inf if sign > 0 else np.inf, x)
        kept |= outside
        if not (kept[0] and kept[-1]) or (~kept).sum() > MAX_DROPPED * len(idx):
            raise Fallback("grid ends not certified")
        idx, x, w_k, et, outside = idx[kept], x[kept], w[kept], et[kept], outside[kept]
        e_mw = e_mw[kept]
        # E = e^{−support}: 1/D (remove) or D (add) at finite ends; e^{−ω} outside
        d = one_minus_q + q * et
        e_sup = union(FVec.exact(1.0) / d if sign > 0 else d, e_mw, outside)
        xa, xb = x[:-1], x[1:]
        P, Q = _cell_masses(pair, xa, xb, inv_s)
        # e^{−L(x_a)} − e^{−L(x_b)} > 0
        both = np.isfinite(xa) & np.isfinite(xb)
        dt = (FVec.exact(np.where(both, xb, 0.0)) - FVec.exact(np.where(both, xa, 0.0))) * inv_s2
        em = fexpm1(dt)
        if sign > 0:  # (D_b − D_a)/(D_a D_b),  D_b − D_a = q e^{t_a} expm1(Δt)
            ea, da, db = et[:-1], d[:-1], d[1:]
            den_f = q * ea * em / (da * db)
        else:  # D_a − D_b = q e^{t_b} expm1(Δt)
            den_f = q * et[1:] * em
        den = union(e_sup[:-1] - e_sup[1:], den_f, both & den_f.finite())
        A = (Q - e_sup[1:] * P) / den
        empty = ~(xa < xb)  # an empty cell has mass exactly 0
        p_hi = np.where(empty, 0.0, np.maximum(P.hi(), 0.0))
        a_lo = np.clip(np.nan_to_num(A.lo(), nan=0.0, neginf=0.0, posinf=0.0), 0.0, p_hi)
        b_up = np.where(empty, 0.0, (p_hi - a_lo) * (1 + U4) + TINY)
        # the first cell (−inf, x_0) and the last (x_n, +inf)
        firsts = _tail_mass(pair, np.array([-np.inf]), x[:1], inv_s) if first else 0.0
        lasts = _tail_mass(pair, x[-1:], np.array([np.inf]), inv_s) if last else 0.0
        at = np.zeros(len(idx))
        at[:-1] += a_lo
        at[1:] = _sum_up(at[1:], b_up)
        at[0] = _sum_up(at[0], firsts)
        units = np.ceil(np.ldexp(at, bits))
        inf_units = float(np.ceil(np.ldexp(lasts, bits)))
        if not (np.all(np.isfinite(units)) and np.isfinite(inf_units) and np.all(np.isfinite(P.mid))):
            raise Fallback("non-finite mass")
    return units, int(inf_units), idx


def _cell_masses(pair: MixturePair, xa: np.ndarray, xb: np.ndarray, inv_s: FVec) -> tuple[FVec, FVec]:
    """(P, Q) of the cells (x_a, x_b): each Gaussian component's mass once, then the
    two mixtures."""
    centres = sorted({c for wt, c in pair.p_comps + pair.q_comps if wt != 0})
    mass = {c: interval_mass(xa, xb, float(c), inv_s) for c in centres}

    def mix(comps) -> FVec:
        tot = FVec.exact(np.zeros(len(xa)))
        for wt, c in comps:
            if wt != 0:
                tot = tot + FVec.of_fraction(wt) * mass[c]
        return tot

    return mix(pair.p_comps), mix(pair.q_comps)


def _sum_up(a: np.ndarray | float, b: np.ndarray | float) -> np.ndarray:
    """An upper bound of a + b (non-negative floats); exactly 0 when both are 0."""
    s = np.asarray(a + b)
    return np.where(s > 0, s * (1 + U4) + TINY, 0.0)


def _tail_mass(pair: "MixturePair", xa: np.ndarray, xb: np.ndarray, inv_s: FVec) -> float:
    """An upper end of P((x_a, x_b)) (one interval, ends may be infinite; 0 when empty)."""
    if not xa[0] < xb[0]:
        return 0.0
    tot = FVec.exact(np.zeros(1))
    for wt, c in pair.p_comps:
        if wt != 0:
            tot = tot + FVec.of_fraction(wt) * interval_mass(xa, xb, float(c), inv_s)
    return float(max(tot.hi()[0], 0.0))


# ---------------------------------------------------------------------------
# the lower one-step PLD: certified atoms of given cells
# ---------------------------------------------------------------------------


def lower_atoms_vec(pair: "MixturePair", h: Fraction, bits: int, cuts: np.ndarray) -> tuple[dict, list[int]]:
    """Certified lower atoms of the cells (−∞, c_0), (c_0, c_1), ..., (c_n, +∞):
    {grid index k: units} with P(J) >= e^{kh} Q(J) certified and ⌊P(J) 2^bits⌋ units
    (P(J) rounded down), and the cells the floats could not certify (the caller
    treats them in ``arb``).  A cell whose P or Q is not certainly positive is dropped
    (a lower PLD may drop mass)."""
    xa_all = np.concatenate([[-np.inf], cuts])
    xb_all = np.concatenate([cuts, [np.inf]])
    atoms: dict[int, int] = {}
    failed: list[int] = []
    for a in range(0, len(xa_all), CHUNK):
        check_budget("the lower PLD of one step (float vectors)", a, len(xa_all))
        f = _lower_slice(pair, h, bits, xa_all[a:a + CHUNK], xb_all[a:a + CHUNK], atoms)
        failed.extend(a + j for j in f)
    return atoms, failed


def _lower_slice(pair: MixturePair, h: Fraction, bits: int, xa: np.ndarray, xb: np.ndarray,
                 atoms: dict[int, int]) -> list[int]:
    """:func:`lower_atoms_vec` for the cells (x_a, x_b): adds to ``atoms``, returns the
    cells (positions in the slice) not certified."""
    hf = float(h)
    inv_s = FVec.of_fraction(1 / pair.sigma)
    with np.errstate(all="ignore"):
        P, Q = _cell_masses(pair, xa, xb, inv_s)
        pos = (P.lo() > 0) & (Q.lo() > 0) & P.finite() & Q.finite()
        ell = np.log(np.where(pos, P.mid, 1.0)) - np.log(np.where(pos, Q.mid, 1.0))
        kk = np.floor(ell / hf).astype(np.int64)
        done = ~pos
        ok = np.zeros(len(xa), dtype=bool)
        for _ in range(3):
            e = fexp(_grid_losses(kk, h))
            cert = ~done & e.finite() & ((P - e * Q).lo() >= 0)
            ok |= cert
            done |= cert
            kk = np.where(done, kk, kk - 1)
        units = np.floor(np.ldexp(np.maximum(P.lo(), 0.0), bits))
    for kv, u in zip(kk[ok].tolist(), units[ok].tolist()):
        if u > 0:
            atoms[kv] = atoms.get(kv, 0) + int(u)
    return np.nonzero(pos & ~ok)[0].tolist()



def coarse_indices_vec(pair: MixturePair, h: Fraction, lo: int, hi: int, theta: float,
                       must: set[int]) -> list[int]:
    """Float guide (not part of the proof): grid indices lo = i_0 < i_1 < ... = hi of
    the cell ends, skipping the ends strictly inside an aligned dyadic block
    [lo + j 2^l, lo + (j+1) 2^l] whose float P-mass times its loss width 2^l h is at
    most θ (the tails, where a wide cell costs nothing) and that holds no index of
    ``must`` strictly inside.  All blocks at once (numpy); any subset of the grid
    points is sound for connect-the-dots."""
    n = hi - lo
    if n <= 1 or theta <= 0:
        return list(range(lo, hi + 1))
    hf = float(h)
    idx = np.arange(lo, hi + 1)
    x = _x_guide(pair, idx * hf)
    inv_s = Guide.of_fraction(1 / pair.sigma)
    with np.errstate(all="ignore"):
        m = np.zeros(n)
        for wt, c in pair.p_comps:
            if wt != 0:
                m += float(wt) * interval_mass(x[:-1], x[1:], float(c), inv_s).mid
    # unknown mass: never merged; a float difference of tails below 0 is rounding noise
    m = np.abs(np.nan_to_num(m, nan=np.inf))
    pos = np.arange(n + 1)  # offsets of the grid points from lo
    inside = np.zeros(n + 1, dtype=bool)
    must_off = np.array(sorted(i - lo for i in must if lo < i < hi), dtype=np.int64)
    level = 1
    mass = m
    while (1 << level) <= n:
        size = 1 << level
        # the aligned blocks' masses, each the sum of its two halves (sums of positive
        # terms keep the tails' relative accuracy; a prefix-sum difference would not)
        mass = mass[0:2 * (len(mass) // 2):2] + mass[1:2 * (len(mass) // 2):2]
        starts = np.arange(len(mass)) * size
        ok = mass * size * hf <= theta
        if len(must_off):  # a block with a must index strictly inside cannot merge
            j = must_off // size
            strict = (must_off % size) != 0
            bad = np.unique(j[strict & (j < len(starts))])
            ok[bad] = False
        blk = pos // size
        in_ok = np.zeros(n + 1, dtype=bool)
        full = blk < len(starts)
        in_ok[full] = ok[blk[full]]
        inside |= in_ok & (pos % size != 0)
        level += 1
    return (idx[~inside]).tolist()
