"""Certified privacy-loss-distribution (PLD) accountant.

Math (Gomez et al. 2025 Thm A.7; Zhu, Dong & Wang 2022 Thm 6): for a dominating pair (P, Q) with
privacy loss L = log(p/q)(o), o ~ P, the profile is

    δ(ε) = H_{e^ε}(P‖Q) = E_P[(1 − e^{ε−L})⁺]      (+ the mass of L = +∞),

and composition adds independent losses (convolution).  Write
F_ε(ν) = ∫ (1 − e^{ε−y})⁺ dν(y) for any non-negative measure ν on (−∞, +∞].
F_ε is increasing in ν (pointwise) and in the position of mass (stochastic
order), and both orders are preserved by convolution.  certdp therefore
computes two measures on the grid h·Z (plus an atom at +∞) whose masses are
fixed-point integers (units 2^-bits), composes them by EXACT integer
polynomial multiplication (one FLINT big-integer product per step by Kronecker
substitution, :mod:`certdp.numerics.kronecker`) and evaluates F_ε in ball
arithmetic:

* **upper** — connect-the-dots (Doroshenko et al. 2022): the loss y of each
  output with y ∈ [ω_i, ω_{i+1}] is split between the grid points
  ω_i, ω_{i+1} with weights (a, 1−a) chosen so that the Q-mass is preserved
  (a = (e^{−y} − e^{−ω_{i+1}})/(e^{−ω_i} − e^{−ω_{i+1}})).  The true pair
  is a post-processing (merge) of the split pair, so the split pair
  dominates; its P-masses per interval I are
  A = (Q(I) − e^{−ω_{i+1}}P(I))/(e^{−ω_i} − e^{−ω_{i+1}}) and P(I) − A.
  Losses below the grid go UP to the lowest grid point, above it to +∞.
  Masses are rounded UP; after each product the coefficients are divided by
  2^bits rounding UP; tail mass below τ moves to +∞ (top) or up to the
  first kept point (bottom).  Where little mass lies a cell may span several
  grid steps (its mass split between its two ends by the same rule).  Every step increases F_ε, so F_ε of the
  result is a certified upper bound on δ(ε) of the composition.
* **lower** — a post-processing of the true pair (merge the outputs of an
  x-interval J into one symbol: loss ℓ_J = log(P(J)/Q(J))), so by the
  data-processing inequality its composition has smaller δ.  Interval ends
  are chosen (float search) so that ℓ_J lies just above a grid point;
  ℓ_J is then certified >= the grid point it is placed on (rounded down),
  masses are rounded DOWN, and tails are dropped or moved down.  Every step
  decreases F_ε: a certified lower bound.

δ(ε) of the composition is max over the add and remove neighbouring
relations (Zhu, Dong & Wang 2022 Thm 6: remove (P,Q) = ((1−q)N(0,σ²)+qN(1,σ²), N(0,σ²)),
add (P,Q) = (N(0,σ²), (1−q)N(0,σ²)+qN(1,σ²))).  Work per answer: remove's upper PLD
on the grid; add's on a 4× coarser grid first, enough when it is already below
remove's (any grid is certified); relations with the very same one-step integers (a
symmetric mechanism) share one composition; a second lower PLD only near a tie.
Compositions are left-to-right square and multiply.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Iterable, Literal

import numpy as np
from flint import arb, fmpz, fmpz_poly

from certdp.analyses.accountants.base import Accountant, check_count, check_delta, check_eps
from certdp.analyses.accountants.mixture_vec import Fallback, coarse_indices_vec, lower_atoms_vec, upper_one_step_vec
from certdp.errors import BudgetExceeded, CertdpError, InputError, PrecisionError, check_budget
from certdp.numerics import kronecker
from certdp.numerics.ball import dyadic_to_fraction, lower_bound, to_ball, upper_bound, working_precision
from certdp.numerics.enclosure import Enclosure
from certdp.numerics.exact import exact
from certdp.numerics.normal import Phi_ball, Phi_upper_ball

Relation = Literal["add", "remove"]
Kind = Literal["upper", "lower"]

#: Working precision (bits) of the one-step ball computations.
PREC = 128
ONE_STEP_PREC = 64

#: Smallest Gaussian noise the PLD accountant takes (its float search squares σ).
MIN_SIGMA = Fraction(1, 10**30)


# ---------------------------------------------------------------------------
# dominating pairs: Gaussian mixtures with a monotone loss
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class SubsampledGaussian:
    """Poisson-subsampled Gaussian mechanism (sensitivity 1, noise σ, rate q).

    rate = 1 is the plain Gaussian mechanism (exactly (1/σ)-GDP).
    """

    sigma: Fraction
    rate: Fraction = Fraction(1)

    def __post_init__(self) -> None:
        s = exact(self.sigma, "sigma")
        q = exact(self.rate, "rate")
        if s <= 0:
            raise InputError(f"sigma must be > 0, got {self.sigma!r}")
        if not 0 < q <= 1:
            raise InputError(f"sample rate must satisfy 0 < rate <= 1, got {self.rate!r}")
        object.__setattr__(self, "sigma", s)
        object.__setattr__(self, "rate", q)

    def pair(self, relation: Relation) -> "MixturePair":
        """The dominating pair for ``relation`` with loss increasing in x.

        remove: P = (1−q)N(0,σ²) + qN(1,σ²), Q = N(0,σ²),
                L(x) = log(1 − q + q e^{(2x−1)/(2σ²)});
        add (mirrored x → −x so the loss increases):
                P = N(0,σ²), Q = (1−q)N(0,σ²) + qN(−1,σ²),
                L(x) = −log(1 − q + q e^{(−2x−1)/(2σ²)}).
        """
        q = self.rate
        if relation == "remove":
            return MixturePair(self.sigma, q, ((1 - q, 0), (q, 1)), ((Fraction(1), 0),), 1)
        if relation == "add":
            return MixturePair(self.sigma, q, ((Fraction(1), 0),), ((1 - q, 0), (q, -1)), -1)
        raise InputError(f"unknown relation {relation!r}")


@dataclass(frozen=True)
class MixturePair:
    """P, Q mixtures of N(c, σ²); loss L(x) = s·log(1 − q + q e^{(2sx−1)/(2σ²)})."""

    sigma: Fraction
    q: Fraction
    p_comps: tuple[tuple[Fraction, int], ...]
    q_comps: tuple[tuple[Fraction, int], ...]
    sign: int  # +1 remove, -1 add (mirrored)

    # -- floats (search only) -------------------------------------------
    @functools.cached_property
    def _floats(self) -> tuple[float, float]:
        """(σ², q) as floats, converted once (the float search calls for them often)."""
        return float(self.sigma) ** 2, float(self.q)

    def loss_f(self, x: float) -> float:
        s2, q = self._floats
        t = (2 * self.sign * x - 1) / (2 * s2)
        if t > 700:
            v = math.log(q) + t + math.log1p((1 - q) / q * math.exp(-t)) if q > 0 else t
        else:
            v = math.log(1 - q + q * math.exp(t))
        return self.sign * v

    def loss_range_f(self) -> tuple[float, float]:
        """(inf L, sup L) as floats."""
        q = float(self.q)
        if self.q == 1:
            return (-math.inf, math.inf)
        lim = math.log1p(-q)
        return (lim, math.inf) if self.sign > 0 else (-math.inf, -lim)

    def x_of_loss_f(self, w: float) -> float:
        """The x with L(x) = w; ∓inf when w is (by float rounding) at or beyond
        the lower/upper end of the loss range (a search guide, never a proof)."""
        s2, q = self._floats
        u = w if self.sign > 0 else -w
        # 1 - q + q e^t = e^u  ->  t = log((e^u - 1 + q)/q)
        if self.q == 1:
            t = u
        elif u > 700:  # e^u overflows: t = u - log q + log1p((q - 1) e^{-u})
            t = u - math.log(q) + math.log1p((q - 1) * math.exp(-u))
        else:
            arg = (math.expm1(u) + q) / q
            if not arg > 0:
                return -math.inf if self.sign > 0 else math.inf
            t = math.log(arg)
        return self.sign * (t * s2 + 0.5) if self.sign > 0 else -(t * s2 + 0.5)

    def x_quantiles_f(self, z: float) -> tuple[float, float]:
        """x-range holding all but ~Φ(-z) of P's mass on each side."""
        s = float(self.sigma)
        cs = [c for _, c in self.p_comps]
        return (min(cs) - z * s, max(cs) + z * s)

    # -- balls ------------------------------------------------------------
    def x_of_loss_ball(self, w: arb) -> arb | None:
        """Ball containing x with L(x) = w; None if w is at/below the range
        (all mass has loss > w) — callers must handle the top separately."""
        s2 = to_ball(self.sigma) ** 2
        q = to_ball(self.q)
        u = w if self.sign > 0 else -w
        if self.q == 1:
            t = u
        else:
            arg = u.expm1() + q
            if not arg > 0:
                if arg < 0 or arg == 0:
                    return None
                raise PrecisionError("loss grid point too close to the edge of the loss range")
            t = (arg / q).log()
        x = t * s2 + arb(1) / 2
        return x if self.sign > 0 else -x

    def tail_P(self, x: arb | None) -> arb:
        """P(X > x) (x None means -∞)."""
        return self._tail(self.p_comps, x)

    def tail_Q(self, x: arb | None) -> arb:
        return self._tail(self.q_comps, x)

    def _tail(self, comps, x):
        if x is None:
            return arb(1)
        s = to_ball(self.sigma)
        tot = arb(0)
        for wgt, c in comps:
            if wgt == 0:
                continue
            tot += to_ball(wgt) * Phi_upper_ball((x - c) / s)
        return tot

    def interval_P(self, a: arb | None, b: arb | None) -> arb:
        """P(a < X < b), a/b None = ∓∞, computed on the side without cancellation."""
        return self._interval(self.p_comps, a, b)

    def interval_Q(self, a: arb | None, b: arb | None) -> arb:
        return self._interval(self.q_comps, a, b)

    def _interval(self, comps, a, b):
        """Mixture mass of (a, b); a/b are balls, or None meaning -inf / +inf."""
        s = to_ball(self.sigma)
        tot = arb(0)
        for wgt, c in comps:
            if wgt == 0:
                continue
            za = None if a is None else (a - c) / s
            zb = None if b is None else (b - c) / s
            if za is not None and za > 0:  # upper half: difference of upper tails
                v = Phi_upper_ball(za) - (arb(0) if zb is None else Phi_upper_ball(zb))
            elif zb is not None and zb < 0:  # lower half: difference of CDFs
                v = Phi_ball(zb) - (arb(0) if za is None else Phi_ball(za))
            else:
                v = (1 - (arb(0) if za is None else Phi_ball(za))
                     - (arb(0) if zb is None else Phi_upper_ball(zb)))
            tot += to_ball(wgt) * v
        return tot


