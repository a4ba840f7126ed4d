"""One-step certified discretisation of any privacy-loss law onto the PLD grid h·Z.

This is the generic half of the PLD engine (:mod:`certdp.analyses.accountants.pld`
composes the results): a mechanism is turned into a **source** — the loss law of a
dominating pair per neighbouring relation (:mod:`certdp.analyses.accountants.loss_laws`)
— and each law into two fixed-point measures on the grid:

* **upper** (connect-the-dots, Doroshenko et al. 2022): the P-mass of the loss
  cell (ω_j, ω_{j+1}] is split between ω_j and ω_{j+1} with the Q-mass kept,
  A = (Q(I) − e^{−ω_{j+1}}P(I))/(e^{−ω_j} − e^{−ω_{j+1}}) to ω_j and P(I) − A to
  ω_{j+1}; an atom at ℓ is split the same way between the nearest grid points
  certainly below and above it (exactly onto ω_j when ℓ = ω_j).  Mass below the
  grid goes up to its first point, mass above it to +∞; masses rounded up.  The
  split pair dominates the true one (it is a post-processing of it), so every
  F_ε of every composition is an upper bound (pld module doc).
* **lower**: outputs are merged (a post-processing of the pair: by the
  data-processing inequality every F_ε falls) — the continuous part into cells,
  each atom off the grid together with the continuous mass of a region beside it
  (:func:`_atom_region`), chosen so that the merged loss log(P/Q) lies just above a
  grid point — and every merged loss moves DOWN to the grid point certainly below
  it; masses rounded down, the part below the grid dropped.  F_ε is increasing in
  the position and the amount of mass and convolution keeps both orders, so every
  F_ε is a lower bound.

Mechanisms known only by an (upper) privacy profile get the symmetric pair of
:func:`profile_law` (Zhu, Dong & Wang 2022 §4.1: a pair dominates for every γ >= 0 when
H_γ(P‖Q) >= δ_M for γ >= 1 in both orders; the chord construction below gives
that); they have no lower discretisation.
"""

from __future__ import annotations

import bisect
import functools
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

from flint import arb

from certdp.analyses.accountants.loss_laws import (
    Atom, AtomLaw, GaussianLaw, LaplaceLaw, LossLaw, Relation, SubsampledLaw, as_ball, rr_k_law, rr_law, rr_p_law,
)
from certdp.errors import BudgetExceeded, InputError, PrecisionError, check_budget
from certdp.numerics.ball import fixed_point_units, lower_bound, to_ball, upper_bound, working_precision
from certdp.verifier.check_law_pld import connect_the_dots, grid_bracket, split_keeping_q

Kind = Literal["upper", "lower"]

#: working precision of the one-step ball computations (as the Gaussian path)
PREC = 128
#: the most sample points a privacy profile is turned into (beyond: the rest is put at +∞)
MAX_PROFILE_POINTS = 1 << 16


# ---------------------------------------------------------------------------
# grid helpers
# ---------------------------------------------------------------------------


def _floor_index(x: object, h: Fraction) -> int:
    """The largest k with k·h <= x, certified (x a Fraction or a ball)."""
    if isinstance(x, Fraction):
        return math.floor(x / h)
    b = as_ball(x)  # type: ignore[arg-type]
    k = math.floor(float(b.mid()) / float(h))
    hb = to_ball(h)
    for _ in range(64):
        if k * hb <= b:
            return k
        k -= 1
    raise PrecisionError(f"cannot place the loss {b} on the grid h = {h}")


def grid_range(law: LossLaw, h: Fraction, tail: float) -> tuple[int, int]:
    """Grid indices [i_lo, i_hi] covering the law's float range and all its atoms."""
    lo, hi = law.range_f(tail)
    for t in law.atoms():
        x = float(as_ball(t.loss).mid())
        lo, hi = min(lo, x), max(hi, x)
    hf = float(h)
    return math.floor(lo / hf) - 2, math.ceil(hi / hf) + 2


