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
polynomial multiplication and evaluates F_ε in ball arithmetic.  The work is split in
three modules:

* :mod:`certdp.analyses.accountants.pld_measure` — the dominating pairs of a subsampled
  Gaussian and the discrete measures with their exact composition (rounded UP for the
  upper PLD, DOWN for the lower one, after each product);
* :mod:`certdp.analyses.accountants.pld_onestep` — the one-step discretisations:
  **upper** by connect-the-dots (Doroshenko et al. 2022; the true pair is a
  post-processing of the split pair, so the split pair dominates), **lower** by merging
  x-intervals of the true pair (a post-processing, so by the data-processing inequality
  its δ is smaller);
* this module — the accountant: sources, grid choice, composition per relation, and
  ε/δ evaluation in balls.

δ(ε) of the composition is max over the add and remove neighbouring
relations (Zhu, Dong & Wang 2022 Thm 6: remove (P,Q) = ((1−q)N(0,σ²)+qN(1,σ²), N(0,σ²)),
add (P,Q) = (N(0,σ²), (1−q)N(0,σ²)+qN(1,σ²))).  Work per answer: remove's upper PLD
on the grid; add's on a 4× coarser grid first, enough when it is already below
remove's (any grid is certified); relations with the very same one-step integers (a
symmetric mechanism) share one composition; a second lower PLD only near a tie.
Compositions are left-to-right square and multiply.

The names of the two other modules that callers import from here are re-exported.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Callable, Iterable

from flint import arb, fmpz_poly

from certdp.analyses.accountants.base import Accountant, check_count, check_delta, check_eps
from certdp.analyses.accountants.pld_measure import (  # noqa: F401 (re-exported)
    DiscretePLD,
    Kind,
    MixturePair,
    PREC,
    Relation,
    SubsampledGaussian,
    _Chain,
    _mass_f,
)
from certdp.analyses.accountants.onestep_cut import cut_one_step
from certdp.analyses.accountants.pld_onestep import (  # noqa: F401 (re-exported)
    MAX_GRID_POINTS,
    _grid_range,
    lower_boundaries,
    lower_one_step,
    upper_one_step,
    upper_one_steps,
)
from certdp.errors import BudgetExceeded, CertdpError, InputError, PrecisionError
from certdp.numerics.ball import dyadic_to_fraction, lower_bound, to_ball, upper_bound, working_precision
from certdp.numerics.enclosure import Enclosure
from certdp.numerics.exact import exact

#: Smallest Gaussian noise the PLD accountant takes (its float search squares σ).
MIN_SIGMA = Fraction(1, 10**30)


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
#: ... and a grid step of at most SPREAD_STEP times the spread (standard deviation) of a
#: subsampled Gaussian's one-step loss, down to DEFAULT_H / 2**MAX_SPREAD_HALVINGS.  A
#: small rate q concentrates the loss within ~q·√(e^{1/σ²} − 1) of 0, and the relative
#: width of the two-sided ε is about a function of h / spread: 13.9·(h/spread)² % at δ
#: 1e-5 (measured 2026-11-27 at σ 9.4, q 0.001, T 10⁴; σ 2, q 1e-4, T 10⁴; σ 1.1, q 1e-4,
#: T 100: 0.25–0.28 % at h/spread 0.14, 0.44 % at 0.18, 0.64 % at 0.21, 1.13–1.21 % at
#: 0.29).  The step is the largest 4-bit-mantissa step (:func:`grid_at_most`) at most
#: 0.22·spread, so h/spread lies in (0.19, 0.22] and the width in about 0.5–0.7 %: below
#: the 1 % default target with a margin, on a grid up to 1.75x coarser than the
#: power-of-2 steps at most spread/4 taken before (h/spread anywhere in (0.125, 0.25]).
#: A grid step fixed at DEFAULT_H left σ = 9.4, q = 0.001 with no lower end at all.
SPREAD_STEP = 0.22
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


