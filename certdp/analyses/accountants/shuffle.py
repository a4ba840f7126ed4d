"""DP-SGD with shuffled batches: a certified lower bound beside the Poisson upper bound.

``shuffled_dpsgd(noise, batch_size=B, dataset_size=N, epochs=E, delta=δ)`` answers
three things about a run that shuffles (each epoch a fresh uniform permutation cut
into k = N/B batches of size B):

* ``lower`` — a **certified lower bound** on the run's true ε(δ) (or δ(ε)) from an
  explicit pair of datasets over all full epochs (:mod:`.shuffle_pair` states the
  pair, the post-processing and why composing the same pair over the epochs is a
  valid lower bound: the epochs use independent permutations, so the E-fold product
  of the one-epoch pair is a post-processing of the whole run's output);
* ``upper`` — the only certified upper bound known for shuffling in general, the one
  without amplification: every example is in exactly one batch per epoch, so given
  the permutations the run is E' Gaussian steps touching the example (E' = ⌈T/k⌉
  epochs begun), and mixing over the permutations (the same law under both
  datasets) cannot increase a hockey-stick divergence (joint convexity): the run is
  (√E'/σ)-GDP (Dong, Roth & Su 2022).  For a single batch per epoch (B = N) this is
  tight and the lower bound approaches it;
* ``poisson`` — the certified ε interval of the Poisson-subsampled run with rate
  q = B/N and the same T steps (what practitioners report), so the user sees whether
  that number can be a valid guarantee for what they ran: it cannot when it lies
  below ``lower``.

Neighbouring relation: zero-out (the target replaced by an example with gradient
0).  For the Poisson-subsampled Gaussian it gives exactly the pair of add-or-remove
with sensitivity 1, the relation of dp_accounting's and opacus' Poisson ε, so the
comparison is like for like; the same pair is also a replace-one pair, so the lower
bound holds under replace-one as well.  The upper bound is for zero-out
(sensitivity 1); under replace-one it would be 2√E'/σ.

No spec in the grammar names a shuffled run: a spec names a mechanism with a
certified (upper) profile, and the only such profile here is the no-amplification
one, already ``compose(gaussian(sigma=σ), k=E')``.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from fractions import Fraction

from flint import arb

from certdp.analyses.accountants import shuffle_pair as sp
from certdp.analyses.accountants.dpsgd import DPSGDResult, _positive_int, dpsgd
from certdp.errors import InputError
from certdp.numerics.ball import to_ball, working_precision
from certdp.numerics.enclosure import Enclosure
from certdp.numerics.exact import exact

#: Mass bits of the lower PLD (every mass floored to a multiple of 2^-BITS).
BITS = 64
#: Most points in the E-fold lower PLD (the loss grid is coarsened to stay below).
MAX_POINTS = 2**21
#: Finest loss grid, 2^-FINEST_H_BITS.
FINEST_H_BITS = 12

WHY = ("lower bound: an explicit pair of datasets (zero-out: the target example's clipped gradient 1 vs 0; "
       "others' gradients fixed), each epoch post-processed to the cell of the largest noisy batch sum; "
       "epochs use independent permutations, so the E-fold product of that one-epoch pair is a "
       "post-processing of the run's output and its hockey-stick divergence, composed from below, "
       "is a lower bound on the run's δ(ε)")
UPPER_WHY = ("upper bound without amplification: each example is in exactly one batch per epoch, so given "
             "the permutations the run is E Gaussian steps touching it; mixing over the permutations "
             "cannot increase δ: (√E/σ)-GDP. certdp has no tighter certified upper bound for shuffling")


@dataclass(frozen=True)
class ShuffleLower:
    """A certified lower bound from one pair: ``eps`` with δ_lower(eps) > δ proved
    (answers ``delta=``), or ``delta`` <= the run's δ(ε) (answers ``eps=``)."""

    eps: Fraction | None
    delta: Enclosure | None  # eps answers: the proved δ_lower(eps) (> δ); delta answers: δ_lower(ε)
    construction: str
    direction: str
    epochs: int
    settings: dict = field(default_factory=dict)


def _json(x: object) -> object:
    """Plain JSON for an answer part (an Enclosure becomes its outward decimal ends)."""
    return x.to_json() if hasattr(x, "to_json") else x