#: lower cells are (b_{j−1}, b_j] with b_j = (j + 1/2 + LOWER_SHIFT)·h: centred a little
#: above ω_j, so the merged loss log(P(J)/Q(J)) (just below the cell's P-mean, by
#: Jensen, by about h²/24) still lies above ω_j and the cell loses only ~h/16
LOWER_SHIFT = Fraction(1, 16)
#: an atom off the grid is merged with the continuous mass of at most this many grid
#: steps beside it (:func:`_atom_region`)
MERGE_STEPS = 256
#: the region's end is searched on the grid h / MERGE_RESOLUTION
MERGE_RESOLUTION = 64


def _merged_loss_f(law: LossLaw, atom: Atom, u: Fraction, v: Fraction) -> float:
    """Float guide: the loss log(P/Q) of the atom merged with the continuous mass of (u, v]."""
    P = atom.p + law.cont_tail(u, "P") - law.cont_tail(v, "P")
    Q = atom.q + law.cont_tail(u, "Q") - law.cont_tail(v, "Q")
    p, q = float(P.mid()), float(Q.mid())
    return math.log(p / q) if p > 0 and q > 0 else math.nan


def _atom_region(law: LossLaw, atom: Atom, h: Fraction) -> tuple[Fraction, Fraction, int] | None:
    """Where to merge an atom off the grid (float search; soundness does not depend on it).

    The atom alone would move down to ⌊ℓ/h⌋h, losing up to h (on average h/2) per step:
    a first-order error that adds up over a composition (68 % of a subsampled Laplace
    step's mass is in its two atoms).  Merged with the continuous mass of a loss interval
    beside it — a post-processing of the pair, so it can only lower every F_ε — its loss
    log(P/Q) moves toward the neighbouring grid point and is aimed just above it:
    downward, (u, (k+1)h] with the merged loss >= kh; upward, (kh, v] with the merged
    loss >= (k+1)h (k = ⌊ℓ/h⌋).  The nearer point is tried first, within
    :data:`MERGE_STEPS` grid steps.  Returns (u, v, aimed index) or None."""
    k = _floor_index(atom.loss, h)
    if isinstance(atom.loss, Fraction) and k * h == atom.loss:
        return None
    if not atom.q > 0:
        return None
    lf = float(as_ball(atom.loss).mid())
    step = h / MERGE_RESOLUTION
    far = MERGE_STEPS * MERGE_RESOLUTION
    down = (lf - float(k * h)) <= float(h) / 2
    for direction in ((-1, 1) if down else (1, -1)):
        if direction < 0:  # (u, (k+1)h], u = kh − s·step; the merged loss falls as s grows
            v, aim = (k + 1) * h, k
            reach = lambda s: _merged_loss_f(law, atom, k * h - s * step, v) >= float(aim * h)  # noqa: E731
        else:  # (kh, v], v = (k+1)h + s·step; the merged loss rises as s grows
            u, aim = k * h, k + 1
            reach = lambda s: _merged_loss_f(law, atom, u, (k + 1) * h + s * step) >= float(aim * h)  # noqa: E731
        if direction < 0:
            if not reach(0):
                continue
            lo, hi = 0, far  # largest s with reach(s): the merged loss closest above kh
            if reach(hi):
                continue  # the region would be wider than MERGE_STEPS and still above: not worth it
            while hi - lo > 1:
                mid = (lo + hi) // 2
                lo, hi = (mid, hi) if reach(mid) else (lo, mid)
            return k * h - lo * step, v, aim
        if not reach(far):
            continue
        lo, hi = -1, far  # smallest s with reach(s)
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (lo, mid) if reach(mid) else (mid, hi)
        return u, (k + 1) * h + hi * step, aim
    return None


def lower_bounds(h: Fraction, i_lo: int, n: int) -> list[Fraction]:
    """The lower cells' ends b_{−1}, ..., b_{n−1}, b_j = (i_lo + j + 1/2 + LOWER_SHIFT)·h."""
    return [(i_lo + j + Fraction(1, 2) + LOWER_SHIFT) * h for j in range(-1, n)]