def grid_at_most(x: float) -> Fraction:
    """The largest grid step m·2^e (8 <= m <= 15) at most the float x > 0: a 4-bit
    mantissa keeps i·h exact in floats (the one-step construction's grid losses,
    :func:`certdp.analyses.accountants.mixture_vec._grid_losses`), and neighbouring
    steps differ by at most 12.5 %, so a width request is met without the 4x cost of a
    whole halving.  A guide: any grid step is sound."""
    m, e = math.frexp(x)  # x = m·2^e, 1/2 <= m < 1
    return Fraction(math.floor(m * 16)) * Fraction(2) ** (e - 4)


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
        self._h: Fraction | None = None  # :attr:`h`, once computed
        self._z_f: float | None = None  # :meth:`_z`, once computed
        self._cut_cache: dict = {}  # relation → (cut upper one-step PLD, its cut) (:meth:`_cut`)

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
        """The loss grid step (:meth:`_auto_h`; computed once: an accountant's items are fixed)."""
        if self._h is None:
            self._h = self._auto_h()
        return self._h

    def _auto_h(self) -> Fraction:
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
        # a subsampled Gaussian with a narrow loss spread (small rate) gets a step of
        # at most SPREAD_STEP·spread (no finer than DEFAULT_H / 2**MAX_SPREAD_HALVINGS,
        # nor than one step's loss range in AUTO_GRID_POINTS points)
        for m, _ in self.items:
            if isinstance(m, SubsampledGaussian) and m.rate < 1:
                spread, span_m = _gaussian_spread_f(m, z)
                span_all = max([span_m] + [float(_source_range(o, z, tail)) for o in laws])
                if not spread * SPREAD_STEP < float(target):
                    continue
                floor = max(float(DEFAULT_H) / 2**MAX_SPREAD_HALVINGS, span_all / AUTO_GRID_POINTS)
                want = grid_at_most(spread * SPREAD_STEP)
                if float(want) < floor:
                    want = grid_at_most(floor * 1.125)  # >= floor: a 4-bit step is > 8/9 of its argument
                target = min(target, want)
        if target < DEFAULT_H:
            return target
        ratio = span / (AUTO_GRID_POINTS * DEFAULT_H)
        if ratio <= 1:
            return DEFAULT_H
        k = max(0, ratio.numerator.bit_length() - ratio.denominator.bit_length() + 1)  # 2^k >= ratio
        return DEFAULT_H * 2**k

    def discretisation(self, cut: bool = True) -> dict:
        """The discretisation, as a certificate's evidence ``pld`` states it:
        grid step h, truncation τ, range guide z (standard deviations), fixed-point bits,
        and (``cut``, when :meth:`_cuts`) the one-step cut of each relation (this builds
        the one-step PLDs)."""
        out: dict = {"h": str(self.h), "tau": str(self.tau), "z": str(self._z()), "bits": self._bits_for()}
        if cut and self._cuts():
            out["cut"] = {rel: list(self._cut(rel)[1]) for rel in ("remove", "add")}
        return out

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
        if self._z_f is None:
            tau = max(float(self.tau), 1e-300)
            z = 1.0
            while math.erfc(z / math.sqrt(2)) / 2 > tau * 1e-3:
                z += 0.25
            self._z_f = z
        return self._z_f

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
            one = steps[0]
            if self._cuts():  # the upper one-step cut as its certificates state it; the lower one
                # truncated at τ like every product (tails dropped or moved down: the answer's
                # own, which no certificate re-derives; 20 % of the lower products at σ 1.1, q 1e-4)
                one = self._cut(rel)[0] if kind == "upper" else one.truncated(tau_units)
            return one.power(self.items[0][1], tau_units)
        acc: _Chain | None = None  # several sources: the products stay on limbs throughout
        for one, (_, k) in zip(steps, self.items):
            pk = _Chain.of(one).power(k, tau_units)
            acc = pk if acc is None else acc.combine(pk, tau_units)
        assert acc is not None
        return acc.pld(self.h)

    def _cuts(self) -> bool:
        """Is each relation's upper one-step PLD cut before composing (:mod:`onestep_cut`)?
        Only for one Poisson-subsampled Gaussian composed at least twice: the evidence
        ``pld`` of its certificates states the cut, and the checker applies it."""
        return (len(self.items) == 1 and isinstance(self.items[0][0], SubsampledGaussian)
                and self.items[0][1] >= 2 and self.tau > 0)

    def _cut(self, rel: Relation) -> tuple[DiscretePLD, tuple[int, int, int, int]]:
        """(the cut upper one-step PLD of ``rel``, its cut [lo, hi, below, above]), built once;
        the add relation takes the remove relation's when their one-step PLDs are the same."""
        done = self._cut_cache.get(rel)
        if done is None:
            other: Relation = "remove" if rel == "add" else "add"
            mine, theirs = self._steps(rel, "upper")[0], self._steps(other, "upper")[0]
            if rel == "add" and (mine.poly, mine.offset, mine.inf) == (theirs.poly, theirs.offset, theirs.inf):
                done = self._cut("remove")
            else:
                m = self.items[0][0]
                pair = m.pair(rel)  # type: ignore[union-attr]
                tau_units = int(self.tau * (1 << self._compute()["bits"]))
                done = cut_one_step(mine, pair, tau_units, _grid_range(pair, self.h, self._z()))
            self._cut_cache[rel] = done
        return done

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