def _mass_f(comps, sigma: float, a: float, b: float) -> float:
    """Float P(a < X < b) for a mixture (search only)."""
    r2 = math.sqrt(2.0)
    tot = 0.0
    for wgt, c in comps:
        za = (a - c) / sigma
        zb = (b - c) / sigma
        if za > 0:
            v = 0.5 * (math.erfc(za / r2) - math.erfc(zb / r2))
        elif zb < 0:
            v = 0.5 * (math.erfc(-zb / r2) - math.erfc(-za / r2))
        else:
            v = 1 - 0.5 * math.erfc(-za / r2) - 0.5 * math.erfc(zb / r2)
        tot += float(wgt) * v
    return tot


def _dens_f(comps, sigma: float, x: float) -> float:
    tot = 0.0
    for wgt, c in comps:
        z = (x - c) / sigma
        tot += float(wgt) * math.exp(-z * z / 2) / (sigma * math.sqrt(2 * math.pi))
    return tot


# ---------------------------------------------------------------------------
# discrete measures with fixed-point integer masses
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class DiscretePLD:
    """Non-negative measure Σ_k c_k 2^-bits δ_{(offset+k)h} + inf·2^-bits δ_{+∞}.

    ``kind`` says which way every rounding went ("upper": F_ε(this) >= the
    true δ(ε); "lower": <=).
    """

    poly: fmpz_poly
    offset: int
    h: Fraction
    bits: int
    inf: int
    kind: Kind

    @property
    def length(self) -> int:
        return self.poly.length()

    def total_units(self) -> int:
        """Total mass (finite atoms + inf) in units of 2^-bits."""
        return int(self.poly(1)) + self.inf if self.poly.length() else self.inf

    def combine(self, other: "DiscretePLD", tau_units: int) -> "DiscretePLD":
        """The convolution (composition), re-rounded to ``bits`` and truncated
        (:meth:`_Chain.combine`)."""
        if self.h != other.h or self.bits != other.bits or self.kind != other.kind:
            raise ValueError("incompatible PLDs")
        a = _Chain.of(self)
        return a.combine(a if other is self else _Chain.of(other), tau_units).pld(self.h)

    def truncated(self, tau_units: int) -> "DiscretePLD":
        """Move tails of total mass <= tau (each side) to keep the support small
        (:meth:`_Chain.truncated`)."""
        return _Chain.of(self).truncated(tau_units).pld(self.h)

    def power(self, count: int, tau_units: int) -> "DiscretePLD":
        """count-fold self-composition, left-to-right square and multiply: square the
        running result for each binary digit of ``count`` after the first, and compose
        with the one-step PLD where the digit is 1.  The multiplications are by the
        short one-step polynomial (right-to-left would multiply two long powers)."""
        if count == 1:
            return self
        return _Chain.of(self).power(count, tau_units).pld(self.h)

    # -- evaluation ----------------------------------------------------------
    def delta_ball(self, eps: arb, exact_eps: Fraction | None = None) -> arb:
        """F_ε of this measure: Σ_{y_k > ε} m_k (1 − e^{ε−y_k}) + m_∞ (a ball).
        ``exact_eps`` (the exact ε inside the ball ``eps``) places ε on the grid
        exactly (no undecided grid points, e.g. ε = a lattice loss)."""
        h = to_ball(self.h)
        poly = self.poly
        n = poly.length()
        if exact_eps is not None:
            k0 = max(0, min(n, math.floor(exact_eps / self.h) - self.offset + 1))
            start = k0
        else:
            # first index with y_k > eps
            k0f = float((eps / h).mid()) - self.offset
            k0 = max(0, min(n, math.floor(k0f) - 1))
            while k0 < n and not ((self.offset + k0) * h > eps):
                k0 += 1
            # entries with y_k possibly equal eps contribute (1-e^0)=0 exactly if equal; include
            # index k0-1 only if y_{k0-1} might exceed eps (ball undecided)
            start = k0
            while start > 0 and not ((self.offset + start - 1) * h <= eps):
                start -= 1
        scale = arb(2) ** (-self.bits)
        if start >= n:
            return to_ball(self.inf) * scale
        tail = poly.right_shift(start) if start else poly  # c_start, c_start+1, ...
        M = int(tail(1))
        r = (-h).exp()
        # Σ_i c_{start+i} r^i evaluated by FLINT on the integer polynomial (in C; as
        # tight as the arb_poly evaluation of the converted coefficients, or tighter)
        S = tail(r) * ((-(self.offset + start) * h).exp())
        # terms with y_k <= eps would contribute a non-positive amount in this formula;
        # the while-loops above exclude all certainly-<= indices, the remaining undecided
        # ones are handled by taking the positive part termwise below.
        val = to_ball(M) - eps.exp() * S
        if start < k0:
            # undecided indices: bound their (1 - e^{eps-y})+ term by [0, m * |1-e^{eps-y}|]
            extra = arb(0)
            for j in range(start, k0):
                y = (self.offset + j) * h
                t = to_ball(int(poly[j])) * (1 - (eps - y).exp())
                extra += t
                val -= t
                val += arb(0).union(t.abs_upper())  # type: ignore[attr-defined]
        return (val + to_ball(self.inf)) * scale

    def delta(self, eps: object) -> arb:
        with working_precision(PREC):
            return self.delta_ball(to_ball(exact(eps, "eps")))

    def grid_profile(self) -> tuple[list[arb], list[arb], list[int]]:
        """At every support point y_k: (M_{>k}, S_{>k}) with M_{>k} = mass above y_k
        (including +∞) and S_{>k} = Σ_{j>k} m_j e^{−y_j} (finite atoms only),
        both scaled by 2^-bits.  δ(e^{y_k}) = M_{>k} − e^{y_k} S_{>k}."""
        cs = self.poly.coeffs()
        n = len(cs)
        with working_precision(PREC):
            h = to_ball(self.h)
            scale = arb(2) ** (-self.bits)
            Ms: list[arb] = [arb(0)] * n
            Ss: list[arb] = [arb(0)] * n
            M_units = [0] * n
            acc_m = self.inf
            acc_s = arb(0)
            eh = h.exp()
            w = (-(self.offset + n - 1) * h).exp()  # e^{-y_{n-1}}
            for k in range(n - 1, -1, -1):
                Ms[k] = arb(fmpz(acc_m)) * scale
                M_units[k] = acc_m
                Ss[k] = acc_s * scale
                c = int(cs[k])
                if c:
                    acc_m += c
                    acc_s += c * w
                w = w * eh
        return Ms, Ss, M_units

    def epsilon_bounds(self, delta: arb) -> tuple[arb, arb]:
        """Exact endpoints [lo, hi] enclosing ε_F = min{ε >= 0 : F_ε(this) <= δ}.

        Scan the support from the top keeping the masses above y_k;
        on [y_k, y_{k+1}] F(ε) = M − e^ε S, so the root is log((M − δ)/S).
        Raises InputError if the atom at +∞ is not below δ."""
        cs = self.poly  # read coefficient by coefficient: the scan stops near the top
        n = cs.length()
        with working_precision(PREC):
            h = to_ball(self.h)
            d = delta * arb(2) ** self.bits  # in mass units
            if not to_ball(self.inf) < d:
                raise InputError("no finite eps achieves this delta: the mass at +infinity "
                                 "is not certainly below it")
            zero = arb(0)
            if self.delta_ball(zero) <= delta:
                return zero, zero
            # F(y_k) = M_{>k} − e^{y_k} S_{>k} <= M_{>k} (all masses are >= 0): while the
            # (integer) mass above y_k is <= an integer below d, F(y_k) <= δ is proved
            # without ball arithmetic; the scan below starts at the first other index
            t_lo = int(lower_bound(d).floor().unique_fmpz())
            top, m_int = n - 1, self.inf
            while top >= 0 and self.offset + top > 0 and m_int <= t_lo:
                m_int += int(cs[top])
                top -= 1
            eh = h.exp()
            if top == n - 1:
                acc_m = to_ball(self.inf)
                acc_s = arb(0)
                w = (-(self.offset + n - 1) * h).exp()
            else:  # the masses above y_top, S_{>top} = e^{-y_{top+1}} Σ_i c_{top+1+i} e^{-ih}
                acc_m = to_ball(m_int)
                acc_s = (-(self.offset + top + 1) * h).exp() * self.poly.right_shift(top + 1)((-h).exp())
                w = (-(self.offset + top) * h).exp()
            hi: arb | None = None
            for k in range(top, -1, -1):
                y = (self.offset + k) * h
                Fk = acc_m - y.exp() * acc_s  # F at eps = y_k (masses above y_k)
                if hi is None and not Fk <= d:
                    # all F(y_j), j > k, are <= d: the root is <= y_{k+1}
                    hi = upper_bound((self.offset + k + 1) * h) if k < n - 1 else None
                    if Fk > d and acc_s > 0:
                        root = ((acc_m - d) / acc_s).log()
                        lo_r, hi_r = lower_bound(root), upper_bound(root)
                        hi = hi_r if hi is None or hi_r < hi else hi
                        lo = lo_r
                        return (lo if lo > 0 else zero), (hi if hi > 0 else zero)
                if hi is not None and Fk > d:
                    lo = lower_bound(y)
                    return (lo if lo > 0 else zero), hi
                if not y > 0:
                    return zero, (hi if hi is not None else upper_bound((self.offset + k + 1) * h))
                acc_m += int(cs[k])
                acc_s += int(cs[k]) * w
                w = w * eh
            # the whole support lies above 0 and every F(y_k) <= δ: the root is in
            # [0, y_0], where all masses count: F(ε) = M − e^ε S
            y0 = upper_bound(self.offset * h)
            if not acc_m > d:
                raise PrecisionError("F(0) > delta but the total mass is not certainly above it")
            if not acc_s > 0:
                raise PrecisionError("finite atoms exist but their e^{-y} sum is not certainly positive")
            root = ((acc_m - d) / acc_s).log()
            lo, hi_r = lower_bound(root), upper_bound(root)
            return (lo if lo > 0 else zero), (hi_r if hi_r < y0 else y0)