def lower_regions(law: LossLaw, h: Fraction, i_lo: int, n: int) -> list[tuple[int, Fraction, Fraction, int]]:
    """(atom index, u, v, aimed grid index) of every atom merged with the continuous mass
    of (u, v] (:func:`_atom_region`, clipped to the cells, regions disjoint): the lower
    discretisation's partition, also stated by a certificate's evidence."""
    bounds = lower_bounds(h, i_lo, n)
    first, last = bounds[0], bounds[-1]
    out: list[tuple[int, Fraction, Fraction, int]] = []
    if not law.has_continuous():
        return out
    for idx, t in enumerate(law.atoms()):
        r = _atom_region(law, t, h)
        if r is not None:
            u, v = max(r[0], first), min(r[1], last)
            if u < v and all(v <= a or u >= b for _, a, b, _ in out):
                out.append((idx, u, v, r[2]))
    return out


def _lower_law(law: LossLaw, h: Fraction, i_lo: int, n: int, masses: list[arb]) -> None:
    """Lower discretisation of a law with a continuous part (its atoms included).

    Every output below is a merge of outputs of the pair — a post-processing, so by the
    data-processing inequality every F_ε can only fall — and is moved DOWN to a grid
    point certainly below its loss ℓ_J = log(P(J)/Q(J)):
    * each cell J = (b_{j−1}, b_j] of the continuous part, less the regions below, goes to
      the grid point certainly below ℓ_J, or when that is not decided to ⌊b_{j−1}/h⌋h (every
      loss of J is above b_{j−1});
    * each atom off the grid is merged with the continuous mass of a loss region beside
      it (:func:`_atom_region`), aimed just above a grid point, and placed the same way
      (fallback: ⌊min(ℓ, region)/h⌋h); an atom on the grid, or one no region helps,
      moves down to ⌊ℓ/h⌋h alone.
    Mass below the first boundary is dropped; above the last, it moves down to the last
    boundary's point."""
    hb = to_ball(h)
    bounds = lower_bounds(h, i_lo, n)
    atoms = law.atoms()
    regions: list[tuple[Fraction, Fraction, int, Atom, int]] = []  # (u, v, aim, atom, fallback)
    merged = set()
    for idx, u, v, aim in lower_regions(law, h, i_lo, n):
        t = atoms[idx]
        merged.add(idx)
        regions.append((u, v, aim, t, min(_floor_index(t.loss, h), math.floor(u / h))))
    singles = [t for idx, t in enumerate(atoms) if idx not in merged]
    pt = [law.cont_tail(x, "P") for x in bounds]
    qt = [law.cont_tail(x, "Q") for x in bounds]
    # cells wholly inside a region belong to it; a cell holding a region's end is split there
    owner: dict[int, int] = {}  # cell j -> region r
    splits: dict[int, list[Fraction]] = {}  # cell j -> its interior cut points
    for r, (u, v, *_) in enumerate(regions):
        for j in range(bisect.bisect_left(bounds, u), bisect.bisect_right(bounds, v) - 1):
            owner[j] = r  # bounds[j] >= u and bounds[j+1] <= v
        for x in (u, v):
            i = bisect.bisect_left(bounds, x)
            if bounds[i] != x:  # strictly inside the cell (bounds[i-1], bounds[i]]
                splits.setdefault(i - 1, []).append(x)
    # groups: one per cell (index j) and one per region (index n + r)
    gP = [arb(0)] * (n + len(regions))
    gQ = [arb(0)] * (n + len(regions))
    for j in range(n):
        if not j % 512:
            check_budget("the lower PLD of one step", j, n)
        if j not in splits:
            g = n + owner[j] if j in owner else j
            gP[g] += pt[j] - pt[j + 1]
            gQ[g] += qt[j] - qt[j + 1]
            continue
        xs = [bounds[j]] + sorted(splits[j]) + [bounds[j + 1]]
        tp = [pt[j]] + [law.cont_tail(x, "P") for x in xs[1:-1]] + [pt[j + 1]]
        tq = [qt[j]] + [law.cont_tail(x, "Q") for x in xs[1:-1]] + [qt[j + 1]]
        for i, (x, y) in enumerate(zip(xs, xs[1:])):
            g = next((n + r for r, (u, v, *_) in enumerate(regions) if u <= x and y <= v), j)
            gP[g] += tp[i] - tp[i + 1]
            gQ[g] += tq[i] - tq[i + 1]
    for g in range(n + len(regions)):
        if g < n:
            PI, QI, fallback, top = gP[g], gQ[g], i_lo + g - 1, i_lo + g
        else:
            u, v, aim, t, fallback = regions[g - n]
            PI, QI, top = gP[g] + t.p, gQ[g] + t.q, aim
        if not PI > 0:
            continue
        k = fallback
        if QI > 0:
            ell = (PI / QI).log()
            for kk in range(top, max(fallback, top - 3), -1):
                if kk * hb <= ell:
                    k = kk
                    break
        if k >= i_lo:
            masses[k - i_lo] += PI
    masses[n - 1] += pt[-1]
    for t in singles:
        k = _floor_index(t.loss, h)
        if k >= i_lo:
            masses[k - i_lo] += t.p


