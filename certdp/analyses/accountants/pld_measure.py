"""The measures of the certified PLD accountant (:mod:`certdp.analyses.accountants.pld`).

* the dominating pairs of a (Poisson-subsampled) Gaussian: mixtures of Gaussians with a
  monotone privacy loss (:class:`SubsampledGaussian`, :class:`MixturePair`);
* :class:`DiscretePLD`: a non-negative measure on the grid h·Z plus an atom at +∞ whose
  masses are fixed-point integers (units 2^-bits), and :class:`_Chain`, its composition.

Composition adds independent losses (convolution).  It is EXACT integer polynomial
multiplication (one FLINT big-integer product per step by Kronecker substitution,
:mod:`certdp.numerics.kronecker`); after each product the coefficients are divided by
2^bits rounding UP for an upper PLD and DOWN for a lower one, and tail mass below τ moves
to +∞ or up to the first kept point (upper) or is dropped or moved down (lower).
F_ε(ν) = ∫ (1 − e^{ε−y})⁺ dν(y) is increasing in ν pointwise and in the position of mass,
and both orders are preserved by convolution, so every such step keeps an upper PLD an
upper bound and a lower PLD a lower bound of δ(ε) (Gomez et al. 2025 Thm A.7).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

import numpy as np
from flint import arb, fmpz, fmpz_poly

from certdp.errors import InputError, PrecisionError, check_budget
from certdp.numerics import kronecker
from certdp.numerics.ball import lower_bound, to_ball, upper_bound, working_precision
from certdp.numerics.exact import exact
from certdp.numerics.normal import Phi_ball, Phi_upper_ball

Relation = Literal["add", "remove"]
Kind = Literal["upper", "lower"]

#: Working precision (bits) of the ε/δ evaluations in balls.
PREC = 128


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
        """:meth:`DiscretePLD.power` on limbs.  (The one-step measure is not truncated
        here: a subsampled Gaussian's upper one-step PLD is cut before it comes here by the
        rule its certificates state, :mod:`certdp.analyses.accountants.onestep_cut`, and
        its lower one-step PLD is τ-truncated in ``PLDAccountant._composed``.)"""
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