@dataclass(frozen=True)
class _Chain:
    """A :class:`DiscretePLD` during composition: the coefficients as 64-bit limbs
    (:mod:`certdp.numerics.kronecker`), their exact sum, offset, mass at +∞ (units of
    2^-bits) and rounding kind.  Products are exact big-integer products (Kronecker
    substitution), re-rounded coefficient by coefficient the stated way."""

    limbs: np.ndarray
    finite: int  # Σ_k c_k, exactly
    offset: int
    bits: int
    inf: int
    kind: Kind

    @staticmethod
    def of(pld: "DiscretePLD") -> "_Chain":
        limbs = kronecker.from_poly(pld.poly)
        return _Chain(limbs, int(pld.poly(1)) if pld.poly.length() else 0, pld.offset, pld.bits, pld.inf, pld.kind)

    def pld(self, h: Fraction) -> "DiscretePLD":
        return DiscretePLD(kronecker.to_poly(self.limbs), self.offset, h, self.bits, self.inf, self.kind)

    def combine(self, other: "_Chain", tau_units: int) -> "_Chain":
        """The product measure's masses ⌊c_k / 2^bits⌋ (lower) or ⌊c_k / 2^bits⌋ + 1 >=
        ⌈c_k / 2^bits⌉ (upper: every coefficient of the product, zeros included), the
        mass at +∞ m_∞ = inf_a·(total_b) + finite_a·inf_b rounded the same way, then
        :meth:`truncated`."""
        B = self.bits
        inf_exact = self.inf * (other.finite + other.inf) + self.finite * other.inf
        prod = kronecker.mul_shift(self.limbs, other.limbs, B)
        if self.kind == "upper":
            prod = kronecker.add_one(prod)
            inf = -((-inf_exact) >> B)
        else:
            prod = _strip_top_zeros(prod)  # a polynomial's length: the top coefficient is non-zero
            inf = inf_exact >> B
        prod = kronecker.trim_limbs(prod)
        res = _Chain(prod, -1, self.offset + other.offset, B, inf, self.kind)
        return res.truncated(tau_units)

    def power(self, count: int, tau_units: int) -> "_Chain":
        """:meth:`DiscretePLD.power` on limbs."""
        if count < 1:
            raise ValueError("count must be >= 1")
        result = self
        digits = bin(count)[3:]
        for done, d in enumerate(digits):
            check_budget("composing the PLD (square and multiply)", done, len(digits))
            result = result.combine(result, tau_units)
            if d == "1":
                result = result.combine(self, tau_units)
        return result

    def truncated(self, tau_units: int) -> "_Chain":
        """Move tails of total mass <= tau (each side) to keep the support small:
        upper — top tail to +∞, bottom tail up onto the first kept point;
        lower — top tail down onto the last kept point, bottom tail dropped."""
        limbs = self.limbs
        n = limbs.shape[0]
        sums = kronecker.PrefixSums(limbs)
        total = sums.total()
        if n <= 1 or tau_units <= 0:
            return self if self.finite == total else _Chain(limbs, total, self.offset, self.bits, self.inf, self.kind)
        prefix = sums

        def suffix(k: int) -> int:  # sum of coefficients k..n-1
            return total - prefix(k)

        # bottom: lo = largest k <= n-1 with prefix(k) <= tau (galloping search)
        a, b = 0, 1
        while b < n - 1 and prefix(b) <= tau_units:
            a, b = b, min(2 * b, n - 1)
        if prefix(b) <= tau_units:
            a = b
        else:
            while b - a > 1:
                m = (a + b) // 2
                if prefix(m) <= tau_units:
                    a = m
                else:
                    b = m
        lo = a
        acc_lo = prefix(lo)
        # top: hi = smallest index >= lo with suffix(hi + 1) <= tau
        # (j = number of cut coefficients at the top, galloping from 0)
        maxcut = n - 1 - lo
        a, b = 0, 1
        while b < maxcut and suffix(n - b) <= tau_units:
            a, b = b, min(2 * b, maxcut)
        if b <= maxcut and suffix(n - b) <= tau_units:
            a = b
        else:
            while b - a > 1:
                m = (a + b) // 2
                if suffix(n - m) <= tau_units:
                    a = m
                else:
                    b = m
        hi = n - 1 - a
        acc_hi = suffix(hi + 1)
        if lo == 0 and hi == n - 1:
            return _Chain(limbs, total, self.offset, self.bits, self.inf, self.kind)
        kept = limbs[lo:hi + 1]
        inf = self.inf
        moved = acc_lo if self.kind == "upper" else acc_hi
        if moved:
            kept = _add_at(kept, 0 if self.kind == "upper" else hi - lo, moved)
        kept = _strip_top_zeros(kept)
        if self.kind == "upper":
            inf += acc_hi
        return _Chain(kronecker.trim_limbs(kept), total - acc_hi if self.kind == "upper" else total - acc_lo,
                      self.offset + lo, self.bits, inf, self.kind)