#: One step's measure: (fixed-point coefficients, index of the first, units at +∞).
Measure = tuple[list[int], int, int]


def one_step(law: LossLaw, h: Fraction, bits: int, kind: Kind, tail: float, max_points: int) -> Measure:
    """The certified one-step measure (module doc) of ``law`` on the grid h·Z:
    coefficient c_k (units 2^-bits) at (offset + k)·h and the units at +∞."""
    i_lo, i_hi = grid_range(law, h, tail)
    n = i_hi - i_lo + 1
    if n > max_points:
        raise BudgetExceeded(f"the PLD grid needs {n} points at h = {h}, more than the cap of {max_points}; "
                             "use a coarser grid")
    up = kind == "upper"
    with working_precision(max(PREC, bits + 64)):
        masses = [arb(0)] * n
        inf = law.p_inf()
        if law.has_continuous() and up:
            pt, qt = [], []
            for i in range(i_lo, i_hi + 1):
                if not (i - i_lo) % 512:
                    check_budget("the upper PLD of one step", i - i_lo, n)
                w = i * h
                pt.append(law.cont_tail(w, "P"))
                qt.append(law.cont_tail(w, "Q"))
            masses = connect_the_dots(pt, qt, i_lo, h)
            masses[0] += law.cont_tail(None, "P") - pt[0]  # below the grid: up to ω_lo
            inf = inf + pt[-1]
        elif law.has_continuous():
            _lower_law(law, h, i_lo, n, masses)  # the atoms too
        for t in law.atoms():
            if not up and law.has_continuous():
                continue
            if up:
                a, b = grid_bracket(t.loss, h)
                if a == b:
                    masses[a - i_lo] += t.p
                    continue
                ea, eb = to_ball(-a * h).exp(), to_ball(-b * h).exp()
                lo_part, hi_part = split_keeping_q(t.p, t.q, ea, eb)
                masses[a - i_lo] += lo_part
                masses[b - i_lo] += hi_part
            else:
                k = _floor_index(t.loss, h)
                masses[k - i_lo] += t.p
        scale = arb(2) ** bits
        coeffs = [fixed_point_units(m, scale, up) for m in masses]
        inf_units = fixed_point_units(inf, scale, up)
    # strip zero ends so the measure stays small
    lo = next((i for i, c in enumerate(coeffs) if c), None)
    if lo is None:
        if up:
            return [0], i_lo, inf_units
        raise PrecisionError("the lower PLD of one step is empty")
    hi = max(i for i, c in enumerate(coeffs) if c)
    return coeffs[lo:hi + 1], i_lo + lo, inf_units


# ---------------------------------------------------------------------------
# the pair of a privacy profile
# ---------------------------------------------------------------------------


