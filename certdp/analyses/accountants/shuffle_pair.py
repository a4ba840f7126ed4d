"""A certified LOWER bound on the privacy loss of DP-SGD with shuffled batches.

The run: N examples, batch size B with B | N, so k = N/B batches per epoch; each
epoch draws a fresh uniform permutation and cuts it into the k batches; every step
adds N(0, σ²) noise (clip norm 1, noise multiplier σ) to the sum of the batch's
clipped gradients.  Chua, Ghazi, Kamath, Kumar, Manurangsi, Sinha & Zhang 2024
("How private are DP-SGD implementations?", ICML 2024, and "Scalable DP-SGD:
shuffling vs. Poisson subsampling", NeurIPS 2024) show that the ε of this run can
be far above the Poisson-subsampling ε practitioners report for it.

**The explicit pair (zero-out relation).**  D holds a target example whose clipped
gradient is +1 (a linear loss: the gradient does not depend on the model, so the
model trajectory is an invertible function of the noisy batch sums); D' replaces it
by ⊥, an example whose gradient is 0 (Kairouz et al. 2021's zero-out neighbour,
also a replace-one neighbour).  Every other example has gradient g, the same in D
and D'.  Subtracting the public sum b·g of a full batch of others, one epoch shows
the adversary k independent N(·, σ²) coordinates, all centred at 0 except the
coordinate J of the batch holding the target, centred at ``a`` under D and ``c``
under D', with J uniform on {1..k} under both:

    g = 0:  (a, c) = (1, 0)        g = −1:  (a, c) = (2, 1)

(the second is Chua et al.'s choice: the target's batch stands out under both
datasets, which defeats the amplification when σ is small).

**Post-processing.**  The adversary keeps M = max_j X_j of each epoch, then the
cell of a fixed partition t_0 < … < t_m of the line that M falls in.  With
u = (t − a)/σ, w = (t − c)/σ, v = t/σ:

    F_D(t)  = Pr_D[M <= t]  = Φ(u) Φ(v)^{k−1},    F_D'(t) = Φ(w) Φ(v)^{k−1},

so each cell's probability is a difference of Φ-expressions, enclosed in ball
arithmetic.  The cell index is a post-processing of the epoch's output, and the
epochs use independent permutations, so the E-tuple of cell indices is a
post-processing of the whole run's output and has law P^{⊗E} under D and Q^{⊗E}
under D' (P, Q the one-epoch cell laws).  By the data-processing inequality the
hockey-stick divergence of the run is at least that of (P^{⊗E}, Q^{⊗E}):

    δ_run(ε) >= H_{e^ε}(P^{⊗E} ‖ Q^{⊗E}) = E_{P^{⊗E}}[(1 − e^{ε − L})⁺],

L the summed privacy loss log(P/Q) of the E cells.  The same holds with D and D'
swapped (DP needs both directions).

**Composition from below.**  Each cell's loss is rounded DOWN onto the grid h·Z and
its P-mass DOWN to a multiple of 2^-bits; the E-fold convolution is an exact
integer product, re-rounded down after every product (floors).  (1 − e^{ε−L})⁺ is
non-decreasing in L and every term is non-negative, so each rounding, and dropping
any mass, can only decrease the sum: the result is a certified lower bound on the
δ of the pair, hence of the run.  ε_lower(δ) is then a dyadic ε at which the lower
bound is proved > δ: the run is not (ε, δ)-DP for any ε <= ε_lower.

This module is the engine (one pair, one direction); :mod:`.shuffle` chooses the
constructions, searches ε and sets the answer beside the Poisson upper bound.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from flint import arb

from certdp.numerics import kronecker
from certdp.numerics.ball import to_ball, working_precision
from certdp.numerics.normal import Phi_ball

#: Working precision (bits) of the cell masses: 1 − F(t) near 1 loses about 60 bits.
PREC = 256


@dataclass(frozen=True)
class Construction:
    """One explicit pair of datasets: the target's batch is centred at ``a`` under D
    and at ``c`` under D' (the other examples' gradient is ``others``)."""

    name: str
    a: int
    c: int
    others: int


#: The pairs tried (both under the zero-out relation, see the module docstring).
CONSTRUCTIONS = (Construction("others-zero", 1, 0, 0), Construction("others-minus-one", 2, 1, -1))


@dataclass(frozen=True)
class CellPair:
    """The one-epoch law of the cell of M = max_j X_j under D (``p``) and D' (``q``):
    cell 0 is (−∞, t_0], cell i is (t_{i−1}, t_i], the last (t_m, ∞)."""

    noise: Fraction
    batches: int
    construction: Construction
    points: tuple[Fraction, ...]
    p: tuple[arb, ...]
    q: tuple[arb, ...]


def cdfs(noise: Fraction, batches: int, a: int, c: int, t: Fraction) -> tuple[arb, arb]:
    """(F_D(t), F_D'(t)) as balls at the current precision."""
    s = to_ball(noise)
    tb = to_ball(t)
    rest = Phi_ball(tb / s) ** (batches - 1) if batches > 1 else arb(1)
    return Phi_ball((tb - a) / s) * rest, Phi_ball((tb - c) / s) * rest


def cell_pair(noise: Fraction, batches: int, construction: Construction,
              points: tuple[Fraction, ...]) -> CellPair:
    """The cell masses of both laws, enclosed at :data:`PREC` bits."""
    with working_precision(PREC):
        fp, fq = [arb(0)], [arb(0)]
        for t in points:
            x, y = cdfs(noise, batches, construction.a, construction.c, t)
            fp.append(x)
            fq.append(y)
        fp.append(arb(1))
        fq.append(arb(1))
        p = tuple(fp[i + 1] - fp[i] for i in range(len(fp) - 1))
        q = tuple(fq[i + 1] - fq[i] for i in range(len(fq) - 1))
    return CellPair(noise, batches, construction, tuple(points), p, q)


def _log_cdf_guide(noise: float, batches: int, shift: int, t: float) -> float:
    """log Pr[M <= t] in floats (a guide for the partition's range only)."""
    def log_phi(x: float) -> float:
        v = 0.5 * math.erfc(-x / math.sqrt(2))
        return math.log(v) if v > 0 else -0.5 * x * x - math.log(-x * math.sqrt(2 * math.pi))
    return log_phi((t - shift) / noise) + (batches - 1) * log_phi(t / noise)


def partition(noise: Fraction, batches: int, construction: Construction, cells: int = 2048) -> tuple[Fraction, ...]:
    """Dyadic partition points covering both laws' bulk (a float guide: any partition
    gives a valid lower bound; this one only decides how tight it is).  The range
    leaves mass below about e^-40 in the outer cells; the step is a power of two,
    about σ²/(64(a − c)) (one-epoch loss steps of about 1/64 for k = 1), widened
    until at most ``cells`` points are used."""
    s = float(noise)
    lo_shift = min(construction.c, 0)
    # lower end: both CDFs below e^-40 (the smaller shift decides)
    hi_t = float(construction.a) + s * 20
    lo_t = -s * 20.0
    target = -40.0
    a, b = lo_t, hi_t
    for _ in range(200):
        mid = (a + b) / 2
        if _log_cdf_guide(s, batches, lo_shift, mid) < target:
            a = mid
        else:
            b = mid
    t_lo = a
    # upper end: k·Φ̄((t − a)/σ) <= e^-40
    z = math.sqrt(2 * (40 + math.log(batches)))
    t_hi = construction.a + s * (z + 1)
    step_f = s * s / (64 * (construction.a - construction.c))
    e = math.floor(math.log2(step_f))
    while (t_hi - t_lo) / 2.0**e > cells:
        e += 1
    step = Fraction(2) ** e
    start = math.floor(t_lo / 2.0**e)
    stop = math.ceil(t_hi / 2.0**e)
    return tuple(step * i for i in range(start, stop + 1))


@dataclass(frozen=True)
class LowerPLD:
    """Σ_j masses[j]·2^-bits at loss (offset + j)·h, h = 2^-h_bits, every loss and mass
    rounded down (a lower bound on δ(ε) for every ε, see the module docstring)."""

    limbs: np.ndarray
    offset: int
    h_bits: int
    bits: int

    @property
    def length(self) -> int:
        return int(self.limbs.shape[0])

    def floats(self) -> np.ndarray:
        """The masses as floats (a guide for the ε search only)."""
        out = np.zeros(self.length)
        for j in range(self.limbs.shape[1] - 1, -1, -1):
            out = out * 2.0**64 + self.limbs[:, j].astype(float)
        return out * 2.0 ** (-self.bits)


def one_epoch(p: tuple[arb, ...], q: tuple[arb, ...], h_bits: int, bits: int) -> LowerPLD:
    """The lower PLD of (p ‖ q): loss ⌊log(p_lo/q_hi)·2^h_bits⌋·2^-h_bits and mass
    ⌊p_lo·2^bits⌋·2^-bits per cell; cells whose masses round to 0 are dropped."""
    idx: list[int] = []
    mass: list[int] = []
    with working_precision(PREC):
        scale = arb(2) ** bits
        hscale = arb(2) ** h_bits
        for pi, qi in zip(p, q):
            plo, qhi = pi.lower(), qi.upper()
            if not plo > 0 or not qhi > 0:
                continue
            m = int((plo * scale).floor().unique_fmpz())
            if m <= 0:
                continue
            loss = ((plo.log() - qhi.log()) * hscale).lower().floor()
            if not loss.is_finite():
                continue
            idx.append(int(loss.unique_fmpz()))
            mass.append(m)
    if not idx:
        return LowerPLD(kronecker.from_ints([0]), 0, h_bits, bits)
    lo = min(idx)
    vec = [0] * (max(idx) - lo + 1)
    for i, m in zip(idx, mass):
        vec[i - lo] += m
    return LowerPLD(kronecker.from_ints(vec), lo, h_bits, bits)


def _strip(limbs: np.ndarray, offset: int) -> tuple[np.ndarray, int]:
    nz = np.flatnonzero(limbs.any(axis=1))
    if nz.size == 0:
        return limbs[:1] * 0, offset
    return kronecker.trim_limbs(limbs[nz[0]:nz[-1] + 1]), offset + int(nz[0])


def combine(x: LowerPLD, y: LowerPLD) -> LowerPLD:
    """The product pair's lower PLD: exact convolution, masses floored to ``bits``."""
    prod = kronecker.mul_shift(x.limbs, y.limbs, x.bits)
    limbs, off = _strip(prod, x.offset + y.offset)
    return LowerPLD(limbs, off, x.h_bits, x.bits)


def power(x: LowerPLD, count: int) -> LowerPLD:
    """The ``count``-fold composition, from below (binary powering)."""
    result: LowerPLD | None = None
    base = x
    n = count
    while n:
        if n & 1:
            result = base if result is None else combine(result, base)
        n >>= 1
        if n:
            base = combine(base, base)
    assert result is not None
    return result


def delta_guide(pld: LowerPLD, eps: float, masses: np.ndarray | None = None) -> float:
    """The lower PLD's δ(ε) in floats (a guide for the search only)."""
    m = pld.floats() if masses is None else masses
    loss = (np.arange(pld.length) + pld.offset) * 2.0 ** (-pld.h_bits)
    keep = loss > eps
    return float(np.sum(m[keep] * -np.expm1(eps - loss[keep])))


def delta_lower(pld: LowerPLD, eps: Fraction, *, exact_points: int = 4096) -> arb:
    """A ball whose every point is <= the lower PLD's δ(ε) (hence <= the run's δ(ε)).

    Σ_{L_j > ε} m_j (1 − e^{ε − L_j}): the first ``exact_points`` grid points above ε
    term by term, then blocks of length (j − j0)/1024, each block's mass (an exact
    integer sum) times the factor at its lowest loss (the factor is non-decreasing in L)."""
    h = Fraction(1, 2**pld.h_bits)
    j0 = max(0, math.floor(eps / h) + 1 - pld.offset)  # first j with (offset + j)·h > ε
    n = pld.length
    if j0 >= n:
        return arb(0)
    sums = kronecker.PrefixSums(pld.limbs)
    with working_precision(PREC):
        e = to_ball(eps)
        hb = to_ball(h)
        total = arb(0)
        j = j0
        while j < n:
            width = 1 if j - j0 < exact_points else (j - j0) // 1024
            end = min(n, j + width)
            mass = sums(end) - sums(j)
            if mass:
                factor = -(e - (pld.offset + j) * hb).expm1()
                total += mass * factor
            j = end
        out = total / arb(2) ** pld.bits
        return arb(out.lower())