def _strip_top_zeros(limbs: np.ndarray) -> np.ndarray:
    """The rows up to the last non-zero one (a polynomial's coefficients)."""
    nz = np.flatnonzero(limbs.any(axis=1))
    return limbs[: nz[-1] + 1] if nz.size else limbs[:0]


def _add_at(limbs: np.ndarray, k: int, v: int) -> np.ndarray:
    """A copy with v added to entry k (exact, widening the limbs if needed)."""
    cur = sum(int(x) << (64 * j) for j, x in enumerate(limbs[k]))
    row = kronecker.from_ints([cur + v])
    L = max(limbs.shape[1], row.shape[1])
    out = np.zeros((limbs.shape[0], L), dtype=kronecker.LIMB)
    out[:, :limbs.shape[1]] = limbs
    out[k, :] = 0
    out[k, :row.shape[1]] = row[0]
    return out


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


# ---------------------------------------------------------------------------
# the accountant
# ---------------------------------------------------------------------------


def as_subsampled_gaussian(mechanism: object) -> tuple[SubsampledGaussian, int]:
    """Map a mechanism (this module's pair or a catalog gaussian / gaussian_dp /
    subsample(gaussian) / compose(...)) to (SubsampledGaussian, count); InputError otherwise."""
    from certdp.mechanisms.basic import Gaussian, GaussianDP  # noqa: PLC0415
    from certdp.mechanisms.transforms import Compose, Subsample  # noqa: PLC0415

    if isinstance(mechanism, SubsampledGaussian):
        return mechanism, 1
    if isinstance(mechanism, Gaussian):
        return SubsampledGaussian(Fraction(mechanism.sigma) / Fraction(mechanism.sensitivity)), 1
    if isinstance(mechanism, GaussianDP):
        return SubsampledGaussian(1 / Fraction(mechanism.mu)), 1
    if isinstance(mechanism, Subsample):
        if isinstance(mechanism.mechanism, Subsample) and type(mechanism.mechanism) is not type(mechanism):
            raise InputError("Poisson subsampling and sampling without replacement cannot be nested")
        inner, k = as_subsampled_gaussian(mechanism.mechanism)
        if k != 1:
            raise InputError("the PLD accountant cannot subsample a composition")
        return SubsampledGaussian(inner.sigma, inner.rate * Fraction(mechanism.rate)), 1
    if isinstance(mechanism, Compose):
        inner, k = as_subsampled_gaussian(mechanism.mechanism)
        return inner, k * int(mechanism.k)
    raise InputError(
        f"the PLD accountant's Gaussian path handles (subsampled) Gaussian mechanisms, not {mechanism!r}"
    )


