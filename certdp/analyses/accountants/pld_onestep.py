"""One-step discretisations of a Gaussian-mixture pair on the grid h·Z
(for :mod:`certdp.analyses.accountants.pld`; masses fixed-point integers, units 2^-bits).

* **upper** — connect-the-dots (Doroshenko et al. 2022): the loss y of each
  output with y ∈ [ω_i, ω_{i+1}] is split between the grid points
  ω_i, ω_{i+1} with weights (a, 1−a) chosen so that the Q-mass is preserved
  (a = (e^{−y} − e^{−ω_{i+1}})/(e^{−ω_i} − e^{−ω_{i+1}})).  The true pair
  is a post-processing (merge) of the split pair, so the split pair
  dominates; its P-masses per interval I are
  A = (Q(I) − e^{−ω_{i+1}}P(I))/(e^{−ω_i} − e^{−ω_{i+1}}) and P(I) − A.
  Losses below the grid go UP to the lowest grid point, above it to +∞.
  Masses are rounded UP.  Where little mass lies a cell may span several
  grid steps (its mass split between its two ends by the same rule).  F_ε of the
  result is a certified upper bound on δ(ε) of the step.
* **lower** — a post-processing of the true pair (merge the outputs of an
  x-interval J into one symbol: loss ℓ_J = log(P(J)/Q(J))), so by the
  data-processing inequality its δ is smaller.  Interval ends
  are chosen (float search) so that ℓ_J lies just above a grid point;
  ℓ_J is then certified >= the grid point it is placed on (rounded down),
  masses are rounded DOWN, and tails are dropped or moved down: a certified lower bound.

Many cells at once run on float vectors with a proved error model
(:mod:`certdp.analyses.accountants.mixture_vec`); the cells the floats cannot decide
run in ``arb``.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from flint import arb, fmpz_poly

from certdp.analyses.accountants.mixture_vec import Fallback, coarse_indices_vec, lower_atoms_vec, upper_one_step_vec
from certdp.analyses.accountants.pld_measure import DiscretePLD, MixturePair, SubsampledGaussian, _mass_f
from certdp.errors import BudgetExceeded, PrecisionError, check_budget
from certdp.numerics.ball import lower_bound, to_ball, upper_bound, working_precision
from certdp.numerics.normal import Phi_ball, Phi_upper_ball

#: Working precision (bits) of the one-step ball computations (at least bits + 24).
ONE_STEP_PREC = 64


# ---------------------------------------------------------------------------
# one-step discretisations
# ---------------------------------------------------------------------------


def _grid_range(pair: MixturePair, h: Fraction, z: float) -> tuple[int, int]:
    lo_x, hi_x = pair.x_quantiles_f(z)
    a, b = sorted((pair.loss_f(lo_x), pair.loss_f(hi_x)))
    lr = pair.loss_range_f()
    a = max(a, lr[0])
    b = min(b, lr[1])
    hf = float(h)
    return math.floor(a / hf) - 1, math.ceil(b / hf) + 1


def _endpoint(pair: MixturePair, w: arb) -> arb | str:
    """x with L(x) = w, or "-inf"/"+inf" when w lies below/above the loss range."""
    x = pair.x_of_loss_ball(w)
    if x is not None:
        return x
    return "-inf" if pair.sign > 0 else "+inf"



class _Cdf:
    """Per-boundary Φ values of a mixture pair, each computed once, on the side
    (CDF or upper tail) that keeps relative accuracy."""

    def __init__(self, pair: MixturePair) -> None:
        self.pair = pair
        self.s = to_ball(pair.sigma)
        self.cache: dict = {}

    def side(self, x: arb, c: int) -> tuple[int, arb]:
        key = (id(x), c)
        v = self.cache.get(key)
        if v is None:
            z = (x - c) / self.s
            v = (1, Phi_upper_ball(z)) if z > 0 else (-1, Phi_ball(z))
            self.cache[key] = v
            self.cache[(key, "ref")] = x  # keep x alive so id() stays unique
        return v

    def comp_mass(self, a: arb | str, b: arb | str, c: int) -> arb:
        """N(c, σ²) mass of (a, b)."""
        if a == "+inf" or b == "-inf":
            return arb(0)
        if a == "-inf":
            if b == "+inf":
                return arb(1)
            sb, vb = self.side(b, c)
            return vb if sb < 0 else 1 - vb
        if b == "+inf":
            sa, va = self.side(a, c)
            return va if sa > 0 else 1 - va
        sa, va = self.side(a, c)
        sb, vb = self.side(b, c)
        if sa > 0 and sb > 0:
            return va - vb
        if sa < 0 and sb < 0:
            return vb - va
        if sa < 0 and sb > 0:
            return 1 - va - vb
        return _direct(self.s, a, b, c)

    def mass(self, comps, a, b) -> arb:
        tot = arb(0)
        for wgt, c in comps:
            if wgt != 0:
                w = self.cache.get(("w", wgt))
                if w is None:
                    w = self.cache[("w", wgt)] = to_ball(wgt)
                tot += w * self.comp_mass(a, b, c)
        return tot


def _direct(s: arb, a: arb, b: arb, c: int) -> arb:
    za, zb = (a - c) / s, (b - c) / s
    if za > 0:
        return Phi_upper_ball(za) - Phi_upper_ball(zb)
    if zb < 0:
        return Phi_ball(zb) - Phi_ball(za)
    return 1 - Phi_ball(za) - Phi_upper_ball(zb)


#: Below this many cells the arb one-step constructions run (measured: the float
#: vectors' fixed cost, ~20 ms of numpy calls, equals ~600 arb cells).
VEC_MIN_CELLS = 1024

#: The same for the lower one-step PLD (:func:`_lower_one_step_vec`), whose arb cells
#: cost more (two masses and a certified placement each).  Measured, whole DP-SGD answers
#: at 1024 against 256 (best of three, same process): σ 9.4, q 0.32768, T 100 (944
#: cells) 0.104 → 0.078 s, with a width request 0.213 → 0.129 s; σ 2, q 0.001, T 100
#: 0.051 → 0.043 s; T 10⁴–10⁵ cells within ±4 %; ε the same to 10 digits.
LOWER_VEC_MIN_CELLS = 256

#: The largest one-step grid (points) an accountant builds: a documented
#: resource cap (beyond it: BudgetExceeded, "coarsen the grid").
MAX_GRID_POINTS = 1 << 24


def _check_grid(n: int, h: Fraction) -> None:
    if n > MAX_GRID_POINTS:
        raise BudgetExceeded(f"the PLD grid needs {n} points at h = {h}, more than the cap of {MAX_GRID_POINTS} "
                             "(a very small noise or a very fine grid); use a coarser --grid")


def upper_one_step(pair: MixturePair, h: Fraction, bits: int, z: float = 12.0) -> DiscretePLD:
    """Connect-the-dots upper PLD of one step, masses rounded up (see module doc)."""
    i_lo, i_hi = _grid_range(pair, h, z)
    n = i_hi - i_lo + 1
    _check_grid(n, h)
    coeffs = [0] * n
    with working_precision(max(ONE_STEP_PREC, bits + 24)):
        cdf = _Cdf(pair)
        hb = to_ball(h)
        scale = arb(2) ** bits
        xs = []
        for i in range(i_lo, i_hi + 1):
            if not (i - i_lo) % 512:
                check_budget("the PLD grid of one step", i - i_lo, n)
            xs.append(_endpoint(pair, i * hb))
        masses = [arb(0)] * n
        # losses <= omega_lo: their P-mass goes UP to omega_lo
        masses[0] = cdf.mass(pair.p_comps, "-inf", xs[0])
        for j in range(n - 1):
            if not j % 512:
                check_budget("the upper PLD of one step", j, n - 1)
            a, b = xs[j], xs[j + 1]
            if a == "+inf" or b == "-inf":
                continue
            PI = cdf.mass(pair.p_comps, a, b)
            QI = cdf.mass(pair.q_comps, a, b)
            em_j, em_next = (-((i_lo + j) * hb)).exp(), (-((i_lo + j + 1) * hb)).exp()
            A = (QI - em_next * PI) / (em_j - em_next)
            masses[j] += A
            masses[j + 1] += PI - A
        # losses > omega_hi: to +infinity
        inf_mass = cdf.mass(pair.p_comps, xs[-1], "+inf")
        for j in range(n):
            u = upper_bound(masses[j] * scale)
            coeffs[j] = max(int(u.ceil().unique_fmpz()), 0)
        ui = upper_bound(inf_mass * scale)
        inf = max(int(ui.ceil().unique_fmpz()), 0)
    return DiscretePLD(fmpz_poly(coeffs), i_lo, h, bits, inf, "upper")


def _side_table(xs: list, centres: tuple[int, ...], s: arb) -> list:
    """Per boundary x (a ball, or "-inf"/"+inf"): one (side, value) per centre c —
    side +1: value = N(c, σ²) mass above x; side −1: mass below x; the side is
    the one that keeps relative accuracy (as :meth:`_Cdf.side`)."""
    out = []
    for x in xs:
        if isinstance(x, str):
            out.append(None)
            continue
        row = []
        for c in centres:
            zz = (x - c) / s
            row.append((1, Phi_upper_ball(zz)) if zz > 0 else (-1, Phi_ball(zz)))
        out.append(tuple(row))
    return out


def _comp_mass_sides(a, ra, b, rb, i: int, s: arb, c: int) -> arb:
    """N(c, σ²) mass of (a, b) from the side tables ra, rb (rows of :func:`_side_table`)
    of the ends; the same case split as :meth:`_Cdf.comp_mass`."""
    if a == "+inf" or b == "-inf":
        return arb(0)
    if a == "-inf":
        if b == "+inf":
            return arb(1)
        sb, vb = rb[i]
        return vb if sb < 0 else 1 - vb
    if b == "+inf":
        sa, va = ra[i]
        return va if sa > 0 else 1 - va
    sa, va = ra[i]
    sb, vb = rb[i]
    if sa > 0 and sb > 0:
        return va - vb
    if sa < 0 and sb < 0:
        return vb - va
    if sa < 0 and sb > 0:
        return 1 - va - vb
    return _direct(s, a, b, c)


def upper_one_steps(sg: SubsampledGaussian, h: Fraction, bits: int, z: float = 12.0,
                    coarsen: float = 0.0, vectorised: bool = True) -> dict:
    """:func:`upper_one_step` of both relations ("remove", "add") in one pass.

    The add pair is the remove pair mirrored (x → −x): L_add(x) = −L_rem(−x), so the
    add pair's boundary for the loss w is −x_rem(−w), and the N(0, σ²) / N(−1, σ²)
    masses of an add interval (x_add(w_j), x_add(w_{j+1})) are the N(0, σ²) / N(1, σ²)
    masses of the remove interval (x_rem(−w_{j+1}), x_rem(−w_j)) (the normal law is
    symmetric).  So the boundaries and the Gaussian masses between them are computed
    once, on the remove frame, and each relation combines them with its own
    mixture weights: remove P = (1−q)m₀ + q m₁, Q = m₀; add P = m₀, Q = (1−q)m₀ + q m₁.
    The splitting and the upward rounding are those of :func:`upper_one_step`.

    ``vectorised`` (default): the same construction on certified float vectors, all
    cells at once (:mod:`certdp.analyses.accountants.mixture_vec`: float cell ends
    certified below their grid points); where the floats cannot certify it, this
    ``arb`` construction runs instead.

    ``coarsen`` = θ > 0 skips boundaries where little mass lies (:func:`_coarse_indices`):
    a cell then spans several grid steps [w_a, w_b] and its mass is split between its
    two ends by the same rule (P-mass A at w_a, P − A at w_b, with e^{−w_a}A +
    e^{−w_b}(P − A) = Q) — the connect-the-dots construction on a subset of the grid
    points, still a dominating pair (Doroshenko et al. 2022, "Connect the dots", Thm 3.1:
    any finite set of loss values), only less tight where the cells are wide."""
    rem, add = sg.pair("remove"), sg.pair("add")
    r_lo, r_hi = _grid_range(rem, h, z)
    a_lo, a_hi = _grid_range(add, h, z)
    _check_grid(r_hi - r_lo + 1, h)
    _check_grid(a_hi - a_lo + 1, h)
    lo, hi = min(r_lo, -a_hi), max(r_hi, -a_lo)  # the remove-frame indices both need
    must = {lo, hi, r_lo, r_hi, -a_hi, -a_lo}
    vectorised = vectorised and hi - lo + 1 >= VEC_MIN_CELLS
    if vectorised:
        idx = coarse_indices_vec(rem, h, lo, hi, coarsen, must)
    else:
        idx = _coarse_indices(sg, h, lo, hi, coarsen, must) if coarsen > 0 else list(range(lo, hi + 1))
    if vectorised:
        try:
            out = {}
            for rel, i_lo, i_hi in (("remove", r_lo, r_hi), ("add", a_lo, a_hi)):
                ind = ([i for i in idx if i_lo <= i <= i_hi] if rel == "remove"
                       else sorted(-i for i in idx if i_lo <= -i <= i_hi))
                coeffs, offset, inf = upper_one_step_vec(sg.pair(rel), h, bits, ind)
                out[rel] = DiscretePLD(fmpz_poly(coeffs), offset, h, bits, inf, "upper")
            return out
        except Fallback:
            pass
    pos = {i: k for k, i in enumerate(idx)}
    n_all = len(idx)
    out: dict = {}
    with working_precision(max(ONE_STEP_PREC, bits + 24)):
        s = to_ball(sg.sigma)
        hb = to_ball(h)
        scale = arb(2) ** bits
        xs = []
        for k, i in enumerate(idx):
            if not k % 512:
                check_budget("the PLD grid of one step", k, n_all)
            xs.append(_endpoint(rem, i * hb))
        sides = _side_table(xs, (0, 1), s)
        # Gaussian masses (N(0, σ²), N(1, σ²)) of the remove-frame pieces between
        # consecutive boundaries: gm[k] for (xs[k], xs[k+1])
        gm = []
        for k in range(n_all - 1):
            if not k % 512:
                check_budget("the upper PLD of one step", k, 3 * n_all)
            a, b, ra, rb = xs[k], xs[k + 1], sides[k], sides[k + 1]
            if a == "+inf" or b == "-inf":
                gm.append(None)
                continue
            gm.append((_comp_mass_sides(a, ra, b, rb, 0, s, 0), _comp_mass_sides(a, ra, b, rb, 1, s, 1)))
        w_rest, w_q = to_ball(1 - sg.rate), to_ball(sg.rate)
        zero = arb(0)

        def tail(i: int, below: bool):
            """(m₀, m₁) of the remove-frame piece below (or above) boundary i."""
            k = pos[i]
            x, row = xs[k], sides[k]
            a, ra, b, rb = ("-inf", None, x, row) if below else (x, row, "+inf", None)
            return (_comp_mass_sides(a, ra, b, rb, 0, s, 0), _comp_mass_sides(a, ra, b, rb, 1, s, 1))

        for rel, i_lo, i_hi in (("remove", r_lo, r_hi), ("add", a_lo, a_hi)):
            n = i_hi - i_lo + 1
            mir = rel == "add"

            def pq(g):
                """(P, Q) of a piece from its Gaussian masses (None: an empty piece)."""
                if g is None:
                    return None
                m0, m1 = g
                mix = zero + w_rest * m0 + w_q * m1
                return (m0, mix) if mir else (mix, m0)

            # the relation's pieces: below its first boundary, between consecutive
            # boundaries (remove frame: pieces pos[i_lo] .. pos[i_hi] - 1; add: the
            # mirrored pieces pos[-i_hi] .. pos[-i_lo] - 1, read backwards), above its last
            first = pq(tail(-i_lo, False) if mir else tail(i_lo, True))
            last = pq(tail(-i_hi, True) if mir else tail(i_hi, False))
            masses = [zero] * n
            masses[0] = first[0]
            ks = range(pos[-i_lo] - 1, pos[-i_hi] - 1, -1) if mir else range(pos[i_lo], pos[i_hi])
            for c, k in enumerate(ks):
                if not c % 512:
                    check_budget("the upper PLD of one step", n_all + c + (n_all if mir else 0), 3 * n_all)
                # the piece's grid indices (relation frame) j < j2
                j, j2 = (-idx[k + 1], -idx[k]) if mir else (idx[k], idx[k + 1])
                g = gm[k]
                if g is None:
                    continue
                PI, QI = pq(g)
                em_j, em_j2 = (-(j * hb)).exp(), (-(j2 * hb)).exp()
                A = (QI - em_j2 * PI) / (em_j - em_j2)
                masses[j - i_lo] += A
                masses[j2 - i_lo] += PI - A
            inf_mass = last[0]
            coeffs = [0] * n
            for j in range(n):
                u = upper_bound(masses[j] * scale)
                coeffs[j] = max(int(u.ceil().unique_fmpz()), 0)
            ui = upper_bound(inf_mass * scale)
            inf = max(int(ui.ceil().unique_fmpz()), 0)
            out[rel] = DiscretePLD(fmpz_poly(coeffs), i_lo, h, bits, inf, "upper")
    return out


def _coarse_indices(sg: SubsampledGaussian, h: Fraction, lo: int, hi: int, theta: float,
                    must: set[int]) -> list[int]:
    """Float guide (not part of the proof): remove-frame boundary indices
    lo = i_0 < i_1 < ... = hi, each step K = a power of 2 grid points, as long as the
    float mass m₀ + q·m₁ of the cell (x(i h), x((i+K) h)) times its loss width K·h
    is at most θ (the tails, where a wide cell costs nothing); ``must`` are kept."""
    rem = sg.pair("remove")
    hf, s, q = float(h), float(sg.sigma), float(sg.rate)
    comps = ((1.0, 0), (q, 1))
    xf: dict[int, float] = {}

    def x_of(i: int) -> float:
        v = xf.get(i)
        if v is None:
            v = xf[i] = rem.x_of_loss_f(i * hf)
        return v

    def cost(a: int, b: int) -> float:
        xa, xb = x_of(a), x_of(b)
        if not xb > xa:
            return 0.0  # an empty piece (both ends beyond the same end of the loss range)
        return _mass_f(comps, s, xa, xb) * (b - a) * hf

    stops = sorted(m for m in must if lo < m <= hi)
    out, i, K = [lo], lo, 1
    for stop in stops:
        while i < stop:
            if not len(out) % 512:
                check_budget("the one-step PLD's coarse cells", i - lo, hi - lo)
            K = max(1, min(K, stop - i))
            while K > 1 and cost(i, i + K) > theta:
                K //= 2
            while i + 2 * K <= stop and cost(i, i + 2 * K) <= theta:
                K *= 2
            i += K
            out.append(i)
    return out


class _CellNewton:
    """Float search (not part of the proof): Newton's method for the end nb of the
    x-cell (b, nb) whose merged loss log(P(b, nb)/Q(b, nb)) is ``target``, to within
    η/4.  The very float operations of :func:`_mass_f` and :func:`_dens_f` (the same
    cuts to the last bit), with each Gaussian centre's terms computed once per
    iteration for P and Q together, and those at the cell's fixed start b once per
    cell (the search runs ~3 iterations over up to 10^5 cells)."""

    def __init__(self, p_f: tuple, q_f: tuple, sigma: float) -> None:
        centres = sorted({c for _, c in p_f} | {c for _, c in q_f})
        self.centres = centres
        self.p = [(float(w), centres.index(c)) for w, c in p_f]
        self.q = [(float(w), centres.index(c)) for w, c in q_f]
        self.s = sigma
        self.den = sigma * math.sqrt(2 * math.pi)

    def __call__(self, b: float, nb: float, target: float, eta: float) -> float | None:
        r2 = math.sqrt(2.0)
        s, den, erfc, exp = self.s, self.den, math.erfc, math.exp
        start = []
        for c in self.centres:
            za = (b - c) / s
            start.append((c, za, erfc(za / r2), erfc(-za / r2)))
        for _ in range(40):
            vs, es = [], []
            for c, za, e_pos, e_neg in start:  # as _mass_f and _dens_f, per centre
                zb = (nb - c) / s
                if za > 0:
                    vs.append(0.5 * (e_pos - erfc(zb / r2)))
                elif zb < 0:
                    vs.append(0.5 * (erfc(-zb / r2) - e_neg))
                else:
                    vs.append(1 - 0.5 * e_neg - 0.5 * erfc(zb / r2))
                es.append(exp(-zb * zb / 2))
            Pm = Qm = 0.0
            for w, i in self.p:
                Pm += w * vs[i]
            for w, i in self.q:
                Qm += w * vs[i]
            if not (Pm > 0 and Qm > 0):
                return None
            g = math.log(Pm) - math.log(Qm) - target
            if abs(g) < eta / 4:
                return nb
            dP = dQ = 0.0
            for w, i in self.p:
                dP += w * es[i] / den
            for w, i in self.q:
                dQ += w * es[i] / den
            dg = dP / Pm - dQ / Qm
            if not dg > 0:
                return None
            nb2 = nb - g / dg
            if nb2 <= b:
                nb2 = (b + nb) / 2
            if nb2 == nb:
                return None
            nb = nb2
        return None


def lower_boundaries(pair: MixturePair, h: Fraction, z: float = 12.0, coarsen: float = 0.0,
                     stop_loss: float | None = None) -> list[float]:
    """Float search (not part of the proof): interval ends b_0 < b_1 < ... such
    that the merged loss of [b_k, b_{k+1}) sits just above a grid point.  Each cell
    ends at the next grid point, or (``coarsen`` = θ > 0) K grid points on (K a power
    of 2) where the float P-mass of the cell times K·h is <= θ: any partition of the
    output is a post-processing, so a wider cell is as sound, only less tight.
    ``stop_loss``: only the first cuts, up to the first whose pointwise loss is at
    least ``stop_loss`` (a guide to the bottom cells,
    :func:`certdp.analyses.accountants.alignment.bottom_deficit`)."""
    s = float(pair.sigma)
    hf = float(h)
    lo_x, hi_x = pair.x_quantiles_f(z)
    lr = pair.loss_range_f()
    p_f = tuple((float(w), c) for w, c in pair.p_comps)  # the same floats, converted once
    q_f = tuple((float(w), c) for w, c in pair.q_comps)
    eta = LOWER_ETA
    newton = _CellNewton(p_f, q_f, s)
    b, k, end_x, b_top = _lower_ends(pair, h, z)
    bounds = [b]
    K = 1  # grid steps per cell (a power of 2; 1 without coarsening)
    while b < end_x:
        if not len(bounds) % 512:
            check_budget("the lower PLD's interval search", len(bounds), None)
            if len(bounds) > MAX_GRID_POINTS:
                _check_grid(len(bounds), h)
        lb = pair.loss_f(b)
        if stop_loss is not None and lb >= stop_loss:
            return bounds
        while lb >= k * hf:
            k += 1
        if coarsen > 0:
            K = _lower_cell_steps(pair, p_f, s, hf, b, k, K, coarsen, lr[1])
        k += K - 1  # the cell's merged loss sits just above (k + K - 1) h
        target = k * hf + eta
        wr = 2 * k * hf - lb
        nb = hi_x + 1.0 if wr >= lr[1] else pair.x_of_loss_f(wr)
        best = newton(b, nb, target, eta)
        if best is not None:
            nb = best
        else:
            # no float solution: a plain interval up to the next loss midpoint
            w_next = k * hf + hf / 2
            if w_next >= lr[1]:
                break
            nb = pair.x_of_loss_f(w_next)
        if not nb > b or not math.isfinite(nb):
            break
        if nb >= end_x:
            break
        bounds.append(nb)
        b = nb
        k += 1
    if b_top is not None and b_top > bounds[-1]:
        bounds.append(b_top)
    return bounds


#: The float searches aim each lower cell's merged loss at a grid point + LOWER_ETA.
LOWER_ETA = 1e-11


def _lower_ends(pair: MixturePair, h: Fraction, z: float) -> tuple[float, int, float, float | None]:
    """Float guide: (b, k, end_x, b_top) — the first cut b of the lower cells and the
    grid index k its first cell aims at, the x where the cells end, and the top end
    cell's cut (None without one).

    A finite end of the loss range (log(1-q) below for "remove", -log(1-q) above for
    "add") holds the bulk of the mass when q is small: the end cells are chosen so
    that their merged loss sits just above a grid point too (else the bulk is rounded
    down by up to h in every step: a drift of T*h)."""
    s = float(pair.sigma)
    hf = float(h)
    lo_x, hi_x = pair.x_quantiles_f(z)
    lr = pair.loss_range_f()
    b_bot = _end_cell(pair, s, hf, LOWER_ETA, lo_x, hi_x, "bottom") if math.isfinite(lr[0]) else None
    b_top = _end_cell(pair, s, hf, LOWER_ETA, lo_x, hi_x, "top") if math.isfinite(lr[1]) else None
    end_x = hi_x if b_top is None else b_top
    if b_bot is not None and b_bot < end_x:
        b = b_bot
        k = math.floor(pair.loss_f(b) / hf) + 1
    else:
        k = math.ceil(pair.loss_f(lo_x) / hf)
        w0 = k * hf - hf / 2
        while w0 <= lr[0]:
            k += 1
            w0 = k * hf - hf / 2
        b = pair.x_of_loss_f(w0) if w0 < lr[1] else lo_x
        if not math.isfinite(b):  # the whole quantile range sits at one end of the loss range
            b = lo_x
    return b, k, end_x, b_top


def _lower_cell_steps(pair: "MixturePair", p_f: tuple, s: float, hf: float, b: float, k: int, K: int,
                      theta: float, top: float) -> int:
    """Float guide: the grid steps K (a power of 2) of the lower cell starting at b,
    next grid point kh — the previous K halved while the cell's P-mass times K·h
    exceeds θ, doubled while it stays below."""
    def cost(kk: int) -> float:
        w = (k + kk - 1) * hf + hf / 2
        x = pair.x_of_loss_f(w) if w < top else math.inf
        return _mass_f(p_f, s, b, x) * kk * hf if x > b else 0.0

    while K > 1 and cost(K) > theta:
        K //= 2
    while K < 1 << 20 and cost(2 * K) <= theta:
        K *= 2
    return K


def _merged_loss_f(pair: "MixturePair", s: float, a: float, b: float) -> float:
    """Float log(P(J)/Q(J)) of the x-interval J = (a, b) (search only; nan when empty)."""
    pm, qm = _mass_f(pair.p_comps, s, a, b), _mass_f(pair.q_comps, s, a, b)
    return math.log(pm) - math.log(qm) if pm > 0 and qm > 0 else math.nan


def _end_cell(pair: "MixturePair", s: float, hf: float, eta: float, lo_x: float, hi_x: float,
              end: str) -> float | None:
    """Float search: the x-end b of the cell (-∞, b) ("bottom") or (b, +∞) ("top")
    whose merged loss is kh + η for the grid point kh nearest inside the finite end
    of the loss range; None when no such cell exists in [lo_x, hi_x]."""
    lr = pair.loss_range_f()
    if end == "bottom":
        target = (math.floor(lr[0] / hf) + 1) * hf + eta

        def g(x: float) -> float:
            return _merged_loss_f(pair, s, -math.inf, x) - target
    else:
        target = (math.ceil(lr[1] / hf) - 1) * hf + eta

        def g(x: float) -> float:
            return _merged_loss_f(pair, s, x, math.inf) - target
    a, b = lo_x, hi_x
    ga, gb = g(a), g(b)
    if not (ga < 0 < gb):  # both merged losses increase with the cut: a sign change brackets it
        return None
    for _ in range(200):
        m = (a + b) / 2
        gm = g(m)
        if not math.isfinite(gm) or m in (a, b):
            break
        if gm < 0:
            a = m
        else:
            b = m
        if 0 <= gm < eta / 4:
            break
    return b


def lower_one_step(pair: MixturePair, h: Fraction, bits: int, z: float = 12.0,
                   coarsen: float = 0.0, vectorised: bool = True) -> DiscretePLD:
    """Merged-output (post-processing) lower PLD of one step, masses rounded down
    (``coarsen``: wider cells where little mass lies, :func:`lower_boundaries`).

    ``vectorised`` (default): the same cuts, the atoms certified on float vectors
    (:func:`certdp.analyses.accountants.mixture_vec.lower_atoms_vec`); the cells the
    floats cannot certify are certified here in ``arb``; if the float path cannot
    run at all, the ``arb`` construction below."""
    if vectorised:
        try:
            return _lower_one_step_vec(pair, h, bits, z, coarsen)
        except Fallback:
            pass
    bounds = lower_boundaries(pair, h, z, coarsen)
    atoms: dict[int, int] = {}
    with working_precision(max(ONE_STEP_PREC, bits + 24)):
        bb: list = ["-inf"] + [arb(x) for x in bounds] + ["+inf"]
        cells = _LowerCells(pair, h, bits, bb)
        for j in range(len(bb) - 1):
            if not j % 512:
                check_budget("the lower PLD of one step", j, len(bb) - 1)
            cells.add(j, atoms)
    return _lower_pld(atoms, h, bits)


def _lower_pld(atoms: dict[int, int], h: Fraction, bits: int) -> DiscretePLD:
    if not atoms:
        raise PrecisionError("lower PLD is empty")
    k_lo, k_hi = min(atoms), max(atoms)
    coeffs = [0] * (k_hi - k_lo + 1)
    for kk, c in atoms.items():
        coeffs[kk - k_lo] += c
    return DiscretePLD(fmpz_poly(coeffs), k_lo, h, bits, 0, "lower")


class _LowerCells:
    """The arb certification of merged cells (bb[j], bb[j+1]) (ends: balls, or
    "-inf"/"+inf"): the atom ⌊P 2^bits⌋ at the largest grid point kh with
    P >= e^{kh} Q certified (P, Q the cell's masses; cells with P or Q not
    certainly positive are dropped).  Runs inside the caller's working precision."""

    def __init__(self, pair: MixturePair, h: Fraction, bits: int, bb: list) -> None:
        self.h, self.hf, self.hb = h, float(h), to_ball(h)
        self.scale = arb(2) ** bits
        self.s = to_ball(pair.sigma)
        self.centres = tuple(sorted({c for w, c in pair.p_comps + pair.q_comps if w != 0}))
        col = {c: i for i, c in enumerate(self.centres)}
        self.p_w = [(to_ball(w), col[c]) for w, c in pair.p_comps if w != 0]
        self.q_w = [(to_ball(w), col[c]) for w, c in pair.q_comps if w != 0]
        self.bb = bb
        self.rows: dict[int, object] = {}  # Φ at each cut, once per centre, when first needed

    def _row(self, j: int) -> object:
        r = self.rows.get(j)
        if r is None:
            r = self.rows[j] = _side_table([self.bb[j]], self.centres, self.s)[0]
        return r

    def add(self, j: int, atoms: dict[int, int]) -> None:
        a, b, ra, rb = self.bb[j], self.bb[j + 1], self._row(j), self._row(j + 1)
        m = [_comp_mass_sides(a, ra, b, rb, i, self.s, c) for i, c in enumerate(self.centres)]
        P = arb(0)
        for w, i in self.p_w:
            P += w * m[i]
        Q = arb(0)
        for w, i in self.q_w:
            Q += w * m[i]
        if not P > 0 or not Q > 0:  # (the lower ends of P and Q certainly positive)
            return
        ell = (P / Q).log()
        kk = math.floor(float(ell.mid()) / self.hf)
        # certify  P >= e^{k h} Q  (ℓ >= k h)
        for _ in range(64):
            if (P - (kk * self.hb).exp() * Q) >= 0:
                break
            kk -= 1
        else:
            return
        c = int(lower_bound(P * self.scale).floor().unique_fmpz())
        if c > 0:
            atoms[kk] = atoms.get(kk, 0) + c