def _hull_breakpoints(D: list[arb], h: Fraction, check_zero: bool = True) -> tuple[list[int], list[arb], arb] | None:
    """Knots of the lower convex hull of the points (e^{ih}, D_i) (monotone chain; a
    point is kept only when the turn at it is certified convex), the slopes S_j > 0
    (F = D_{k_j} − S_j(γ − e^{k_j h}) on [e^{k_j h}, e^{k_{j+1} h}]) and the value at the
    last knot (the mass at +∞).  Any knots through which the interpolation is convex
    give F >= δ (F >= the chord of the convex δ between knots), so the float-free
    certification is all that is needed.  None when the symmetric completion's mass
    at 0 would not be certainly >= 0 (S_0 > (1 − D_0)/2; ``check_zero=False``: the knots
    anyway)."""
    g = [(i * to_ball(h)).exp() for i in range(len(D))]
    keep: list[int] = [0]
    slope: list[arb] = []  # slope[j]: between keep[j] and keep[j+1] (<= 0)
    for i in range(1, len(D)):
        while keep:
            b = keep[-1]
            s = (D[i] - D[b]) / (g[i] - g[b])
            if len(keep) == 1 or s > slope[-1]:
                break
            keep.pop()
            slope.pop()
        slope.append(s)
        keep.append(i)
    S = [-x for x in slope]
    if check_zero and S and not (D[0] + 2 * S[0] < 1):
        return None
    return keep, S, D[keep[-1]]


def _greedy_breakpoints(D: list[arb], h: Fraction) -> tuple[list[int], list[arb], arb]:
    """Fallback: the greedy convex majorant on every grid point with S_0 capped at
    (1 − D_0)/2: S_i = min(S_{i−1}, (D̃_i − D_{i+1})/(γ_{i+1} − γ_i)) rounded down, >= 0,
    so D̃_{i+1} >= D_{i+1}; returns (knots, slopes, D̃_N rounded up)."""
    eh = to_ball(h).exp()
    S: list[arb] = []
    Dball = D[0]  # D̃ at the current sample: D_0 − Σ S_k Δγ_k (a ball)
    g = arb(1)
    for k in range(len(D) - 1):
        g_next = g * eh
        need = lower_bound((lower_bound(Dball) - D[k + 1]) / (g_next - g))
        s = need if need > 0 else arb(0)
        if k == 0:  # keep the symmetric completion's mass at 0 positive
            cap = lower_bound((1 - D[0] - arb(2) ** -100) / 2)
            cap = cap if cap > 0 else arb(0)
            s = s if s < cap else cap
        elif s > S[-1]:
            s = S[-1]
        S.append(s)
        Dball = Dball - s * (g_next - g)
        g = g_next
    top = upper_bound(Dball)  # >= D̃_N: the mass at +∞ (more is safe)
    return list(range(len(D))), S, (top if top > 0 else arb(0))