def to_source(mechanism: object) -> tuple[object, int]:
    """(one-step source, count) for any mechanism: (Poisson-subsampled) Gaussians take
    the tuned Gaussian-mixture path of this module, everything else the generic
    loss-law path (:mod:`certdp.analyses.accountants.discretise`)."""
    from certdp.analyses.accountants.discretise import LawSource, law_source  # noqa: PLC0415

    if isinstance(mechanism, (SubsampledGaussian, LawSource)):
        return mechanism, 1  # (before the catalog import: no sympy for a bare DP-SGD answer)
    from certdp.mechanisms.transforms import Compose  # noqa: PLC0415

    try:
        return as_subsampled_gaussian(mechanism)
    except InputError:
        pass
    if isinstance(mechanism, Compose):
        inner, k = to_source(mechanism.mechanism)
        return inner, k * int(mechanism.k)
    return law_source(mechanism), 1


def supports(mechanism: object) -> bool:
    """Can the PLD accountant compose this mechanism?"""
    try:
        to_source(mechanism)
    except InputError:
        return False
    return True


def _source_range(src: object, z: float, tail: float) -> Fraction:
    """Width of one step's loss range plus 1 (grid sizing only; exact for the
    Gaussian path, where σ may be 1e-300)."""
    if isinstance(src, SubsampledGaussian):
        return (1 + 2 * Fraction(z) * src.sigma) / (2 * src.sigma**2) + 1
    lo, hi = src.range_f(tail)  # type: ignore[attr-defined]
    return Fraction(hi - lo + 1)


def _gcd(a: Fraction, b: Fraction) -> Fraction:
    return Fraction(math.gcd(a.numerator * b.denominator, b.numerator * a.denominator),
                    a.denominator * b.denominator)


#: The default loss grid step (widened automatically for tiny σ, see PLDAccountant.h).
DEFAULT_H = Fraction(1, 1024)
#: The screening grid of a second relation is SCREEN_FACTOR·h (:meth:`PLDAccountant._screened`);
#: it is tried when the first relation's composed PLD has at least SCREEN_MIN_LENGTH points
#: and some source is composed SCREEN_MIN_STEPS times or more.
SCREEN_FACTOR = 4
SCREEN_MIN_LENGTH = 1 << 14
SCREEN_MIN_STEPS = 256
#: The automatic grid keeps one step's loss range within this many grid points.
AUTO_GRID_POINTS = 2**16
#: ... and gives a loss law's range at least this many (finer grid, down to DEFAULT_H/64).
#: 512 until the lower discretisation merged each atom with its neighbours (the atoms
#: had lost up to h per step); at 128 compose(laplace(scale=5), k=1000) is 0.0056 wide
#: (default target 0.04) in half the time, and the narrowing loop refines where needed.
MIN_LAW_POINTS = 128
#: ... and puts at least this many grid steps in the spread (standard deviation) of a
#: subsampled Gaussian's one-step loss, down to DEFAULT_H / 2**MAX_SPREAD_HALVINGS.  A
#: small rate q concentrates the loss within ~q·√(e^{1/σ²} − 1) of 0, and the relative
#: width of the two-sided ε is about a function of h / spread (DP-SGD bench, T = 100 and
#: 10⁴: 0.3–0.7 % at h/spread = 0.14–0.23, 2–5 % at 0.43–0.57): a grid step fixed at
#: DEFAULT_H left σ = 9.4, q = 0.001 with no lower end at all.
SPREAD_POINTS = 4
MAX_SPREAD_HALVINGS = 10


def _gaussian_spread_f(sg: "SubsampledGaussian", z: float) -> tuple[float, float]:
    """Float guide (grid sizing only): (spread, span) of one step's loss for a
    subsampled Gaussian with q < 1 — spread ≈ q·√(e^{1/σ²} − 1), the standard
    deviation of q(e^{(2x−1)/(2σ²)} − 1) under N(0, σ²) (the loss for small q), and
    span the widest loss range of the two relations within z standard deviations."""
    s, q = float(sg.sigma), float(sg.rate)
    inv = 1 / (s * s) if s > 1e-150 else math.inf
    spread = q * math.sqrt(math.expm1(inv)) if inv < 700 else math.inf
    span = 0.0
    for rel in ("remove", "add"):
        pair = sg.pair(rel)
        lo_x, hi_x = pair.x_quantiles_f(z)
        a, b = sorted((pair.loss_f(lo_x), pair.loss_f(hi_x)))
        lr = pair.loss_range_f()
        span = max(span, min(b, lr[1]) - max(a, lr[0]))
    return spread, span


class _Relations(dict):
    """relation → composed PLD, each built by ``build`` when first looked up."""

    def __init__(self, build: Callable[[Relation], "DiscretePLD"]) -> None:
        super().__init__()
        self._build = build

    def __missing__(self, rel: Relation) -> "DiscretePLD":
        if rel not in ("add", "remove"):
            raise KeyError(rel)
        pld = self[rel] = self._build(rel)
        return pld