#: The vectorised lower PLD must certify at least this much of its cells' float
#: mass, else the arb construction runs (a float path that drops cells is sound but
#: useless).
LOWER_VEC_MIN_MASS = 1 - 1e-9


def _lower_one_step_vec(pair: MixturePair, h: Fraction, bits: int, z: float, coarsen: float) -> DiscretePLD:
    """:func:`lower_one_step` with the cuts of :func:`lower_boundaries` (the float
    search) and the atoms certified on float vectors
    (:func:`certdp.analyses.accountants.mixture_vec.lower_atoms_vec`); the cells the
    floats cannot certify are certified in ``arb``.  Raises Fallback."""
    cuts = np.asarray(lower_boundaries(pair, h, z, coarsen), dtype=np.float64)
    if len(cuts) == 0 or not np.all(np.isfinite(cuts)):
        raise Fallback("no cuts")
    if len(cuts) < LOWER_VEC_MIN_CELLS:
        raise Fallback("few cells: arb is as fast")
    atoms, failed = lower_atoms_vec(pair, h, bits, cuts)
    if failed:
        with working_precision(max(ONE_STEP_PREC, bits + 24)):
            bb: list = ["-inf"] + [arb(float(x)) for x in cuts] + ["+inf"]
            cells = _LowerCells(pair, h, bits, bb)
            for j in failed:
                cells.add(j, atoms)
    if sum(atoms.values()) < LOWER_VEC_MIN_MASS * 2**bits:
        raise Fallback("too little mass certified")
    return _lower_pld(atoms, h, bits)