def profile_law(mech: object, h: Fraction, tail: float) -> AtomLaw:
    """A symmetric pair whose hockey-stick curve is >= the mechanism's (upper) profile.

    With γ = e^ε, δ(γ) is convex and non-increasing (a hockey-stick divergence).
    Sample D_i >= δ(ε_i) at ε_i = i·h (upper ends, made non-increasing) and take a
    convex piecewise-linear F through some of the points (γ_i, D_i): the certified
    lower convex hull (:func:`_hull_breakpoints`; an upper-bound profile such as a
    minimum of two curves need not be convex, the hull still is), or, when its first
    slope is too steep for the completion below, the greedy majorant with a capped
    first slope (:func:`_greedy_breakpoints`).  F >= δ: between knots F is the chord
    through points above δ, and δ is convex; beyond the last knot F stays at its value
    (δ is non-increasing), the mass at +∞.  F is the hockey-stick curve of the loss law
    with atoms m_j = e^{ε_j}(S_{j−1} − S_j) at the knots ε_j and the mirrored atoms
    e^{−ε_j}m_j at −ε_j (the symmetry makes (P, Q) and (Q, P) alike, so the pair
    dominates both orders and every γ >= 0), mass 1 − F(1) − 2S_0 at 0 (>= 0 is
    required: S_0 <= (1 − D_0)/2) and F's last value at ±∞ (Zhu, Dong & Wang 2022 §4.1, Def 7)."""
    vanish = getattr(mech, "vanishes_from", lambda: None)()
    with working_precision(PREC):
        hb = to_ball(h)
        D: list[arb] = []
        i = 0
        while True:
            if not i % 256:
                check_budget("sampling the privacy profile", i, None)
            eps = i * h
            if vanish is not None and eps >= vanish:
                D.append(arb(0))
                break
            v = upper_bound(mech.delta_ball(to_ball(eps)))  # type: ignore[attr-defined]
            if not v.is_finite():
                raise PrecisionError(f"the profile of {mech!r} is not finite at eps = {eps}")
            v = v if v < 1 else arb(1)
            v = v if v > 0 else arb(0)
            if D and v > D[-1]:
                v = D[-1]  # δ is non-increasing
            D.append(v)
            if v <= tail or i >= MAX_PROFILE_POINTS:
                break
            i += 1
        chain = _hull_breakpoints(D, h)
        if chain is None:
            chain = _greedy_breakpoints(D, h)
        knots, slopes, top = chain
        atoms: list[Atom] = []
        total_pos = arb(0)
        for j, k in enumerate(knots[1:], start=1):
            prev = slopes[j - 1]
            cur = slopes[j] if j < len(slopes) else arb(0)
            d = prev - cur
            if d == 0:
                continue
            m = (k * hb).exp() * d
            atoms.append(Atom(k * h, m, d))  # Q-mass e^{−ε}m = S_{j−1} − S_j
            atoms.append(Atom(-k * h, d, m))
            total_pos += m + d
        zero = 1 - top - total_pos
        if zero < 0:
            raise PrecisionError("the profile pair's mass at 0 is not certainly >= 0")
        if not zero == 0:
            atoms.append(Atom(Fraction(0), zero, zero))
    return AtomLaw(tuple(atoms), top, top, h)


# ---------------------------------------------------------------------------
# sources: what a mechanism contributes to the engine
# ---------------------------------------------------------------------------


def discrete_laplace_law(t: Fraction, d: int) -> AtomLaw:
    """The Δ + 1 atoms of discrete Laplace (see :class:`certdp.mechanisms.basic.DiscreteLaplace`):
    losses (Δ − 2x)/t exactly, in (1/t)·Z."""
    with working_precision(PREC):
        r = (-1 / to_ball(t)).exp()
        c = (1 - r) / (1 + r)
        atoms = [Atom(Fraction(d) / t, 1 / (1 + r), r**d / (1 + r)),
                 Atom(-Fraction(d) / t, r**d / (1 + r), 1 / (1 + r))]
        atoms += [Atom(Fraction(d - 2 * x) / t, c * r**x, c * r**(d - x)) for x in range(1, d)]
    return AtomLaw(tuple(atoms), anchor=1 / t)


def discrete_gaussian_law(sigma: Fraction, d: int) -> AtomLaw:
    """The discrete Gaussian's atoms (:class:`certdp.mechanisms.basic.DiscreteGaussian`),
    losses (Δ² − 2Δx)/(2σ²) exactly; the tails beyond them (each <= 2^−400) are split
    into a symbol with P-mass only (loss +∞) and one with Q-mass only (loss −∞): the
    original pair is a post-processing of that one, so it dominates.  Their masses are
    balls [0, bound]: the upper step takes the bound, the lower step 0 (dropped)."""
    from certdp.mechanisms.basic import discrete_gaussian_parts  # noqa: PLC0415

    with working_precision(PREC):
        atoms, tail = discrete_gaussian_parts(sigma, d)
        both = 2 * tail
        return AtomLaw(tuple(Atom(ell, p, q) for ell, p, q in atoms), both, both,
                       Fraction(d, 2) / (sigma * sigma))


