"""Certified privacy of DP-SGD (Poisson-subsampled Gaussian, T steps).

``dpsgd(noise=σ, rate=q, steps=T, delta=δ)`` returns a certified enclosure of
ε(δ) (or of δ(ε) with ``eps=``) from the certified PLD accountant
(:mod:`certdp.analyses.accountants.pld`), and with ``mu=True`` a certified GDP report
(:mod:`certdp.analyses.fdp`): μ with its residual ("μ-GDP except η"), the regret
of the reported μ, the advantage, and the exact tail bound

    strict μ >= √T/σ

(Liu et al. 2022 Thm 4.4 and §5.3: the T-fold Poisson-subsampled Gaussian has tail
GDP parameter √T/σ whatever the sampling rate, so no μ below it is a strict
GDP guarantee; the PLD-derived μ holds only up to the residual η).

Calibration (a certified σ, rate or step count on a grid; optimal where the
catalog proves monotonicity, as for these three) is
:func:`certdp.analyses.calibrate.calibrate`, for every mechanism.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import operator
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable

from flint import arb

from certdp.analyses.accountants.base import check_width, default_width, halvings
from certdp.analyses.accountants.pld import PLDAccountant, SubsampledGaussian, grid_at_most  # noqa: F401 (re-exported)
from certdp.errors import InputError, check_budget
from certdp.numerics.ball import working_precision
from certdp.numerics.enclosure import Enclosure
from certdp.numerics.exact import exact

#: Default loss-grid step (dyadic, ≈ 1e-3).
DEFAULT_H = None  # automatic: PLDAccountant.h


@dataclass(frozen=True)
class DPSGDResult:
    """Certified DP-SGD privacy: exactly one of ``eps`` / ``delta`` is the answer."""

    noise: Fraction
    rate: Fraction
    steps: int
    eps: Enclosure | None = None
    delta: Enclosure | None = None
    mu: Enclosure | None = None
    residual: Enclosure | None = None
    regret: Enclosure | None = None
    advantage: Enclosure | None = None
    strict_mu_at_least: Enclosure | None = None
    seconds: float = 0.0
    settings: dict = field(default_factory=dict)
    target: Fraction | None = None  # the given δ (eps answered) or ε (delta answered)
    schedule: dict | None = None  # the practitioner's inputs (epochs, batch size, ...) and the rule: schedule()

    def to_json(self) -> dict:
        out: dict = {
            "noise": str(self.noise), "sample_rate": str(self.rate), "steps": self.steps,
        }
        if self.schedule is not None:
            out["schedule"] = dict(self.schedule)
        for key in ("eps", "delta", "mu", "residual", "strict_mu_at_least", "regret", "advantage"):
            v = getattr(self, key)
            if v is not None:
                out[key] = v.to_json()  # {"lo", "hi"}: outward decimal strings (json.dumps-able)
        out["accountant"] = {"name": "pld", **self.settings}
        return out


def strict_mu_lower(noise: object, steps: int) -> Enclosure:
    """Enclosure of √T/σ, the tail GDP parameter (Liu et al. 2022 Thm 4.4, §5.3)."""
    s = exact(noise, "noise")
    with working_precision(256):
        return Enclosure.from_ball((arb(steps) / (arb(s.numerator) / s.denominator) ** 2).sqrt())


def _positive_int(value: object, name: str) -> int:
    """A positive integer from an int (or an integer-like scalar) or a decimal integer string."""
    if isinstance(value, bool):
        raise InputError(f"{name} must be a positive integer, got {value!r}")
    if isinstance(value, str):
        text = value.strip()
        v = int(text) if text.isdigit() else 0
    else:
        try:
            v = operator.index(value)  # type: ignore[arg-type]
        except TypeError:
            v = 0
    if v < 1:
        raise InputError(f"{name} must be a positive integer, got {value!r}")
    return v


def schedule(*, rate: object = None, steps: object = None, epochs: object = None, batch_size: object = None,
             dataset_size: object = None) -> tuple[Fraction, int, dict | None]:
    """(q, T, what was given) from a practitioner's description of a DP-SGD run.

    The sampling rate is given once: ``rate`` = q, or ``batch_size`` B and
    ``dataset_size`` N, which give q = B/N exactly (Poisson sampling with expected batch
    size B).  The length is given once: ``steps`` = T, or ``epochs`` E (an exact
    positive number), which gives

        T = ⌈E/q⌉   (= ⌈E·N/B⌉: the fewest steps whose expected number of examples
                     seen, T·q·N, reaches E passes over the data)

    rounded up, so the certified answer covers the run however the fractional step is
    taken (opacus' ``get_noise_multiplier`` truncates: ``steps = int(epochs /
    sample_rate)``; its ``make_private`` with Poisson sampling uses q = 1/⌈N/B⌉ and
    ⌈N/B⌉ steps per epoch — for those give ``rate`` and ``steps`` explicitly).
    Conflicting or incomplete combinations raise :class:`InputError`.  The third value
    is None for plain (rate, steps), else the inputs and the rule as strings (echoed
    in the result's ``to_json()``)."""
    if (batch_size is None) != (dataset_size is None):
        raise InputError("give --batch-size and --dataset-size together (q = B/N)")
    by_batch = batch_size is not None
    if by_batch and rate is not None:
        raise InputError("give the sampling rate once: --sample-rate Q, or --batch-size B with --dataset-size N")
    if rate is None and not by_batch:
        raise InputError("give the sampling rate: --sample-rate Q, or --batch-size B with --dataset-size N")
    if (steps is None) == (epochs is None):
        raise InputError("give the run's length once: --steps T or --epochs E")
    if by_batch:
        B, N = _positive_int(batch_size, "batch size"), _positive_int(dataset_size, "dataset size")
        if B > N:
            raise InputError(f"batch size {B} exceeds dataset size {N} (q = B/N must be <= 1)")
        q = Fraction(B, N)
    else:
        q = exact(rate, "sample rate")
        if not 0 < q <= 1:
            raise InputError(f"sample rate must satisfy 0 < q <= 1, got {rate!r}")
    if epochs is None:
        T = _positive_int(steps, "steps")
        if not by_batch:
            return q, T, None
        return q, T, {"batch_size": B, "dataset_size": N, "sample_rate_rule": "q = B/N"}
    from certdp.mechanisms.format import format_number  # noqa: PLC0415 (epochs only: a plain run loads no sympy)

    E = exact(epochs, "epochs")
    if E <= 0:
        raise InputError(f"epochs must be > 0, got {epochs!r}")
    exact_steps = E / q
    T = -(-exact_steps.numerator // exact_steps.denominator)
    formula = "E·N/B" if by_batch else "E/q"
    rule = (f"T = {formula} = {T}" if exact_steps == T
            else f"T = ⌈{formula}⌉ = ⌈{format_number(exact_steps)}⌉ = {T} (rounded up)")
    out: dict = {"epochs": format_number(E)}
    if by_batch:
        out.update(batch_size=B, dataset_size=N, sample_rate_rule="q = B/N")
    out["steps_rule"] = rule
    return q, T, out


def _check(noise: object, rate: object, steps: object) -> tuple[Fraction, Fraction, int]:
    s = exact(noise, "noise")
    q = exact(rate, "sample rate")
    if s <= 0:
        raise InputError(f"noise multiplier must be > 0, got {noise!r}")
    if not 0 < q <= 1:
        raise InputError(f"sample rate must satisfy 0 < q <= 1, got {rate!r}")
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 1:
        raise InputError(f"steps must be a positive integer, got {steps!r}")
    return s, q, steps


def dpsgd(noise: object, rate: object = None, steps: int | None = None, *, delta: object = None,
          eps: object = None, epochs: object = None, batch_size: object = None, dataset_size: object = None,
          mu: bool = False, h: object = DEFAULT_H, tau: object = Fraction(1, 10**14),
          residual: object = Fraction(1, 10**10), regret: bool = True,
          two_sided: bool = True, width: object = None) -> DPSGDResult:
    """Certified (ε or δ) for DP-SGD with noise multiplier σ, Poisson rate q, T steps.

    Give exactly one of ``delta`` (→ ε enclosure) or ``eps`` (→ δ enclosure);
    ``mu=True`` adds the certified GDP report.  ``two_sided=False`` skips the
    lower PLD (faster; the enclosure's lower end is then the trivial 0 and
    ``mu`` is unavailable).  With the automatic grid the two-sided answer is refined
    (down to a grid :data:`MAX_REFINE` halvings finer, :func:`_refined_grid`) to ``width`` (absolute, exact or a closed
    form), by default to :func:`default_width`; ``settings["width_target"]`` states
    the target, and a missed one is visible by comparing it with the width.

    ``two_sided=False`` with ``width`` (ε answers): the upper bound alone on the
    coarsest grid whose predicted discretisation error (:data:`WIDTH_MODEL`) is at
    most ``width`` — an upper end about that close to the truth, for a fraction of
    the default grid's time.  The upper end is certified; its distance to the truth
    is a guide only (there is no lower end to measure it), stated as
    ``settings["upper_accuracy_guide"]``.

    In practitioners' terms: ``epochs`` for ``steps`` and ``batch_size``/``dataset_size``
    for ``rate`` (q = B/N, T = ⌈E·N/B⌉; :func:`schedule` states the rule, and
    ``.schedule`` / ``to_json()["schedule"]`` echo it).
    """
    q0, T0, sched = schedule(rate=rate, steps=steps, epochs=epochs, batch_size=batch_size,
                             dataset_size=dataset_size)
    res = _dpsgd(noise, q0, T0, delta=delta, eps=eps, mu=mu, h=h, tau=tau, residual=residual, regret=regret,
                 two_sided=two_sided, width=width)
    return res if sched is None else dataclasses.replace(res, schedule=sched)


def _dpsgd(noise: object, rate: object, steps: int, *, delta: object, eps: object, mu: bool, h: object,
           tau: object, residual: object, regret: bool, two_sided: bool, width: object) -> DPSGDResult:
    s, q, T = _check(noise, rate, steps)
    if (delta is None) == (eps is None):
        raise InputError("give exactly one of delta= or eps=")
    from certdp.expr.brackets import at_closed_form, bracket  # noqa: PLC0415 (closed-form targets: exp(-12))

    # the target a certificate states: the lower end of a closed form's bracket (a
    # smaller δ, or a smaller ε, is the stronger claim the enclosure's upper end proves)
    target = bracket(delta if delta is not None else eps, "delta" if delta is not None else "eps")[0]
    t0 = time.perf_counter()
    if mu and not two_sided:
        raise InputError("the GDP report needs both bounds (two_sided=True)")
    w_req = None if width is None else check_width(width)
    if w_req is not None and h is not None:
        raise InputError("a width request needs the automatic grid (no h= / --grid)")
    if w_req is not None and not two_sided and delta is None:
        raise InputError("a width for the upper bound alone is supported for eps answers (give delta= / --delta)")
    if q == 1:
        return _full_batch(s, T, delta=delta, eps=eps, mu=mu, t0=t0)
    acc = PLDAccountant(h=h, tau=tau, lower=two_sided).compose(SubsampledGaussian(s, q), T)
    if w_req is not None and delta is not None:
        # a wide request starts on a coarser grid (no coarser than DEFAULT_H): guided by
        # the CLT estimate of ε and the measured width model of the automatic grid; the
        # upper end alone may take the whole width (its error is the upper half of it)
        start = _grid_for_width(acc.h, s, q, T, _guide_float(target), _guide_float(w_req),
                                share=0.5 if two_sided else 1.0)
        if start != acc.h:
            acc = PLDAccountant(h=start, tau=tau, lower=two_sided).compose(SubsampledGaussian(s, q), T)
    kw: dict = {}
    finest = acc.h / 2**MAX_REFINE  # the refinement's budget: MAX_REFINE halvings' worth
    fine_steps = w_req is not None  # 12.5 % grid steps for a request, halvings otherwise
    last_width: Fraction | None = None
    for refine in range(MAX_REFINE + 1):
        if delta is not None:
            kw["eps"] = answer = at_closed_form(acc.epsilon, delta, "delta")
        else:
            kw["delta"] = answer = at_closed_form(acc.delta, eps, "eps")
        w_target = w_req if w_req is not None else default_width(answer, delta is not None)
        if (h is not None or not two_sided or answer.hi_exact - answer.lo_exact <= w_target
                or acc.h <= finest or refine == MAX_REFINE):
            break
        if refine and answer.lo_exact == 0:
            break  # a finer grid did not give a lower end (a tiny δ below the lower PLD's reach)
        check_budget("refining the PLD grid for a narrower enclosure", refine + 1, MAX_REFINE)
        width = answer.hi_exact - answer.lo_exact
        if last_width is not None and width > last_width * Fraction(9, 10):
            fine_steps = False  # a finer step did not narrow it (_refined_grid): halve from here
        last_width = width
        step = _refined_grid(acc.h, answer, w_target, finest, fine_steps)
        if not fine_steps and answer.lo_exact > 0:
            near = _near_miss(acc.h, answer, w_target, finest, s, q, T)
            step = near if near is not None else _aligned(step, acc.h, s, q, T, float(w_target))
            if near is None and step != acc.h:
                step = _past_misalignment(step, acc.h, answer, s, q, T, float(w_target))
        acc = PLDAccountant(h=step, tau=tau, lower=True).compose(SubsampledGaussian(s, q), T)
    if mu:
        from certdp.analyses.fdp import gdp_report  # noqa: PLC0415

        rep = gdp_report(acc, residual=residual, regret=regret)
        kw.update(mu=rep.mu, residual=rep.residual, regret=rep.regret,
                  advantage=rep.advantage, strict_mu_at_least=strict_mu_lower(s, T))
    settings = acc.discretisation()
    if h is None and two_sided:
        settings["width_target"] = str(w_target)
    if w_req is not None and not two_sided:
        settings["upper_accuracy_guide"] = str(w_req)  # a guide: no lower end measures it
        pw = predicted_width(acc.h, s, q, T, _guide_float(target))
        settings["upper_accuracy_predicted"] = "unknown" if math.isnan(pw) else f"{pw:.3g}"
    if mu:
        settings["residual"] = str(rep.residual_exact)  # the exact η the μ report proves
    return DPSGDResult(s, q, T, seconds=time.perf_counter() - t0, settings=settings, target=target, **kw)


#: With the automatic grid, a two-sided answer wider than its target width is
#: recomputed on a finer grid (:func:`_refined_grid`), at most MAX_REFINE times and
#: down to MAX_REFINE halvings of the first grid.
MAX_REFINE = 4


#: The width of the two-sided enclosure shrinks by about this factor per halving of
#: the grid (measured on the DP-SGD bench grid: 4.2–5.6; the discretisation error
#: is about quadratic in h).  A guide for how far to refine, never part of a bound.
WIDTH_RATIO_PER_HALVING = 2**2.2


@functools.lru_cache(maxsize=256)
def _clt_eps_f(s: Fraction, q: Fraction, T: int, delta: float) -> float:
    """Float guide: ε(δ) of μ-GDP with the CLT μ = q·√(T(e^{1/σ²} − 1)) (Dong, Roth &
    Su 2022, Thm 6: the limit of T Poisson-subsampled Gaussian steps as q → 0 with
    q√T fixed); by bisection on δ_μ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) in mpmath
    (e^ε beyond the float range at μ ≈ 35: σ 1.1, q 0.32768, T 10⁴).  nan when μ
    overflows or is 0."""
    inv = 1 / float(s) ** 2
    if inv > 700:
        return math.nan
    mu = float(q) * math.sqrt(T * math.expm1(inv))
    if not 0 < mu < 1e3:
        return math.nan

    if mu * (mu + 40) < 700:  # floats: e^ε stays in range
        def d(e: float) -> float:
            Phi = lambda x: math.erfc(-x / math.sqrt(2)) / 2  # noqa: E731
            return Phi(-e / mu + mu / 2) - math.exp(e) * Phi(-e / mu - mu / 2)

        return _bisect_guide(d, 0.0, mu * (mu + 40), delta, 200)
    import mpmath  # noqa: PLC0415

    with mpmath.workdps(25 + int(max(0.0, -math.log10(max(delta, 1e-300))))):
        m = mpmath.mpf(mu)

        def dm(e: object) -> object:  # e^ε and Φ far in the tail as mpf: no overflow
            return mpmath.ncdf(-e / m + m / 2) - mpmath.exp(e) * mpmath.ncdf(-e / m - m / 2)

        return _bisect_guide(dm, mpmath.mpf(0), m * (m + 40), delta, 40)


def _bisect_guide(d: Callable, lo: object, hi: object, delta: float, steps: int) -> float:
    """The upper end of a bisection for d(ε) = δ on [lo, hi] (d decreasing): 0 when d(lo)
    <= δ, nan when d(hi) > δ."""
    if d(lo) <= delta:
        return 0.0
    if d(hi) > delta:
        return math.nan
    for _ in range(steps):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if d(mid) > delta else (lo, mid)
    return float(hi)


#: Measured on the DP-SGD bench (T = 100 and 10⁴): the two-sided ε enclosure's relative
#: width is about WIDTH_MODEL·(h / spread)²·(1 + spread), spread the one-step loss spread
#: q·√(e^{1/σ²} − 1) (0.3–0.7 % at h/spread = 0.14–0.23, 2–5 % at 0.43–0.57).  The
#: factor 1 + spread: without it the width was under-predicted by 1 + 0.9–1.4·spread at
#: q = 0.32768, T = 100 (σ 0.5: spread 2.4, measured/predicted 3.4 and 4.6 on two grids;
#: σ 0.8, 1.1, 2: 1.5, 1.3, 1.17), by at most 2.0 at T = 10⁴; at q <= 0.01 (spread <=
#: 0.07) it is 0.3–1.6 either way.  The upper end alone lies 0.2–0.96 times this
#: predicted width above the truth (measured 2026-11-26 at q 0.001 and 0.01, T 10⁴ and
#: 10⁵, σ 1.1–9.4, six grids each).
WIDTH_MODEL = 0.12


def _guide_float(x: Fraction) -> float:
    """An exact positive number as a float for a guide, clamped into [1e-300, 1e300]."""
    return float(min(max(x, Fraction(1, 10**300)), Fraction(10**300)))


def predicted_width(h: Fraction, s: Fraction, q: Fraction, T: int, delta: float) -> float:
    """Float guide: the width WIDTH_MODEL·(h/spread)²·(1 + spread)·ε of a two-sided ε answer
    on the grid h (ε the CLT estimate); nan when nothing predicts (a tiny σ, no CLT ε)."""
    inv = 1 / float(s) ** 2
    eps = _clt_eps_f(s, q, T, delta)
    if inv > 700 or not eps > 0:
        return math.nan
    try:
        spread = float(q) * math.sqrt(math.expm1(inv))
        return WIDTH_MODEL * (float(h) / spread) ** 2 * (1 + spread) * eps
    except (OverflowError, ZeroDivisionError):
        return math.nan  # beyond the float range: no guide


def _grid_for_width(h: Fraction, s: Fraction, q: Fraction, T: int, delta: float, width: float,
                    share: float = 0.5) -> Fraction:
    """The coarsest grid (:func:`grid_at_most`, between h/FIRST_GRID_MAX_SHRINK and
    max(h, DEFAULT_H)) whose :func:`predicted_width` is at most ``share`` of the
    requested one (the prediction is quadratic in h); h itself when nothing predicts
    (a guide only: the refinement loop checks the width reached)."""
    from certdp.analyses.accountants.pld import DEFAULT_H  # noqa: PLC0415

    pw = predicted_width(h, s, q, T, delta)
    if not pw > 0:
        return h
    want = float(h) * math.sqrt(min(width * share / pw, 1e12))
    finest, coarsest = h / FIRST_GRID_MAX_SHRINK, max(h, DEFAULT_H)
    return min(coarsest, max(finest, grid_at_most(want)))


#: A width request's first grid is at most this much finer than the automatic one; a
#: finer need is met by the refinement, from a measured width.  The width model
#: extrapolates badly far below the automatic grid: at σ 0.5, q 0.001, T 100 (CLT ε 0.24
#: against the true 2.11) it asked for h/8 = 1/8192 for W = 1.8e-5 (width 2.8e-6, 3.1–3.9 s
#: against dp_accounting's 1.4–2.1 s), where h/4 = 1/4096 gives 4.8e-6 in 1.8–2.0 s.  Of
#: the 33 bench cells only this one asked for more than h/4 (next: h/3.2, σ 0.8, q 0.01).
FIRST_GRID_MAX_SHRINK = 4


#: The refinement's next grid (without a width request) is chosen by :func:`_aligned`
#: among at most this many grid steps.
ALIGN_CANDIDATES = 16

#: The lower end's distance from the truth was 0.7–20 times T·D(h), D the bottom
#: deficit (:func:`certdp.analyses.accountants.alignment.bottom_deficit`; σ 0.5, T 100,
#: q 0.001 and 0.32768; σ 0.1, q 0.01, T 10): when ALIGN_KAPPA·T·D(h) is below a tenth
#: of the target width, the alignment cannot matter.
ALIGN_KAPPA = 16

#: A coarser grid step replaces the refinement's step when its bottom deficit is at
#: most this multiple of the step's own (:func:`_aligned`).
ALIGN_SLACK = 1.1


def _aligned(fine: Fraction, coarse: Fraction, s: Fraction, q: Fraction, T: int, target: float) -> Fraction:
    """Float guide: the grid step for a refinement that would go from ``coarse`` to
    ``fine``.  Where the alignment of log(1 − q) with the grid may decide the width
    (ALIGN_KAPPA·T·D(fine) > target/10, D the bottom deficit), the coarsest grid step
    (:func:`grid_at_most`) in [fine, coarse) whose D is at most ALIGN_SLACK·D(fine);
    else ``fine``.  Where D grows smoothly with h (about like h², a large σ) no coarser
    step qualifies: one 12.5 % step up already raises D by about 27 %.

    Measured at σ 0.1, q 0.01, T 10 (width against D): 1/256 1.29 (D 0.069), 13/4096
    0.20 (0.013), 5/2048 0.091 (0.006), 1/1024 0.092 (0.006) — the default refinement
    took 1/256 → 1/1024 (4.5 s for that grid) where 5/2048 (1.5 s) is as narrow.  Any
    grid step is sound: this only chooses which one is tight."""
    from certdp.analyses.accountants.alignment import bottom_deficit  # noqa: PLC0415

    pair = SubsampledGaussian(s, q).pair("remove")
    try:
        first = bottom_deficit(pair, fine)
        if not ALIGN_KAPPA * T * first > target / 10:
            return fine
        steps, deficits = [fine], [first]
        nxt = grid_at_most(float(fine) * (1 + 2**-3))  # the next coarser grid step
        while nxt < coarse and len(steps) < ALIGN_CANDIDATES:
            if nxt > steps[-1]:
                steps.append(nxt)
                deficits.append(bottom_deficit(pair, nxt))
            nxt = grid_at_most(float(nxt) * (1 + 2**-3))
    except (ArithmeticError, ValueError):  # float trouble in a guide (a tiny σ): no choice
        return fine
    return max(st for st, d in zip(steps, deficits) if d <= ALIGN_SLACK * first)


#: :func:`_past_misalignment` looks at most this many grid steps (8 per doubling of h:
#: the MAX_REFINE halvings' range).
REALIGN_CANDIDATES = 8 * MAX_REFINE


def _past_misalignment(fine: Fraction, coarse: Fraction, enc: Enclosure, s: Fraction, q: Fraction, T: int,
                       target: float) -> Fraction:
    """Float guide: a coarser step than the refinement's ``fine`` when the width measured
    on ``coarse`` was the misalignment of log(1 − q) with the grid (ALIGN_KAPPA·T·D(coarse)
    >= that width, D the bottom deficit), not the h² discretisation error the halvings
    assume: the coarsest of the 4-bit steps above ``fine`` and below ``coarse`` (at most
    REALIGN_CANDIDATES) where the alignment cannot matter (ALIGN_KAPPA·T·D <= target/10) and the
    width model WIDTH_MODEL·(h/spread)²·(1 + spread)·ε (ε the measured upper end) is at
    most REFINE_AIM·target; else ``fine``.  Measured at σ 0.5, q 1e-4, T 10⁴: D falls from
    1.3e-5 to 4e-8 once h < |log(1 − q)| ≈ 1e-4; from 5/32768 ([0.81, 1.176], target
    0.0117) the halvings went to 5/262144 (width 4e-6 in 10.8 s) where 3/32768 (D 7.8e-10)
    suffices.  Any grid is sound: this only chooses which one is tight and cheap."""
    from certdp.analyses.accountants.alignment import bottom_deficit  # noqa: PLC0415

    width = float(enc.hi_exact - enc.lo_exact)
    eps_hi = float(enc.hi_exact)
    pair = SubsampledGaussian(s, q).pair("remove")
    try:
        if not ALIGN_KAPPA * T * bottom_deficit(pair, coarse) >= width:
            return fine
        spread = float(q) * math.sqrt(math.expm1(1 / float(s) ** 2))
        best = fine
        nxt = grid_at_most(float(fine) * (1 + 2**-3))
        for _ in range(REALIGN_CANDIDATES):
            if not nxt < coarse:
                break
            model = WIDTH_MODEL * (float(nxt) / spread) ** 2 * (1 + spread) * eps_hi
            if model > REFINE_AIM * target:
                break  # coarser steps only predict wider
            if ALIGN_KAPPA * T * bottom_deficit(pair, nxt) <= target / 10:
                best = nxt
            nxt = grid_at_most(float(nxt) * (1 + 2**-3))
    except (ArithmeticError, ValueError):  # float trouble in a guide (a tiny σ): no choice
        return fine
    return best


#: A default-width answer at most this many times wider than its target is refined by
#: a 12.5 % grid step (:func:`_near_miss`) rather than a halving.
NEAR_MISS = 2


def _near_miss(h: Fraction, enc: Enclosure, target: Fraction, finest: Fraction, s: Fraction, q: Fraction,
               T: int) -> Fraction | None:
    """Float guide: for a default-width answer that missed its target by at most
    :data:`NEAR_MISS`, the grid step :func:`_refined_grid` picks for a request (aiming at
    REFINE_AIM of the target, ~1.6x cheaper than a halving), when the alignment of
    log(1 − q) with the grid cannot matter there (ALIGN_KAPPA·T·D(step) <= target/10, D
    the bottom deficit, :func:`_aligned`: where it can, a non-dyadic step may be wider,
    not narrower); else None (halve).  Measured at σ 20, q 1e-4, T 100 (the automatic
    grid 9/8388608 gives 1.32 % of ε against the 1 % target): 14/16777216 gives 0.8 %
    where the halving 9/16777216 gave 0.33 % at 1.3x the cost.  Any grid is sound."""
    from certdp.analyses.accountants.alignment import bottom_deficit  # noqa: PLC0415

    width = enc.hi_exact - enc.lo_exact
    if not 0 < width <= NEAR_MISS * target:
        return None
    step = _refined_grid(h, enc, target, finest, True)
    try:
        d = bottom_deficit(SubsampledGaussian(s, q).pair("remove"), step)
    except (ArithmeticError, ValueError):  # float trouble in a guide: halve
        return None
    return step if ALIGN_KAPPA * T * d <= float(target) / 10 else None


#: A refinement aims at this fraction of the target width (the width model's error is
#: about +-30 % between the cells of the bench).
REFINE_AIM = 0.8


def _refined_grid(h: Fraction, enc: Enclosure, target: Fraction, finest: Fraction,
                  fine_steps: bool = True) -> Fraction:
    """The next grid for an enclosure wider than ``target``: h shrunk by
    (REFINE_AIM·target/width)^(1/2.2) (:data:`WIDTH_RATIO_PER_HALVING`: the width goes
    about like h^2.2), rounded down to :func:`grid_at_most`; one halving when there is no
    lower end to measure a width from; at most 7/8 of h, and no finer than ``finest``.

    ``fine_steps=False`` (the default width, no request): whole halvings h/2^k instead.
    Measured: at σ 0.1, q 0.01, T 10 the width is not monotone in a non-dyadic step
    (1/256: 1.4, 11/8192: 0.3, 15/16384: 0.5, 9/16384: 0.06 — where the bulk of the
    mass, the loss log(1 − q), falls between two grid points matters more than h² there),
    and the 12.5 % steps took 20.8 s where halvings took 7.8 s (1/1024: 0.11).  The
    caller then lets :func:`_aligned` take a coarser step as well aligned (5/2048: 0.091)."""
    width = enc.hi_exact - enc.lo_exact
    if enc.lo_exact == 0 or width <= 0:
        shrink = 0.5
    else:
        r = target * Fraction(REFINE_AIM) / width  # exact; tiny ratios capped by the floor
        shrink = float(max(r, Fraction(1, 2**60))) ** (1 / math.log2(WIDTH_RATIO_PER_HALVING))
    if not fine_steps:
        k = 1 if enc.lo_exact == 0 or width <= 0 else halvings(width, target, WIDTH_RATIO_PER_HALVING)
        return max(finest, h / 2**k)
    return max(finest, grid_at_most(float(h) * min(shrink, 0.875)))


def _full_batch(s: Fraction, T: int, *, delta: object, eps: object, mu: bool, t0: float) -> DPSGDResult:
    """Rate 1 is no subsampling: T Gaussian steps compose to a trade-off curve
    that is exactly Gaussian with μ = √T/σ (Dong, Roth & Su 2022, "Gaussian
    differential privacy", Cor. 2), answered by the closed-form profile δ_μ —
    no grid, no residual, regret 0, advantage 2Φ(μ/2) − 1."""
    from certdp.mechanisms.profile_values import delta_enclosure, eps_enclosure  # noqa: PLC0415
    from certdp.mechanisms.basic import Gaussian  # noqa: PLC0415
    from certdp.mechanisms.transforms import Compose  # noqa: PLC0415
    from certdp.numerics.normal import Phi_ball  # noqa: PLC0415

    mech = Compose(Gaussian(sigma=s), k=T)
    kw: dict = {}
    from certdp.expr.brackets import at_closed_form, bracket  # noqa: PLC0415

    if delta is not None:
        kw["eps"] = at_closed_form(lambda d: eps_enclosure(mech, d), delta, "delta")
    else:
        kw["delta"] = at_closed_form(lambda e: delta_enclosure(mech, e), eps, "eps")
    if mu:
        m = strict_mu_lower(s, T)
        with working_precision(256):
            b = (1 - 2 * Phi_ball(-m.lo / 2)).union(1 - 2 * Phi_ball(-m.hi / 2))
            hi = b.upper()
            adv = Enclosure(b.lower(), arb(1) if hi > 1 else hi)  # an advantage is < 1
        zero = Enclosure.exact(0)
        kw.update(mu=m, residual=zero, regret=zero, advantage=adv, strict_mu_at_least=m)
    settings = {"name": "exact-gdp", "route": "full batch: the composition of T Gaussians is exactly (√T/σ)-GDP"}
    target = bracket(delta if delta is not None else eps, "delta" if delta is not None else "eps")[0]
    return DPSGDResult(s, Fraction(1), T, seconds=time.perf_counter() - t0, settings=settings, target=target, **kw)
