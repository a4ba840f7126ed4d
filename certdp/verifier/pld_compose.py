"""Composition and evaluation of integer PLDs on a grid, rounded outward: the checker's
own (issue 36), shared by the Gaussian (:mod:`certdp.verifier.check_pld`), law
(:mod:`certdp.verifier.check_law_pld`) and profile (:mod:`certdp.verifier.check_profile_pld`)
re-derivations.  A PLD is (offset, masses c_k >= 0 in units of 2^-bits, mass at +∞) on the
grid y_k = (offset + k)·h.  Composition multiplies the masses exactly (integers, Kronecker
packing) and rounds each product up (an upper PLD) or down (a lower one); F_ε of the result
is Σ_{y_k > ε} c_k (1 − e^{ε−y_k}) + c_∞, times 2^-bits, in balls.
"""

from __future__ import annotations

import math
from fractions import Fraction

from flint import arb, fmpz

from certdp.verifier.errors import InputError, check_budget
from certdp.verifier.ball import to_ball

#: Limits on a stated discretisation (a certificate cannot ask for more work).
MAX_BITS = 1024
MAX_GRID = 1 << 22
MAX_COUNT = 10**9


def _compose_lower(step: tuple[int, list[int], int], count: int, bits: int, tau: int) -> tuple[int, list[int], int]:
    """count-fold composition rounded down: products divided by 2^bits with floor,
    tails of mass <= tau at both ends dropped (every step can only lower F_ε); the mass
    at +∞ of a product is a_∞(b_fin + b_∞) + a_fin·b_∞, rounded down."""
    return compose(step, count, bits, tau, up=False)


def _product(a: tuple[int, list[int], int], b: tuple[int, list[int], int], bits: int,
             tau: int) -> tuple[int, list[int], int]:
    """The product of two PLDs (offset, masses, mass at +∞), rounded up and truncated."""
    return _Packed.of(a, bits).times(_Packed.of(b, bits), tau).unpack()


def compose(step: tuple[int, list[int], int], count: int, bits: int, tau: int,
            up: bool = True) -> tuple[int, list[int], int]:
    """count-fold self-composition by left-to-right square and multiply (square for
    each binary digit of ``count`` after the first, compose with ``step`` where it is 1);
    rounded up, or with ``up=False`` down (:func:`_compose_lower`)."""
    one = result = _Packed.of(step, bits)
    digits = bin(count)[3:]
    for done, d in enumerate(digits):
        check_budget("re-composing the PLD", done, len(digits))
        result = result.times(result, tau, up)
        if d == "1":
            result = result.times(one, tau, up)
    return result.unpack()


def cut_step(step: tuple[int, list[int], int], cut: tuple[int, int, int, int]) -> tuple[int, list[int], int]:
    """The one-step cut shared by the answer and the checker (issue 37): an upper one-step
    PLD (offset, masses, mass at +∞) keeps its masses at grid indices lo..hi; those below lo
    are replaced by ``below`` units added at lo, those above hi and the mass at +∞ by
    ``above`` units at +∞ (lo, hi, below, above as evidence ``pld.cut`` states them;
    InputError when a replaced tail exceeds the stated one).  Sound for any cut: F_ε(ν) is,
    at every real ε, positive linear in ν with an integrand non-decreasing in the loss (1 at
    +∞), so moving mass up and adding mass only raise it, and the composition (bilinear,
    non-negative) keeps the bound."""
    lo, hi, below, above = cut
    offset, cs, inf = step
    a, b = min(max(lo - offset, 0), len(cs)), min(max(hi - offset + 1, 0), len(cs))  # cs[a:b] in [lo, hi]
    if sum(cs[:a]) > below or sum(cs[b:]) + inf > above:
        raise InputError("evidence.pld.cut states a tail mass below the re-derived one-step PLD's")
    kept = ([0] * (a + offset - lo) + list(cs[a:b]) + [0] * (hi - lo + 1))[:hi - lo + 1]
    kept[0] += below
    return lo, kept, above