@dataclass(frozen=True)
class LawSource:
    """A mechanism as the engine sees it: a symmetric base law (or a profile to
    build one from, ``profile_of``), Poisson-subsampled at ``rate`` (1: none).

    ``two_sided`` — the lower discretisation is valid (False for profile pairs,
    which only bound the mechanism from above)."""

    base: LossLaw | None
    rate: Fraction = Fraction(1)
    profile_of: object | None = None
    label: str = ""
    upper_only: bool = False  # a law that only dominates the mechanism (e.g. sample_wr's revealed copies)

    @property
    def two_sided(self) -> bool:
        return self.profile_of is None and not self.upper_only

    @property
    def anchor(self) -> Fraction | None:
        """Exact spacing h0 with every atom of the one-step law in h0·Z (None: unknown)."""
        if self.base is None or self.rate != 1:
            return None
        return self.base.anchor

    @property
    def lattice(self) -> Fraction | None:
        """The anchor when the one-step law has atoms only (then a grid dividing it is exact)."""
        return None if self.base is None or self.base.has_continuous() else self.anchor

    @property
    def adapts_to_grid(self) -> bool:
        """A profile pair is built on whatever grid the accountant uses."""
        return self.profile_of is not None and self.rate == 1

    def law(self, relation: Relation, h: Fraction, tail: float) -> LossLaw:
        base = self.base if self.base is not None else profile_law(self.profile_of, h, tail)
        if self.rate == 1:
            return base
        return SubsampledLaw(base, self.rate, relation)

    def range_f(self, tail: float) -> tuple[float, float]:
        """Float loss range of one step (grid sizing only)."""
        if self.base is None:
            return (-4.0, 4.0)  # a profile pair: sized by its samples, see profile_law
        lo, hi = 0.0, 0.0
        for rel in ("add", "remove"):
            law = self.base if self.rate == 1 else SubsampledLaw(self.base, self.rate, rel)  # type: ignore[arg-type]
            a, b = law.range_f(tail)
            for t in law.atoms():
                x = float(as_ball(t.loss).mid())
                a, b = min(a, x), max(b, x)
            lo, hi = min(lo, a), max(hi, b)
        return lo, hi

    def one_step(self, relation: Relation, kind: Kind, h: Fraction, bits: int, tail: float,
                 max_points: int) -> Measure:
        if kind == "lower" and not self.two_sided:
            raise InputError("a pair built from an upper-bound profile has no lower discretisation")
        if self.rate == 1 and self.base is not None and _hashable(self.base):
            # one law serves both relations (a symmetric pair): discretised once, not per relation
            coeffs, offset, inf = _one_step_once(self.base, h, bits, kind, tail, max_points)
            return list(coeffs), offset, inf
        return one_step(self.law(relation, h, tail), h, bits, kind, tail, max_points)


def _hashable(law: LossLaw) -> bool:
    try:
        hash(law)
    except (TypeError, ValueError):  # flint refuses to hash a non-exact arb (an atom's mass)
        return False
    return True


#: :func:`one_step` of a rate-1 law, remembered for the other relation (the same law, the same measure)
_one_step_once = functools.lru_cache(maxsize=16)(one_step)