@dataclass(frozen=True)
class ShuffleResult:
    """Shuffled DP-SGD: ``lower`` proved, ``upper`` (no amplification) proved, and the
    ``poisson`` answer for comparison.  Exactly one of the targets was given."""

    noise: Fraction
    batch_size: int
    dataset_size: int
    steps: int
    lower: ShuffleLower
    upper: DPSGDResult
    poisson: DPSGDResult
    target_delta: Fraction | None
    target_eps: Fraction | None
    seconds: float

    @property
    def batches(self) -> int:
        return self.dataset_size // self.batch_size

    def poisson_refuted(self) -> bool:
        """True when the Poisson upper end is proved below the shuffled run's ε
        (or δ): the Poisson number is then not a valid guarantee for this run."""
        if self.target_delta is not None:
            return self.lower.eps is not None and self.poisson.eps.hi_exact < self.lower.eps
        return self.lower.delta is not None and self.poisson.delta.hi_exact < self.lower.delta.lo_exact

    def to_json(self) -> dict:
        low: dict = {"meaning": "certified lower bound on the shuffled run's "
                                + ("ε(δ): the run is not (ε, δ)-DP for any smaller ε"
                                   if self.target_delta is not None else "δ(ε)"),
                     "construction": self.lower.construction, "direction": self.lower.direction,
                     "epochs_used": self.lower.epochs, "why": WHY, **self.lower.settings}
        if self.lower.eps is not None:
            low["eps_at_least"] = str(self.lower.eps)  # exact (dyadic)
            if self.lower.delta is not None:
                low["proved"] = f"δ_lower({self.lower.eps}) >= {self.lower.delta.lo_str()} > δ"
        else:
            low["delta_at_least"] = "0" if self.lower.delta is None else self.lower.delta.lo_str()
        key = "eps" if self.target_delta is not None else "delta"
        return {
            "sampling": "shuffle",
            "noise": str(self.noise), "batch_size": self.batch_size, "dataset_size": self.dataset_size,
            "batches_per_epoch": self.batches, "steps": self.steps,
            "relation": "zero-out (= add-or-remove for the Poisson answer; the lower bound also holds "
                        "under replace-one)",
            "shuffle_lower": low,
            "shuffle_upper": {"meaning": "certified upper bound, no amplification: "
                                         f"(√{self.upper.steps}/σ)-GDP", "why": UPPER_WHY,
                              key: _json(getattr(self.upper, key))},
            "poisson": {"meaning": "certified enclosure for Poisson subsampling at q = B/N with the same "
                                   "steps (what is usually reported); a valid guarantee for the shuffled run "
                                   "only if it is at least the true shuffled value",
                        "sample_rate": str(self.poisson.rate), key: _json(getattr(self.poisson, key))},
            "poisson_below_shuffled_lower": self.poisson_refuted(),
            "seconds": round(self.seconds, 3),
        }


def _h_bits(p: tuple[arb, ...], q: tuple[arb, ...], epochs: int) -> int:
    """A loss grid 2^-h_bits with the E-fold PLD at most :data:`MAX_POINTS` long (a guide)."""
    losses = []
    for pi, qi in zip(p, q):
        a, b = float(pi.mid()), float(qi.mid())
        if a > 2.0**-BITS and b > 0:
            losses.append(math.log(a / b))
    spread = max(losses) - min(losses) if losses else 1.0
    bits = math.floor(math.log2(MAX_POINTS / (epochs * max(spread, 1e-3))))
    return max(0, min(FINEST_H_BITS, bits))


def _certify_eps(pld: sp.LowerPLD, delta: Fraction) -> tuple[Fraction, arb] | None:
    """The largest ε (dyadic, 2^-30 steps) found with δ_lower(ε) > δ proved, or None."""
    masses = pld.floats()
    d = float(delta)
    if sp.delta_guide(pld, 0.0, masses) <= d:
        return None
    lo, hi = 0.0, (pld.offset + pld.length) * 2.0 ** (-pld.h_bits)
    for _ in range(100):
        mid = (lo + hi) / 2
        if sp.delta_guide(pld, mid, masses) > d:
            lo = mid
        else:
            hi = mid
    dd = to_ball(delta)
    for back in (1e-9, 1e-7, 1e-5, 1e-3, 1e-2, 0.1):
        cand = Fraction(math.floor(lo * (1 - back) * 2**30), 2**30)
        if cand < 0:
            break
        val = sp.delta_lower(pld, cand)
        with working_precision(sp.PREC):
            if val > dd:
                return cand, val
    val = sp.delta_lower(pld, Fraction(0))
    with working_precision(sp.PREC):
        if val > dd:
            return Fraction(0), val
    return None