class PLDAccountant(Accountant):
    """Certified PLD accountant for any mix of mechanisms (see module doc).

    Each mechanism becomes a one-step source (:func:`to_source`): Poisson-subsampled
    Gaussians the Gaussian-mixture path of this module, every other mechanism a
    loss law (:mod:`certdp.analyses.accountants.discretise`).  ``h`` — loss grid
    step (exact; default: see :attr:`h`); ``tau`` — tail mass moved per product;
    ``bits`` — fixed-point bits (default chosen from the grid size and τ).
    The lower PLDs exist only when every source is two-sided (a pair built from an
    upper-bound profile bounds from above only): :attr:`two_sided`.
    """

    def __init__(self, h: object | None = None, tau: object = Fraction(1, 10**14),
                 bits: int | None = None, lower: bool = True,
                 items: tuple[tuple[object, int], ...] = ()) -> None:
        self.h_given = None if h is None else exact(h, "h")
        if self.h_given is not None and self.h_given <= 0:
            raise InputError(f"grid step h must be > 0, got {h!r}")
        self.tau = exact(tau, "tau")
        if not 0 <= self.tau < 1:
            raise InputError(f"tau must lie in [0, 1), got {tau!r}")
        self.bits = bits
        self.with_lower = lower
        self.items = tuple(items)
        self._cache: dict | None = None
        self._coarse: PLDAccountant | None = None  # the screening grid (:meth:`_screened`)
        self._shared: dict = {}  # item index → upper one-step PLDs of both relations
        self._step_cache: dict = {}  # (relation, kind) → the items' one-step PLDs
        self._by_tau: dict = {}  # τ → this composition truncated at τ (:meth:`_with_tau`)

    def compose(self, mechanism: object, count: int = 1) -> "PLDAccountant":
        count = check_count(count)
        m, k = to_source(mechanism)
        if isinstance(m, SubsampledGaussian) and m.sigma < MIN_SIGMA:
            # the float search of the one-step grid squares σ: below this it underflows
            raise InputError("the noise sigma is below the range of the PLD accountant "
                             "(sigma >= 1e-30); with so little noise no useful eps exists")
        return PLDAccountant(self.h_given, self.tau, self.bits, self.with_lower,
                             self.items + ((m, k * count),))

    @property
    def two_sided(self) -> bool:
        """Are lower PLDs computed (asked for, and every source two-sided)?"""
        return self.with_lower and all(getattr(m, "two_sided", True) for m, _ in self.items)

    @property
    def exact_grid(self) -> bool:
        """Is the discretisation exact (every one-step law a lattice law whose
        losses all lie on the grid)?  Then only the fixed-point rounding of the
        masses separates the lower and upper PLDs."""
        h = self.h
        for m, _ in self.items:
            lat = getattr(m, "lattice", None)
            if lat is None or (lat / h).denominator != 1:
                return False
        return bool(self.items)

    @property
    def method(self) -> str:
        """What the accountant computes, for an answer's method line."""
        paths = {"Gaussian-mixture" if isinstance(m, SubsampledGaussian) else getattr(m, "path", None) or
                 ("profile pair, upper bound only" if not getattr(m, "two_sided", True) else "loss law")
                 for m, _ in self.items}
        return f"certified PLD accountant (h = {self.h}; {', '.join(sorted(paths))})"

    def _tail(self) -> float:
        """Mass a one-step grid may leave outside its float range guide (it is still
        accounted for: moved up, to +∞ or, for the lower PLD, dropped)."""
        return max(float(self.tau), 1e-300) * 1e-3

    @property
    def h(self) -> Fraction:
        """The loss grid step: as given; else, when every source is a lattice law
        (all losses in h0·Z, e.g. pure DP with rational ε0) the common lattice
        step, so the discretisation is exact; else :data:`DEFAULT_H` widened by
        powers of 2 until one step's loss range needs at most
        :data:`AUTO_GRID_POINTS` points (a small σ has a loss range ~1/(2σ²): at
        σ = 0.01, 5,000 wide).  Any grid is sound; the width of ε grows roughly
        like (steps)·h."""
        if self.h_given is not None:
            return self.h_given
        z, tail = self._z(), self._tail()
        span = max((_source_range(m, z, tail) for m, _ in self.items), default=Fraction(0))
        laws = [m for m, _ in self.items
                if not isinstance(m, SubsampledGaussian) and not getattr(m, "adapts_to_grid", False)]
        # a law with a narrow loss range (small sampling rate, large Laplace scale) gets
        # at least MIN_LAW_POINTS grid points: the lower PLD moves each loss down by < h
        target = DEFAULT_H
        if laws:
            narrow = min(_source_range(m, z, tail) - 1 for m in laws)
            while (narrow / target < MIN_LAW_POINTS and target > DEFAULT_H / 64
                   and span / (target / 2) <= AUTO_GRID_POINTS):
                target /= 2
        # atoms on grid points: the common anchor (every atom loss of every law in
        # anchor·Z), divided down to about the target; a pure lattice law is then exact
        anchor: Fraction | None = None
        for m in laws:
            step = getattr(m, "anchor", None)
            if step is None:
                if m.base is not None and not m.base.atoms():  # type: ignore[attr-defined]
                    continue  # no atoms to place
                anchor = None
                break
            anchor = step if anchor is None else _gcd(anchor, step)
        else:
            if anchor is not None:
                lattice_only = all(getattr(m, "lattice", None) is not None or getattr(m, "adapts_to_grid", False)
                                   for m, _ in self.items)
                cap = target * 8 if lattice_only else target
                step = anchor / max(1, math.ceil(anchor / cap))
                if span / step <= AUTO_GRID_POINTS:
                    return step
        # a subsampled Gaussian with a narrow loss spread (small rate) gets
        # SPREAD_POINTS grid steps in it
        for m, _ in self.items:
            if isinstance(m, SubsampledGaussian) and m.rate < 1:
                spread, span_m = _gaussian_spread_f(m, z)
                span_all = max([span_m] + [float(_source_range(o, z, tail)) for o in laws])
                while (target > spread / SPREAD_POINTS and target > DEFAULT_H / 2**MAX_SPREAD_HALVINGS
                       and span_all / float(target / 2) <= AUTO_GRID_POINTS):
                    target /= 2
        if target < DEFAULT_H:
            return target
        ratio = span / (AUTO_GRID_POINTS * DEFAULT_H)
        if ratio <= 1:
            return DEFAULT_H
        k = max(0, ratio.numerator.bit_length() - ratio.denominator.bit_length() + 1)  # 2^k >= ratio
        return DEFAULT_H * 2**k

    def discretisation(self) -> dict:
        """The discretisation, as a certificate's evidence ``pld`` states it:
        grid step h, truncation τ, range guide z (standard deviations), fixed-point bits."""
        return {"h": str(self.h), "tau": str(self.tau), "z": str(self._z()), "bits": self._bits_for()}

    # -- computation ------------------------------------------------------
    def _bits_for(self) -> int:
        if self.bits is not None:
            return int(self.bits)
        # enough bits that rounding dust (1 unit per coefficient per product) stays
        # far below tau: bits >= log2(n / tau) + margin, n a guide to the composed
        # length: k steps of loss range R span at most k·R, and after the truncation
        # at τ about √k·R (the spread of a sum grows like √k): 4√k·R + R is taken.
        # (A guide only: the rounding is one-sided whatever the bits.)
        span = 0.0
        z, tail = self._z(), self._tail()
        for m, k in self.items:
            if isinstance(m, SubsampledGaussian):
                sig = float(m.sigma)  # a tiny σ (1e-300) has an unbounded span: capped below
                one = 2.0 / sig**2 if sig > 1e-100 else math.inf
            else:
                one = float(_source_range(m, z, tail))
            span += min(k, 4 * math.sqrt(k) + 1) * one + 40.0
        n = max(1e4, min(span, 1e7) / float(min(self.h, Fraction(10**300))))
        tau = float(self.tau) if self.tau > 0 else 2.0 ** -60
        return int(math.ceil(math.log2(n / tau))) + 8

    def _z(self) -> float:
        """Range of the one-step grid in standard deviations: beyond it the
        Gaussian mass is < τ/1000 (it is still accounted for, not dropped)."""
        tau = max(float(self.tau), 1e-300)
        z = 1.0
        while math.erfc(z / math.sqrt(2)) / 2 > tau * 1e-3:
            z += 0.25
        return z

    def _coarsen(self) -> float:
        """θ of the one-step cells (:func:`_coarse_indices`): a cell may span several
        grid steps where its float mass times its loss width is <= θ = τ/100 (τ follows
        the size of the answer, :meth:`_tau_for`).  Measured: at σ = 1.1, q = 0.001,
        T = 100, h = 1/4096 the one-step work drops 3x (0.46 s -> 0.15 s) and ε does not
        move in 10 digits; θ = 10 τ widened a δ of 2.5e-12 by 1 %."""
        return float(self.tau) / 100

    def _one_step(self, m: object, rel: Relation, kind: Kind, bits: int) -> DiscretePLD:
        if isinstance(m, SubsampledGaussian):
            if kind == "upper":
                return upper_one_step(m.pair(rel), self.h, bits, self._z())
            return lower_one_step(m.pair(rel), self.h, bits, self._z(), self._coarsen())
        coeffs, offset, inf = m.one_step(rel, kind, self.h, bits, self._tail(), MAX_GRID_POINTS)  # type: ignore[attr-defined]
        return DiscretePLD(fmpz_poly(coeffs), offset, self.h, bits, inf, kind)

    def _compute(self) -> dict:
        if self._cache is not None:
            return self._cache
        if not self.items:
            raise InputError("nothing composed yet")
        bits = self._bits_for()
        # a Gaussian-mixture source's upper one-step PLDs of both relations share
        # their boundaries and Gaussian masses (the add pair mirrors the remove pair)
        shared = {idx: upper_one_steps(m, self.h, bits, self._z(), self._coarsen())
                  for idx, (m, _) in enumerate(self.items) if isinstance(m, SubsampledGaussian)}
        # each relation's upper PLD is composed when first asked for (an ε or δ answer
        # may settle one relation on a coarser grid: :meth:`_screened`), and the lower
        # PLDs on demand (:meth:`_lower`): an answer needs the lower PLD of a relation
        # only when its upper bound exceeds the other's lower bound
        self._shared = shared
        upper = _Relations(lambda rel: self._composed(rel, "upper", bits))
        out: dict = {"upper": upper, "lower": {}, "bits": bits}
        self._cache = out
        return out

    def _steps(self, rel: Relation, kind: Kind) -> list[DiscretePLD]:
        """The items' one-step PLDs of ``rel`` (built once per relation and kind)."""
        key = (rel, kind)
        steps = self._step_cache.get(key)
        if steps is None:
            bits = self._compute()["bits"]
            steps = [self._shared[idx][rel] if kind == "upper" and idx in self._shared
                     else self._one_step(m, rel, kind, bits) for idx, (m, _) in enumerate(self.items)]
            self._step_cache[key] = steps
        return steps

    def _mirrors(self, rel: Relation, kind: Kind) -> DiscretePLD | None:
        """The other relation's composed PLD of this kind when both relations have the
        very same one-step PLDs (a symmetric mechanism: Laplace, randomized response,
        pure DP, ...): the same integer products then give the same composition."""
        other: Relation = "remove" if rel == "add" else "add"
        done = self._compute()[kind].get(other)
        if done is None:
            return None
        mine, theirs = self._steps(rel, kind), self._steps(other, kind)
        same = all(a.poly == b.poly and a.offset == b.offset and a.inf == b.inf and a.h == b.h
                   and a.bits == b.bits and a.kind == b.kind for a, b in zip(mine, theirs))
        return done if same else None

    def _screened(self, rel: Relation, value: Callable[["DiscretePLD"], arb], bound: arb) -> arb | None:
        """An upper bound ≤ ``bound`` on ``rel``'s answer (``value`` of its upper PLD,
        an ε or δ upper end) from the upper PLD on the grid :data:`SCREEN_FACTOR`·h, or
        None when that grid does not show it (then the caller composes ``rel`` on h).
        Any grid gives a certified upper bound, so when ``rel``'s bound on the coarse
        grid is already below the other relation's, the max over the relations is the
        other's and ``rel``'s fine PLD is not needed (the add relation of a DP-SGD
        answer: 548.8 against 670.8 at σ 1.1, q 0.32768, T 10⁴)."""
        c = self._compute()
        if rel in c["upper"]:
            return None
        other = "remove" if rel == "add" else "add"
        if self._mirrors(rel, "upper") is not None:
            return None  # the same PLD as the other relation's: no screen needed
        if c["upper"][other].length < SCREEN_MIN_LENGTH or max(k for _, k in self.items) < SCREEN_MIN_STEPS:
            # a short composition, or few steps (the coarse grid's one-step PLDs would
            # cost more than the products they save): compose rel on the grid
            return None
        if self._coarse is None:
            self._coarse = PLDAccountant(self.h * SCREEN_FACTOR, self.tau, None, False, self.items)
        try:
            with working_precision(PREC):
                v = value(self._coarse._compute()["upper"][rel])
        except (InputError, PrecisionError):
            return None
        return v if v <= bound else None

    def _upper_ends(self, value: Callable[["DiscretePLD"], arb]) -> dict:
        """``value`` (an upper end) per relation: remove on the grid, add screened on a
        coarser grid first (:meth:`_screened`)."""
        c = self._compute()
        his = {"remove": value(c["upper"]["remove"])}
        v = self._screened("add", value, his["remove"])
        his["add"] = v if v is not None else value(c["upper"]["add"])
        return his

    def _composed(self, rel: Relation, kind: Kind, bits: int) -> DiscretePLD:
        """The composition of the items' one-step PLDs of ``rel``."""
        twin = self._mirrors(rel, kind)
        if twin is not None:
            return twin
        tau_units = int(self.tau * (1 << bits))
        steps = self._steps(rel, kind)
        if len(steps) == 1:
            return steps[0].power(self.items[0][1], tau_units)
        acc: _Chain | None = None  # several sources: the products stay on limbs throughout
        for one, (_, k) in zip(steps, self.items):
            pk = _Chain.of(one).power(k, tau_units)
            acc = pk if acc is None else acc.combine(pk, tau_units)
        assert acc is not None
        return acc.pld(self.h)

    def _lower(self, rel: Relation) -> DiscretePLD:
        """The composed lower PLD of ``rel`` (two-sided accountants only), built once."""
        c = self._compute()
        if not self.two_sided:
            raise InputError("this accountant has no lower PLDs (an upper-bound-only source)")
        pld = c["lower"].get(rel)
        if pld is None:
            pld = c["lower"][rel] = self._composed(rel, "lower", c["bits"])
        return pld

    def plds(self, kind: Kind = "upper") -> dict:
        """The composed DiscretePLD per relation ("add", "remove")."""
        c = self._compute()
        if kind == "lower" and self.two_sided:
            for rel in ("add", "remove"):
                self._lower(rel)
        if kind == "upper":  # both built (the cache composes a relation when first asked)
            return {rel: c["upper"][rel] for rel in ("add", "remove")}
        return c[kind]

    def _with_tau(self, tau: Fraction) -> "PLDAccountant":
        """The same composition with truncation τ (and the bits it needs), built once per
        τ: a profile scanned at many ε (a plot, a witness search) reaches the same smaller
        τ again and again."""
        acc = self._by_tau.get(tau)
        if acc is None:
            acc = self._by_tau[tau] = PLDAccountant(self.h_given if self.h_given is not None else self.h, tau,
                                                    None, self.with_lower, self.items)
        return acc

    def _tau_for(self, target: Fraction) -> Fraction | None:
        """A truncation 10^-j <= target/(10^4·K) when the current τ is too coarse for a
        quantity of size ``target``, else None; K = Σ k, the number of composed steps.

        The mass each product moves to +∞ is at most τ, but a squaring doubles the mass
        at +∞ (1 − (1 − m)² ≈ 2m): a truncation at the power p ends up as about τ·K/p,
        and all of them about τ·K.  Measured (σ 0.6, q 256/60000, T 7031, τ 10⁻²²):
        the upper PLD's mass at +∞ 7.0e-19 = 7025 τ, as large as the δ 1.1e-18 asked for:
        the ε enclosure was [21.20, 21.64] on every grid down to 1/16384."""
        want = target / (10**4 * max(1, sum(k for _, k in self.items)))
        if self.tau <= want or want <= Fraction(1, 10**250):
            return None
        j = 1
        while Fraction(1, 10**j) > want:
            j += 1
        return Fraction(1, 10**j)

    def delta(self, eps: object) -> Enclosure:
        """Enclosure of δ(ε); a tiny δ (below 10^4·K·τ, K steps: :meth:`_tau_for`) is
        recomputed with a smaller τ, so it keeps relative accuracy.  While the lower end is 0 the upper end is mostly
        the truncated mass, which says little about δ's size: τ then drops by 10^8 more
        (δ_{√2}(22) ≈ 1.2e-24: τ 1e-14 → 1e-26 → 1e-28 instead of five compositions),
        unless ε lies beyond every finite loss of the composition."""
        e = check_eps(eps)
        acc = self
        enc = acc._delta(e)
        for _ in range(8):  # the truncated tails may dominate the first answer: repeat
            tau = acc._tau_for(dyadic_to_fraction(enc.hi)) if enc.hi > 0 else None
            if tau is None:
                break
            if enc.lo == 0 and self.two_sided and e < acc.top_loss():
                tau /= 10**8  # (beyond the top loss only the mass at +∞ is left: no jump)
            acc = acc._with_tau(tau)
            enc = acc._delta(e)
        return enc

    def delta_here(self, eps: object) -> Enclosure:
        """Enclosure of δ(ε) from this accountant's own discretisation (no smaller τ for a
        tiny δ, unlike :meth:`delta`): what a certificate stating this discretisation as
        its evidence re-derives."""
        return self._delta(check_eps(eps))

    def _delta(self, e: Fraction) -> Enclosure:
        c = self._compute()
        with working_precision(PREC):
            eb = to_ball(e)
            his = self._upper_ends(lambda pld: upper_bound(pld.delta_ball(eb, e)))
            hi = _amax(his.values())
            lo = arb(0)
            if self.two_sided:
                for r in _by_upper(his):
                    if not _may_raise(his[r], lo, hi):
                        continue
                    v = lower_bound(self._lower(r).delta_ball(eb, e))
                    lo = v if v > lo else lo
            hi = hi if hi < 1 else arb(1)
        return Enclosure(lo, hi)

    def top_loss(self) -> Fraction:
        """The largest finite loss of the upper PLDs (both relations): beyond it δ(ε)
        is the mass at +∞ alone, which no finer grid changes."""
        c = self._compute()
        plds = (c["upper"][r] for r in ("add", "remove"))
        return max((pld.offset + len(pld.poly.coeffs()) - 1) * pld.h for pld in plds)

    def delta_at_infinity(self) -> Enclosure:
        c = self._compute()
        with working_precision(PREC):
            hi = _amax(upper_bound(to_ball(c["upper"][r].inf) * arb(2) ** (-c["bits"]))
                      for r in ("add", "remove"))
        return Enclosure(arb(0), hi)

    def epsilon(self, delta: object, **_: object) -> Enclosure:
        """Enclosure of ε*(δ) = min{ε >= 0 : δ(ε) <= δ}: the upper end solves
        F_ε(upper PLD) = δ exactly on the grid cell, the lower end F_ε(lower) = δ.
        A δ below 10^4·K·τ (K composed steps, :meth:`_tau_for`) is answered with a
        smaller τ (the truncated tail moved to +∞ must stay far below δ)."""
        d = check_delta(delta)
        tau = self._tau_for(d)
        if tau is not None:
            return self._with_tau(tau).epsilon(d)
        c = self._compute()
        with working_precision(PREC):
            db = to_ball(d)
            try:
                his = self._upper_ends(lambda pld: pld.epsilon_bounds(db)[1])
            except InputError:
                raise self._no_finite_eps(d) from None
            hi = _amax(his.values())
            hi = hi if hi > 0 else arb(0)
            lo = arb(0)
            if self.two_sided:
                # ε* = max over the relations: one relation's lower end is a lower end
                for r in _by_upper(his):
                    if not _may_raise(his[r], lo, hi):
                        continue
                    try:
                        v = self._lower(r).epsilon_bounds(db)[0]
                    except InputError:
                        v = arb(0)
                    lo = v if v > lo else lo
        if lo > hi:  # cannot happen for valid bounds
            raise PrecisionError(f"inconsistent eps bounds {lo} > {hi}")
        return Enclosure(lo, hi)


    def _no_finite_eps(self, d: Fraction) -> CertdpError:
        """The error when the upper PLDs keep mass >= δ at +∞: a proof that no finite ε
        exists when the lower PLDs keep it too, else a statement of what blocked."""
        from certdp.mechanisms.params import DeltaUnattainable  # noqa: PLC0415

        c = self._compute()
        scale = arb(2) ** (-c["bits"])
        if self.two_sided and any(to_ball(self._lower(r).inf) * scale > to_ball(d) for r in ("add", "remove")):
            return DeltaUnattainable(f"no finite eps achieves delta={format_fraction(d)}: the composed loss "
                                     "has more mass than that at +infinity (proved by the lower PLD)")
        up = _amax(upper_bound(to_ball(c["upper"][r].inf) * scale) for r in ("add", "remove"))
        why = ("the profile pairs keep the tail of their sampled profiles there" if not self.two_sided
               else "the truncated tails and rounding sit there")
        return BudgetExceeded(f"no finite eps could be certified for delta={format_fraction(d)}: the upper PLD "
                              f"puts mass up to {up.mid().str(3, radius=False)} at +infinity ({why}); "
                              "the true eps may be finite but beyond this discretisation")