def law_source(mech: object) -> LawSource:
    """The engine's source for a catalog mechanism that is not a (subsampled) Gaussian.

    laplace(scale b, sensitivity Δ) → LaplaceLaw(Δ/b); randomized_response(p);
    pure_dp(ε0), approx_dp(ε0, δ0) → their tight pairs; subsample(M, γ) → M's
    source at rate γ (nested Poisson subsampling multiplies the rates);
    a mechanism whose trade-off curve is exactly Gaussian → GaussianLaw(μ²/2);
    any other mechanism → the pair of its (upper) privacy profile."""
    from certdp.mechanisms import basic  # noqa: PLC0415
    from certdp.mechanisms.transforms import Compose, ComposeAll, Subsample  # noqa: PLC0415

    label = getattr(mech, "spec", lambda: repr(mech))()
    from certdp.analyses.accountants.sampling_laws import sampling_source  # noqa: PLC0415

    sampled = sampling_source(mech)  # replace-one Poisson sampling, sampling with replacement
    if sampled is not None:
        return LawSource(sampled[0], label=label, upper_only=sampled[1])
    if isinstance(mech, Subsample):
        if isinstance(mech.mechanism, Subsample) and type(mech.mechanism) is not type(mech):
            raise InputError(f"{label}: Poisson subsampling and sampling without replacement "
                             "cannot be nested (different neighbouring relations)")
        inner = law_source(mech.mechanism)
        if not isinstance(inner, LawSource):  # a labelled mixture (truncated_subsample): its own sampling
            raise InputError(f"{label}: Poisson subsampling of {mech.mechanism.spec()} is not supported")
        rate = Fraction(mech.rate) * inner.rate
        return LawSource(inner.base, rate, inner.profile_of, label, inner.upper_only)
    mu2 = mech.gdp_mu_squared() if hasattr(mech, "gdp_mu_squared") else None  # type: ignore[attr-defined]
    if mu2 is not None:
        return LawSource(GaussianLaw(Fraction(mu2) / 2), label=label)
    if isinstance(mech, basic.Laplace):
        return LawSource(LaplaceLaw(Fraction(mech.sensitivity) / Fraction(mech.scale)), label=label)
    if isinstance(mech, basic.DiscreteLaplace):
        return LawSource(discrete_laplace_law(Fraction(mech.scale), int(mech.sensitivity)), label=label)
    if isinstance(mech, basic.DiscreteGaussian):
        return LawSource(discrete_gaussian_law(Fraction(mech.sigma), int(mech.sensitivity)), label=label)
    if isinstance(mech, basic.RandomizedResponse):
        return LawSource(rr_p_law(Fraction(mech.p)), label=label)
    if isinstance(mech, basic.RandomizedResponseK):
        return LawSource(rr_k_law(Fraction(mech.p), int(mech.k)), label=label)
    if isinstance(mech, basic.ApproxDP):
        return LawSource(rr_law(Fraction(mech.eps), Fraction(mech.delta)), label=label)
    if isinstance(mech, basic.PureDP):
        return LawSource(rr_law(Fraction(mech.eps)), label=label)
    if getattr(mech, "name", None) == "truncated_subsample":  # a labelled mixture of subsampled Gaussians
        from certdp.analyses.accountants.mixture_law import truncated_source  # noqa: PLC0415

        return truncated_source(mech, one_step)  # type: ignore[return-value]
    if getattr(mech, "name", None) == "gaussian_mixture":  # N(0) against Σ p_i N(c_i): an exact law
        from certdp.analyses.accountants.mog_law import mog_source  # noqa: PLC0415

        return mog_source(mech, one_step)  # type: ignore[return-value]
    if isinstance(mech, (Compose, ComposeAll)):  # inside a transform (e.g. one Poisson draw for all steps)
        from certdp.analyses.accountants.composed_laws import product_law  # noqa: PLC0415

        parts = [(law_source(m), k) for m, k in (mech.items() if isinstance(mech, ComposeAll)
                                                 else [(mech.mechanism, int(mech.k))])]
        if not all(isinstance(src, LawSource) and src.base is not None and src.rate == 1 and not src.upper_only for src, _ in parts):
            raise InputError(f"{label}: a composition inside another transform needs its own law: finite or "
                             "Gaussian steps only (compose at the top level instead)")
        return LawSource(product_law([(src.base, k) for src, k in parts], label), label=label)  # type: ignore[misc]
    if not hasattr(mech, "delta_ball"):
        raise InputError(f"the PLD engine cannot handle {mech!r}")
    return LawSource(None, profile_of=mech, label=label)


__all__ = ["LawSource", "law_source", "one_step", "profile_law", "grid_range", "BudgetExceeded"]
