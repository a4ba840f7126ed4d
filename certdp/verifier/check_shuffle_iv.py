"""Certificates of kind ``not_dp_shuffled`` under the second kernel (``certdp verify
--kernel mpmath``): :mod:`certdp.verifier.check_shuffle` with the real-valued steps in
fixed-point interval arithmetic on Python integers and mpmath intervals; the parser and
the exact integer convolution of the epochs (``_mul``) are shared.

* The cell laws: F_D(t) = Φ((t − a)/σ) Φ(t/σ)^{k−1} and F_D'(t) (same with c) at the stated
  points, Φ from the Taylor table of :mod:`certdp.verifier.phi_fixed` at prec + 32 bits
  (one evaluation per distinct exact argument), products and the power by
  square-and-multiply rounded outward.
* A cell's P-mass from below, Q-mass from above; its mass ⌊p_lo·2^bits⌋ and loss
  ⌊(log p_lo − log q_hi)·2^h⌋·2^−h from the lower end of mpmath's interval logs.
* Σ_{L_j > ε} m_j 2^−bits (1 − e^{ε−L_j}) from below, in the same blocks as the flint kernel.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Mapping

from mpmath import iv, libmp

from certdp.verifier import iv as kernel
from certdp.verifier.check_shuffle import MAX_LENGTH, _mul, _parse
from certdp.verifier.phi_fixed import Pair, PhiTable, _mul as _pmul, to_iv
from certdp.verifier.schema import MalformedCertificate


def _pair_of(q: Fraction, p: int) -> Pair:
    v = q * 2**p
    return v.numerator // v.denominator, -((-v.numerator) // v.denominator)


def _pow(x: Pair, n: int, p: int) -> Pair:
    out: Pair = (1 << p, 1 << p)
    while n:
        if n & 1:
            out = _pmul(out, x, p)
        n >>= 1
        if n:
            x = _pmul(x, x, p)
    return out


def _floor_mpf(raw: Any) -> int:
    num, den = libmp.to_rational(raw)
    return num // den


def _one_epoch(c: dict) -> tuple[int, list[int]]:
    """(offset, masses) of the one-epoch lower PLD (:func:`certdp.verifier.check_shuffle._one_epoch`)."""
    p = c["prec"] + 32
    table = PhiTable(p)
    s, k = c["s"], c["k"]
    a, b = c["a_c"]
    cache: dict[Fraction, Pair] = {}

    def phi(z: Fraction) -> Pair:
        if z not in cache:
            cache[z] = table.phi_cdf(_pair_of(z, p))
        return cache[z]

    one = (1 << p, 1 << p)
    fp, fq = [(0, 0)], [(0, 0)]
    for i in range(c["points"]):
        t = c["first"] + i * c["step"]
        rest = _pow(phi(t / s), k - 1, p)
        fp.append(_pmul(phi((t - a) / s), rest, p))
        fq.append(_pmul(phi((t - b) / s), rest, p))
    fp.append(one)
    fq.append(one)
    if c["reverse"]:
        fp, fq = fq, fp
    bits, hscale = c["bits"], iv.mpf(2) ** c["h_bits"]
    cells: dict[int, int] = {}
    for i in range(len(fp) - 1):
        plo, qhi = fp[i + 1][0] - fp[i][1], fq[i + 1][1] - fq[i][0]
        if not (plo > 0 and qhi > 0):
            continue
        m = plo >> (p - bits)
        if m <= 0:
            continue
        loss = (iv.log(to_iv((plo, plo), p)) - iv.log(to_iv((qhi, qhi), p))) * hscale
        lo_end = loss._mpi_[0]
        if lo_end in (libmp.finf, libmp.fninf, libmp.fnan):
            continue
        j = _floor_mpf(lo_end)
        cells[j] = cells.get(j, 0) + m
    if not cells:
        return 0, [0]
    lo = min(cells)
    if max(cells) - lo >= MAX_LENGTH:
        raise MalformedCertificate("the stated loss grid makes the one-epoch PLD too long")
    return lo, [cells.get(lo + i, 0) for i in range(max(cells) - lo + 1)]


def _delta_lower(offset: int, masses: list[int], h_bits: int, bits: int, eps: Fraction) -> Any:
    """Σ_{L_j > ε} m_j 2^−bits (1 − e^{ε−L_j}) from below (an mpf), the flint kernel's blocks."""
    h = Fraction(1, 2**h_bits)
    j0 = max(0, int((eps / h).__floor__()) + 1 - offset)
    e, hb, total, j = kernel.point(eps), kernel.point(h), iv.mpf(0), j0
    while j < len(masses):
        end = min(len(masses), j + (1 if j - j0 < 4096 else (j - j0) // 1024))
        mass = sum(masses[j:end])
        if mass:
            total += mass * (1 - iv.exp(e - (offset + j) * hb))
        j = end
    return (total / iv.mpf(2) ** bits).a


def check(doc: Mapping[str, Any]) -> tuple[bool, str | None]:
    """(valid, the failing step) of a ``not_dp_shuffled`` certificate, mpmath kernel."""
    c = _parse(doc)
    old = iv.prec
    iv.prec = c["prec"]
    try:
        base = _one_epoch(c)
        if c["epochs"] * (len(base[1]) - 1) + 1 > MAX_LENGTH:
            raise MalformedCertificate("the stated loss grid makes the composed PLD too long")
        result: tuple[int, list[int]] | None = None
        n = c["epochs"]
        while n:
            if n & 1:
                result = base if result is None else _mul(result, base, c["bits"])
            n >>= 1
            if n:
                base = _mul(base, base, c["bits"])
        assert result is not None
        low = _delta_lower(result[0], result[1], c["h_bits"], c["bits"], c["eps"])
        if low > kernel.point(c["delta"]).b:
            return True, None
    finally:
        iv.prec = old
    return False, (f"the pair's E-fold hockey stick at ε = {doc['claim']['eps']} is not proved above "
                   f"δ = {doc['claim']['delta']} under the mpmath kernel (lower bound {float(low):.6g})")