def format_fraction(q: Fraction) -> str:
    """Short exact text of a rational for messages."""
    from certdp.mechanisms.format import format_number  # noqa: PLC0415

    return format_number(q)


def _may_raise(his_r: arb, lo: arb, hi: arb) -> bool:
    """Whether a relation with upper end ``his_r`` is worth its lower PLD, given the
    lower end ``lo`` found so far and the overall upper end ``hi``.  The answer is the
    max over the relations, so any one relation's lower end is already a certified
    lower end: this only decides tightness, never soundness.  Skipped once a lower end
    lo > 0 is known: for a relation whose upper end is below hi, its lower end sits
    about its own width below his_r, i.e. below lo when its width is like the top
    relation's.  Measured (DP-SGD, δ 10⁻⁵, the add relation's lower end against
    remove's): σ 9.4, q 0.001, T 10⁵: 0.10394 < 0.10406; σ 9.4, q 0.01, T 10⁴: 0.3602 <
    0.3617; σ 2, q 0.001, T 10⁴ and 10⁵: 0 < 0.149 and 0 < 0.517; σ 1.1, q 0.001, T 10⁵:
    0.718 < 1.383 — never higher, while its lower PLD cost 25–40 % of the answer."""
    return not (lo > 0 and his_r < hi)


def _by_upper(his: dict) -> list:
    """The relations, largest upper bound first (exact balls; ties keep the order)."""
    rels = list(his)
    if len(rels) == 2 and his[rels[1]] > his[rels[0]]:
        rels.reverse()
    return rels


def _amax(xs: Iterable[arb]) -> arb:
    """The maximum of exact balls (exact comparisons)."""
    best: arb | None = None
    for x in xs:
        if best is None or x > best:
            best = x
    assert best is not None
    return best