class _Packed:
    """A PLD (offset, masses c_0..c_{n−1} >= 0, mass at +∞) with its masses packed into
    one integer N = Σ c_i 2^{k·i}.  One GMP product of two such integers is the polynomial
    product of the masses (Kronecker substitution) when no product coefficient reaches
    2^k: every one is at most Σa·Σb, and :meth:`times` widens k until Σa·Σb + 2^b < 2^k.
    Each coefficient is then divided by 2^b rounding up, ⌈c/2^b⌉ = ⌊(c + 2^b − 1)/2^b⌋, by
    one addition of (2^b − 1)·Σ_i 2^{k·i} (no slot overflows), one mask of every slot's low
    b bits and one shift; the mass at +∞ of the product, a_∞(Σb + b_∞) + Σa·b_∞, is rounded
    up; then :meth:`_truncate` moves the bottom tail (mass <= τ) up onto the first kept
    point and the top tail to +∞.  Rounded down (``up=False``, a lower PLD) there is no
    addition, the mass at +∞ is rounded down and both tails are dropped.  Exact integers
    throughout: only the layout is packed."""

    __slots__ = ("offset", "N", "n", "total", "inf", "bits", "k")

    def __init__(self, offset: int, N: fmpz, n: int, total: int, inf: int, bits: int, k: int) -> None:
        self.offset, self.N, self.n, self.total, self.inf, self.bits, self.k = offset, N, n, total, inf, bits, k

    @staticmethod
    def of(pld: tuple[int, list[int], int], bits: int, k: int = 0) -> "_Packed":
        offset, cs, inf = pld
        cs = [int(c) for c in cs]
        while cs and cs[-1] == 0:
            cs.pop()
        if any(c < 0 for c in cs):
            raise ValueError("negative mass")
        total = sum(cs)
        k = max(k, 8 * ((2 * total.bit_length() + 2 * bits + 16) // 16 + 1))
        w = k // 8
        N = fmpz(int.from_bytes(b"".join(c.to_bytes(w, "little") for c in cs), "little"))
        return _Packed(offset, N, len(cs), total, int(inf), bits, k)

    def _ones(self, n: int) -> fmpz:
        return fmpz(int.from_bytes((1).to_bytes(self.k // 8, "little") * n, "little"))

    def _slots(self, N: fmpz, start: int, m: int) -> list[int]:
        """Slots start .. start + m − 1 of N."""
        w, k = self.k // 8, self.k
        raw = int((N >> (k * start)) & ((fmpz(1) << (k * m)) - 1)).to_bytes(w * m, "little")
        return [int.from_bytes(raw[i * w:(i + 1) * w], "little") for i in range(m)]

    def unpack(self) -> tuple[int, list[int], int]:
        return self.offset, self._slots(self.N, 0, self.n), self.inf

    def times(self, other: "_Packed", tau: int, up: bool = True) -> "_Packed":
        k, b = self.k, self.bits
        if b != other.bits:
            raise ValueError("incompatible PLDs")
        n = self.n + other.n - 1 if self.n and other.n else 0
        bound = self.total * other.total  # >= every coefficient of the exact product
        if other.k != k or bound + (1 << b) >= 1 << k or (bound >> b) + n >= (1 << k) - 1:
            k = max(k, other.k, 8 * ((bound.bit_length() + n.bit_length() + b + 16) // 8 + 1))
            return _Packed.of(self.unpack(), b, k).times(_Packed.of(other.unpack(), b, k), tau, up)
        ones = self._ones(n)
        P = self.N * other.N + (ones * ((1 << b) - 1) if up else 0)
        P = (P & (ones * ((1 << k) - (1 << b)))) >> b
        if not up:  # floor may zero the top slots: drop them
            n = min(n, (P.bit_length() + k - 1) // k)
        total = int(P % ((1 << k) - 1))  # Σ slots, exact: it is below bound/2^b + n < 2^k − 1
        inf_exact = self.inf * (other.total + other.inf) + self.total * other.inf
        inf = -((-inf_exact) >> b) if up else inf_exact >> b
        return _Packed(self.offset + other.offset, P, n, total, inf, b, k)._truncate(tau, up)

    def _run(self, limit: int, tau: int, down: bool) -> tuple[int, int]:
        """(m, mass): the most slots from the bottom (or ``down``: the top), at most
        ``limit``, whose mass is <= tau.  The mass of m slots is their integer mod 2^k − 1
        (exact: every sum of slots is below 2^k − 1); found by doubling, then bisection."""
        N, k, M = self.N, self.k, (1 << self.k) - 1

        def mass(m: int) -> int:
            part = N >> (k * (self.n - m)) if down else N & ((fmpz(1) << (k * m)) - 1)
            return int(part % M)
        good, bad = 0, 64
        while bad <= limit and mass(bad) <= tau:
            good, bad = bad, 2 * bad
        bad = min(bad, limit + 1)
        while bad - good > 1:
            mid = (good + bad) // 2
            good, bad = (mid, bad) if mass(mid) <= tau else (good, mid)
        return good, mass(good)

    def _truncate(self, tau: int, up: bool) -> "_Packed":
        N, n = self.N, self.n
        if tau <= 0 or n <= 1:
            return self
        lo, pre = self._run(n - 1, tau, False)
        top, cut = self._run(n - 1 - lo, tau, True)
        hi = n - 1 - top
        if lo or hi < n - 1:
            N = ((N >> (self.k * lo)) & ((fmpz(1) << (self.k * (hi - lo + 1))) - 1)) + (pre if up else 0)
        total, inf = (self.total - cut, self.inf + cut) if up else (self.total - cut - pre, self.inf)
        return _Packed(self.offset + lo, N, hi - lo + 1, total, inf, self.bits, self.k)


def f_eps(pld: tuple[int, list[int], int], h: Fraction, bits: int, eps: Fraction) -> arb:
    """2^−bits (Σ_{y_k > ε} c_k (1 − e^{ε−y_k}) + c_∞), y_k = (offset + k)h."""
    offset, cs, inf = pld
    start = max(0, math.floor(eps / h) - offset + 1)  # first k with (offset + k)h > eps (exact)
    hb, eb = to_ball(h), to_ball(eps)
    r = (-hb).exp()
    s = arb(0)
    for c in reversed(cs[start:]):  # Horner: Σ c_k r^(k - start)
        s = s * r + c
    mass = sum(cs[start:])
    val = to_ball(mass) - (eb - (offset + start) * hb).exp() * s
    return (val + inf) * arb(2) ** (-bits)