def shuffled_lower(noise: Fraction, batches: int, epochs: int, *, delta: Fraction | None = None,
                   eps: Fraction | None = None, cells: int = 2048) -> ShuffleLower:
    """The best certified lower bound over :data:`.shuffle_pair.CONSTRUCTIONS` and both
    directions (D ‖ D', D' ‖ D) for ``epochs`` full epochs of ``batches`` batches."""
    best: ShuffleLower | None = None
    for con in sp.CONSTRUCTIONS:
        pts = sp.partition(noise, batches, con, cells)
        pair = sp.cell_pair(noise, batches, con, pts)
        for direction, p, q in (("D‖D'", pair.p, pair.q), ("D'‖D", pair.q, pair.p)):
            hb = _h_bits(p, q, epochs)
            pld = sp.power(sp.one_epoch(p, q, hb, BITS), epochs)
            settings = {"partition": {"first": str(pts[0]), "step": str(pts[1] - pts[0]), "points": len(pts)},
                        "loss_grid": f"2^-{hb}", "h_bits": hb, "mass_bits": BITS, "points": pld.length}
            if delta is not None:
                got = _certify_eps(pld, delta)
                if got is None:
                    continue
                cand = ShuffleLower(got[0], Enclosure.from_ball(got[1]), con.name, direction, epochs, settings)
                if best is None or best.eps is None or cand.eps > best.eps:
                    best = cand
            else:
                val = Enclosure.from_ball(sp.delta_lower(pld, eps))
                cand = ShuffleLower(None, val, con.name, direction, epochs, settings)
                if best is None or cand.delta.lo_exact > best.delta.lo_exact:
                    best = cand
    if best is None:  # nothing proved above the trivial bound ε >= 0
        return ShuffleLower(Fraction(0), None, sp.CONSTRUCTIONS[0].name, "D‖D'", epochs,
                            {"note": "no ε > 0 proved: δ_lower(0) <= δ for every pair tried"})
    return best


#: noise multipliers the shuffled lower bound accepts (outside, its float-placed partition breaks down)
NOISE_RANGE = (Fraction(1, 10), Fraction(10**4))


def shuffled_dpsgd(noise: object, *, batch_size: object, dataset_size: object, epochs: object = None,
                   steps: object = None, delta: object = None, eps: object = None,
                   cells: int = 2048) -> ShuffleResult:
    """Certified lower bound (and the no-amplification upper bound) on the privacy of
    DP-SGD with shuffled batches, beside the Poisson answer; see the module docstring.

    ``batch_size`` must divide ``dataset_size`` (k = N/B equal batches per epoch).  The
    length is ``epochs`` (a positive integer) or ``steps`` T: the lower bound uses the
    ⌊T/k⌋ full epochs, the upper bound the ⌈T/k⌉ epochs begun, the Poisson answer T
    steps at q = B/N."""
    t0 = time.perf_counter()
    s = exact(noise, "noise")
    if s <= 0:
        raise InputError(f"noise multiplier must be > 0, got {noise!r}")
    if not NOISE_RANGE[0] <= s <= NOISE_RANGE[1]:  # the cell partition is placed with floats (step σ²/64)
        raise InputError(f"shuffled batches: noise multiplier {noise} is outside the supported range "
                         f"[{NOISE_RANGE[0]}, {NOISE_RANGE[1]}]")
    if batch_size is None or dataset_size is None:
        raise InputError("shuffled batches need --batch-size B and --dataset-size N (k = N/B batches per epoch)")
    B, N = _positive_int(batch_size, "batch size"), _positive_int(dataset_size, "dataset size")
    if B > N or N % B:
        raise InputError(f"shuffled batches: the batch size {B} must divide the dataset size {N} "
                         "(k = N/B equal batches per epoch)")
    k = N // B
    if (epochs is None) == (steps is None):
        raise InputError("give the run's length once: --steps T or --epochs E")
    if epochs is not None:
        E = exact(epochs, "epochs")
        if E <= 0 or E.denominator != 1:
            raise InputError(f"shuffled batches: epochs must be a positive integer, got {epochs!r}")
        T = int(E) * k
    else:
        T = _positive_int(steps, "steps")
    if (delta is None) == (eps is None):
        raise InputError("give exactly one of delta= or eps=")
    full, begun = T // k, -(-T // k)
    if full < 1:
        raise InputError(f"shuffled batches: the lower bound needs one full epoch ({k} steps), got {T} steps")
    d = None if delta is None else exact(delta, "delta")
    e = None if eps is None else exact(eps, "eps")
    if d is not None and not 0 < d < 1:
        raise InputError(f"delta must satisfy 0 < δ < 1, got {delta!r}")
    if e is not None and e < 0:
        raise InputError(f"eps must be >= 0, got {eps!r}")
    lower = shuffled_lower(s, k, full, delta=d, eps=e, cells=cells)
    upper = dpsgd(s, 1, begun, delta=d, eps=e)
    poisson = dpsgd(s, Fraction(B, N), T, delta=d, eps=e)
    # both ends are proofs, so they cannot cross; if they do, a bug is better than an answer
    crossed = (lower.eps is not None and lower.eps > upper.eps.hi_exact) if d is not None else \
        (lower.delta is not None and lower.delta.lo_exact > upper.delta.hi_exact)
    if crossed:  # pragma: no cover - a defect, never a result
        raise RuntimeError("internal error: the shuffled lower bound exceeds the no-amplification upper bound")
    return ShuffleResult(s, B, N, T, lower, upper, poisson, d, e, time.perf_counter() - t0)
