"""The public API: every capability of the ``certdp`` command under one
vocabulary, re-exported lazily by the package (``certdp.delta(...)``).

Naming scheme: a noun for what is computed — ``delta``, ``epsilon``, ``gdp``,
``gdpt``, ``identify``, ``dpsgd``, ``calibrate``, ``rdp`` (with ``rdp_epsilon``,
``rdp_delta``, ``zcdp``) for a mechanism; ``delta_mu``, ``mu_gdp``,
``eps_gdp``, ``tradeoff_mu`` for the Gaussian-DP closed forms; ``mechanism``
builds one from a spec string.  Every number is an :class:`Enclosure` (or an
answer object holding one, with the route and what is known: exact, for a
guarantee, or an upper bound only, plus the unproved hypotheses).
Mechanism arguments may be a :class:`~certdp.mechanisms.Mechanism` or a spec
string; numbers may be exact decimals/fractions as strings, ints, Fractions,
Decimals, floats (their exact binary value) or numpy scalars of every kind
(``np.int64`` steps, ``np.float32`` δ: read once here, at the boundary, into
an exact int or Fraction — a float's exact value, never a rounded one).
``delta``, ``epsilon`` and ``dpsgd`` also take a list, tuple or 1-d numpy array
of ε or δ and answer all of them from one accountant run (like dp_accounting's
``get_delta_for_epsilon``): a list of :class:`Enclosure` (a numpy object array
for an array).  Every result's ``to_json()`` holds plain JSON types only.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from fractions import Fraction
from typing import TYPE_CHECKING, Union, overload

from certdp.analyses.dispatch import Answer, GDPAnswer, delta_of, eps_of, gdp_of
from certdp.errors import InputError
from certdp.mechanisms import Mechanism, parse_spec
from certdp.numerics.enclosure import Enclosure
from certdp.numerics.numpy_scalars import from_numpy, from_numpy_int

if TYPE_CHECKING:  # the result types, for the annotations only (each loads with its function)
    import numpy
    import sympy

    from certdp.analyses.accountants.dpsgd import DPSGDResult
    from certdp.analyses.accountants.shuffle import ShuffleResult
    from certdp.analyses.accountants.phi import PhiAccountant
    from certdp.analyses.accountants.pld import PLDAccountant
    from certdp.analyses.accountants.rdp import RDPAccountant, RDPBound
    from certdp.analyses.calibrate import Calibration
    from certdp.analyses.limits.identify import Identification
    from certdp.analyses.prdp.constructions import Counterexample
    from certdp.analyses.prdp.finite import DiagonalMechanism, DPCheck, FiniteMechanism
    from certdp.mechanisms.formula import SwitchPoint
    from certdp.verifier.checker import CheckResult

#: An exact real number as the API takes it (a closed form such as ``"exp(-12)"`` where a
#: target allows one): a float or numpy floating scalar means its exact binary value.
Real = Union[int, Fraction, Decimal, float, str, "sympy.Rational", "numpy.integer", "numpy.floating"]
#: A count (steps, copies): an int or a numpy integer scalar.
Count = Union[int, "numpy.integer"]
#: Several targets answered by one accountant run.
Reals = Union[Sequence[Real], "numpy.ndarray"]
#: One answer per target: a list, or a numpy object array for an array.
Enclosures = Union[list[Enclosure], "numpy.ndarray"]
#: Options passed on to the analysis (documented with each function).
Option = Union[Real, bool, None]


def _exact(x: Real | None, name: str = "value") -> Real | None:
    """A numpy scalar or 0-d array as an exact int or Fraction (:mod:`certdp.numerics.numpy_scalars`)."""
    return from_numpy(x, name)


def _count(k: Count) -> int:
    """A count as a Python int (numpy integers accepted; the accountant checks the range)."""
    return from_numpy_int(k)  # type: ignore[return-value]


def _many(x: Real | Reals | None) -> bool:
    """A list, tuple or 1-d array of targets (not a string, not a numpy scalar)."""
    if isinstance(x, (list, tuple)):
        return True
    ndim = getattr(x, "ndim", None)
    if ndim is not None and ndim > 1:
        raise InputError(f"targets must be a list or a 1-d array, got an array of shape {x.shape}")  # type: ignore[attr-defined]
    return ndim == 1


def _shaped_like(targets: Reals, answers: list[Enclosure]) -> Enclosures:
    """The answers as a list, or as a numpy object array when the targets were an array."""
    if isinstance(targets, (list, tuple)):
        return answers
    import numpy as np  # noqa: PLC0415 (an array was given: numpy is there)

    out = np.empty(len(answers), dtype=object)
    out[:] = answers
    return out


def _each(mech: Mechanism, targets: Reals, which: str) -> Enclosures:
    """δ at each ε (``which="delta"``) or ε at each δ from one accountant (compositions);
    closed forms are evaluated per point (there is no run to share)."""
    from certdp.analyses.dispatch import accountant_for, upper_only  # noqa: PLC0415

    values = [_exact(t, "eps" if which == "delta" else "delta") for t in targets]
    found = accountant_for(mech)
    if found is None:
        one = delta_of if which == "delta" else eps_of
        return _shaped_like(targets, [one(mech, v).enclosure for v in values])
    acc = found[0]
    answers = [acc.delta(v) if which == "delta" else acc.epsilon(v) for v in values]  # type: ignore[attr-defined]
    if not mech.profile_kind.bounds_from_below:
        answers = [upper_only(a) for a in answers]
    return _shaped_like(targets, answers)


def mechanism(spec: str | Mechanism) -> Mechanism:
    """The mechanism of a spec string, e.g. ``mechanism("subsample(gaussian(sigma=1), rate=1/100)")``
    (``certdp mechanisms`` lists the grammar); a Mechanism is returned as is."""
    return spec if isinstance(spec, Mechanism) else parse_spec(spec)


@overload
def delta(mech: str | Mechanism, eps: Real) -> Answer: ...
@overload
def delta(mech: str | Mechanism, eps: Reals) -> Enclosures: ...
def delta(mech: str | Mechanism, eps: Real | Reals) -> Answer | Enclosures:
    """Certified δ_M(ε) (the privacy profile at ε) through the one router.  A list or
    array of ε gives a list (array) of Enclosures from one accountant run (on its
    default grid: a single ε may get a narrower answer, refined for it alone)."""
    if _many(eps):
        return _each(mechanism(mech), eps, "delta")  # type: ignore[arg-type]
    return delta_of(mechanism(mech), _exact(eps, "eps"))  # type: ignore[arg-type]


@overload
def epsilon(mech: str | Mechanism, delta: Real) -> Answer: ...
@overload
def epsilon(mech: str | Mechanism, delta: Reals) -> Enclosures: ...
def epsilon(mech: str | Mechanism, delta: Real | Reals) -> Answer | Enclosures:
    """Certified smallest ε with δ_M(ε) ≤ δ through the one router; a list or array
    of δ gives a list (array) of Enclosures from one accountant run (see :func:`delta`)."""
    if _many(delta):
        return _each(mechanism(mech), delta, "epsilon")  # type: ignore[arg-type]
    return eps_of(mechanism(mech), _exact(delta, "delta"))  # type: ignore[arg-type]


def gdp(mech: str | Mechanism, width: Real = Fraction(1, 10**6), **options: Option) -> GDPAnswer:
    """Certified Gaussian-DP parameter μ of the mechanism (exact where the
    trade-off curve is Gaussian, else the GDPT measurement of Liu et al. 2022
    §4 — strict, η = 0, for compositions of pure DP / randomized response — or
    the accountant's "μ-GDP except η" report) — what ``certdp measure`` prints."""
    return gdp_of(mechanism(mech), width=_exact(width, "width"), **{k: _exact(v, k) for k, v in options.items()})  # type: ignore[arg-type]


def tradeoff(mech: str | Mechanism, alpha: Real) -> Answer:
    """Certified β = f(α) of the mechanism's (symmetric) trade-off curve
    (:func:`certdp.analyses.dispatch.tradeoff_of`)."""
    from certdp.analyses.dispatch import tradeoff_of  # noqa: PLC0415

    return tradeoff_of(mechanism(mech), _exact(alpha, "alpha"))


def gdpt(mech: str | Mechanism, eps: Real, *, width: Real = Fraction(1, 10**12)) -> Enclosure:
    """Certified G(ε) = μ_GDP(ε, δ_M(ε)), the Gaussian DP transformation (Liu et al. 2022 Def 4.1)."""
    from certdp.analyses.gdpt import gdpt as _gdpt  # noqa: PLC0415

    return _gdpt(mechanism(mech), _exact(eps, "eps"), width=_exact(width, "width"))


def identify(target: str | Mechanism | sympy.Expr, *, validate: bool = True) -> Identification:
    """Exact GDP identification: lim ε²/(−2 log δ(ε)) (Liu et al. 2022 Thm 4.4)
    of a mechanism, a spec string or a profile expression in ``eps``.

    A composition without a closed-form profile is identified from its parts:
    NOT GDP when one part is (δ_comp >= δ_part), L = 0 when every part's profile
    vanishes (the pure-DP losses add); any other is refused with a pointer to the
    certified accountants."""
    from certdp.analyses.limits import identify as _identify  # noqa: PLC0415

    if isinstance(target, str):
        from certdp.expr import parse_expression  # noqa: PLC0415

        try:
            target = mechanism(target)
        except InputError:  # not a mechanism spec: a profile δ(eps), parsed safely
            target = parse_expression(target, variables=("eps",))
    return _identify(target, validate=validate)


def dpsgd(noise: Real, rate: Real | None = None, steps: Count | None = None, *, delta: Real | Reals | None = None,
          eps: Real | Reals | None = None, epochs: Real | None = None, batch_size: Count | None = None,
          dataset_size: Count | None = None, sampling: str = "poisson",
          **options: Option) -> DPSGDResult | Enclosures | ShuffleResult:
    """Certified (ε, δ) of DP-SGD (Poisson-subsampled Gaussian, ``steps`` steps),
    as ``certdp dpsgd`` computes it.  In practitioners' terms, ``batch_size`` B and
    ``dataset_size`` N replace ``rate`` (q = B/N exactly) and ``epochs`` E replaces
    ``steps`` (T = ⌈E/q⌉, rounded up; ``.schedule["steps_rule"]`` states it), e.g.
    ``dpsgd("1.1", epochs=60, batch_size=256, dataset_size=60000, delta="1e-5")``.

    A list or array of δ (or ε) gives a list (array) of Enclosures of ε (δ) from one
    PLD composition (its default grid; one target alone is refined further).

    ``sampling="shuffle"`` (``certdp dpsgd --sampling shuffle``; needs ``batch_size``
    dividing ``dataset_size``) answers for shuffled batches instead: a ShuffleResult
    with ``.lower`` (a certified lower bound on the run's ε or δ from an explicit
    pair of datasets), ``.upper`` (the no-amplification (√E/σ)-GDP bound) and
    ``.poisson`` (the Poisson answer at q = B/N, for comparison); docs/shuffling.md."""
    from certdp.analyses.accountants.dpsgd import dpsgd as _dpsgd, schedule  # noqa: PLC0415

    rate, steps, epochs, batch_size, dataset_size = (
        _exact(rate, "rate"), _count(steps) if steps is not None else None, _exact(epochs, "epochs"),
        _count(batch_size) if batch_size is not None else None, _count(dataset_size) if dataset_size is not None else None)
    if sampling not in ("poisson", "shuffle"):
        raise InputError(f"sampling must be 'poisson' or 'shuffle', got {sampling!r}")
    if sampling == "shuffle":
        from certdp.analyses.accountants.shuffle import shuffled_dpsgd  # noqa: PLC0415

        if rate is not None or options or _many(delta) or _many(eps):
            extra = ["rate"] if rate is not None else []
            extra += ["a list of targets"] if _many(delta) or _many(eps) else []
            raise InputError(f"sampling='shuffle' takes no {', '.join(extra + sorted(options))} "
                             "(give batch_size and dataset_size, and one delta= or eps=)")
        return shuffled_dpsgd(_exact(noise, "noise"), batch_size=batch_size, dataset_size=dataset_size,
                              epochs=epochs, steps=steps, delta=_exact(delta, "delta"), eps=_exact(eps, "eps"))
    targets = delta if _many(delta) else eps if _many(eps) else None
    if targets is not None:
        if options or (delta is not None and eps is not None):
            raise InputError("a list of targets takes noise, the schedule and one of delta=/eps= only")
        q, T, _ = schedule(rate=rate, steps=steps, epochs=epochs, batch_size=batch_size, dataset_size=dataset_size)
        from certdp.numerics.exact import exact, fraction_to_str  # noqa: PLC0415

        sigma = fraction_to_str(exact(_exact(noise, "noise"), "noise"))
        spec = f"compose(subsample(gaussian(sigma={sigma}), rate={fraction_to_str(q)}), k={T})"
        return _each(mechanism(spec), targets, "epsilon" if delta is not None else "delta")
    return _dpsgd(_exact(noise, "noise"), rate, steps, delta=_exact(delta, "delta"), eps=_exact(eps, "eps"), epochs=epochs,  # type: ignore[arg-type]
                  batch_size=batch_size, dataset_size=dataset_size, **{k: _exact(v, k) for k, v in options.items()})


def calibrate(spec: str, param: str, *, eps: Real, delta: Real, resolution: Real = Fraction(1, 1000),
              **options: Real | str | None) -> Calibration:
    """A value of ``param`` in ``spec`` on the grid resolution·Z certified to meet the
    target (ε, δ), with the certified fact at the next grid value towards less privacy
    (the value's δ(ε) narrowed to the default width; on the PLD route the neighbour's
    comes from the coarsest grid that decides it; ``certdp calibrate``), e.g. ``calibrate("dpsgd(noise=x, rate=0.01, steps=1000)", "x",
    eps=1, delta="1e-5")``.  ``.optimal`` (and ``.none_exists`` when ``.value`` is None)
    is True only where δ(ε) is proved monotone in the parameter by the catalog's rules;
    otherwise ``.assumptions`` states the monotonicity the answer would need.  Options:
    ``more_private`` ('larger'/'smaller', default: what the rules prove at ``start``),
    ``start``."""
    from certdp.analyses.calibrate import calibrate as _calibrate  # noqa: PLC0415

    return _calibrate(spec, param, eps=_exact(eps, "eps"), delta=_exact(delta, "delta"), resolution=_exact(resolution, "resolution"),  # type: ignore[arg-type]
                      **{k: _exact(v, k) for k, v in options.items()})  # type: ignore[arg-type]


def rdp(mech: str | Mechanism, count: Count = 1) -> RDPAccountant:
    """The certified Rényi-DP accountant holding ``count`` copies of the mechanism
    (``certdp account --accountant rdp``): ``.rdp(order)`` (a ball, any exact order > 1),
    ``.epsilon_bound(delta)`` and ``.delta_bound(eps)`` (upper bounds only, naming the
    order and the conversion), ``.zcdp()``; ``.compose(other, k)`` adds more."""
    from certdp.analyses.accountants.rdp import RDPAccountant  # noqa: PLC0415

    return RDPAccountant().compose(mechanism(mech), _count(count))


def rdp_epsilon(mech: str | Mechanism, delta: Real, count: Count = 1, *, conversion: str | None = None,
                orders: Sequence[Real] | None = None) -> RDPBound:
    """Certified upper bound on ε at δ by the Rényi-DP route (``certdp account
    --accountant rdp --delta``): the RDP curve of ``count`` copies of the mechanism,
    converted at the best order by the ``"improved"`` (Canonne, Kamath & Steinke
    2020 Prop 12) or ``"classic"`` (Mironov 2017 Prop 3) conversion (default: the
    better).  Returns a bound with ``.enclosure`` = [0, hi] (an upper bound only,
    never a lower one), ``.upper``, ``.order`` and ``.conversion``."""
    return _rdp_accountant(mech, count, orders).epsilon_bound(_exact(delta, "delta"), conversion)  # type: ignore[arg-type]


def rdp_delta(mech: str | Mechanism, eps: Real, count: Count = 1, *, conversion: str | None = None,
              orders: Sequence[Real] | None = None) -> RDPBound:
    """Certified upper bound on δ(ε) by the Rényi-DP route; see :func:`rdp_epsilon`."""
    return _rdp_accountant(mech, count, orders).delta_bound(_exact(eps, "eps"), conversion)  # type: ignore[arg-type]


def zcdp(mech: str | Mechanism, count: Count = 1) -> Enclosure:
    """ρ with ``count`` copies of the mechanism ρ-zCDP (Bun & Steinke 2016): exact
    for Gaussians (ρ = Δ²/(2σ²) each, composition adds), [0, ε²/2] per pure ε-DP part."""
    return _rdp_accountant(mech, count, None).zcdp()


def _rdp_accountant(mech: str | Mechanism, count: Count, orders: Sequence[Real] | None) -> RDPAccountant:
    from certdp.analyses.accountants.rdp import ORDERS, RDPAccountant  # noqa: PLC0415

    orders = ORDERS if orders is None else [_exact(a, "order") for a in orders]
    return RDPAccountant(orders=orders).compose(mechanism(mech), _count(count))  # type: ignore[arg-type]


def _conservative_width(options: dict[str, Option]) -> dict[str, Option]:
    """A closed-form ``width`` target is replaced by a rational below it (narrower is safe)."""
    if options.get("width") is None:
        return options
    from certdp.expr.brackets import rational_at_most  # noqa: PLC0415

    return {**options, "width": rational_at_most(options["width"], "width")}


def delta_mu(mu: Real, eps: Real, **options: Option) -> Enclosure:
    """δ_μ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2): the profile of μ-GDP (Liu et al. 2022 Thm 3.2)."""
    from certdp.expr.brackets import monotone  # noqa: PLC0415
    from certdp.numerics.gdp import delta_mu as _f  # noqa: PLC0415

    return monotone(lambda m, e: _f(m, e, **options), (_exact(mu, "mu"), "mu", +1), (_exact(eps, "eps"), "eps", -1))


def mu_gdp(eps: Real, delta: Real, **options: Option) -> Enclosure:
    """The μ with δ_μ(ε) = δ: μ-GDP implies (ε, δ)-DP iff μ ≤ mu_gdp(ε, δ)."""
    from certdp.expr.brackets import monotone  # noqa: PLC0415
    from certdp.numerics.gdp import mu_from_eps_delta  # noqa: PLC0415

    options = _conservative_width(options)
    return monotone(lambda e, d: mu_from_eps_delta(e, d, **options), (_exact(eps, "eps"), "eps", +1), (_exact(delta, "delta"), "delta", +1))


def eps_gdp(mu: Real, delta: Real, **options: Option) -> Enclosure:
    """The smallest ε with δ_μ(ε) ≤ δ."""
    from certdp.expr.brackets import monotone  # noqa: PLC0415
    from certdp.numerics.gdp import eps_from_mu_delta  # noqa: PLC0415

    options = _conservative_width(options)
    return monotone(lambda m, d: eps_from_mu_delta(m, d, **options), (_exact(mu, "mu"), "mu", +1), (_exact(delta, "delta"), "delta", -1))


def tradeoff_mu(mu: Real, alpha: Real, **options: Option) -> Enclosure:
    """f_μ(α) = Φ(Φ⁻¹(1 − α) − μ), the μ-GDP trade-off function (Dong, Roth & Su 2022)."""
    from certdp.expr.brackets import monotone  # noqa: PLC0415
    from certdp.numerics.gdp import tradeoff_mu as _f  # noqa: PLC0415

    return monotone(lambda m, a: _f(m, a, **options), (_exact(mu, "mu"), "mu", -1), (_exact(alpha, "alpha"), "alpha", -1))


def adp_to_prdp(eps: Real, delta: Real, eps_hat: Real, **options: Option) -> Enclosure:
    """δ̂ with (ε, δ)-ADP ⇒ (ε̂, δ̂)-PrDP (Guingona et al. 2023 §2)."""
    from certdp.analyses.prdp import adp_to_prdp as _f  # noqa: PLC0415

    return _f(_exact(eps, "eps"), _exact(delta, "delta"), _exact(eps_hat, "eps_hat"), **options)


def verify(path: str) -> CheckResult:
    """Check a certificate file with the independent checker (``certdp verify``)."""
    from certdp.certificates import verify as _verify  # noqa: PLC0415

    return _verify(path)


# -- additions for the teaching notebooks (issue 18): accountants, switch points,
# finite mechanisms and the ADP/PrDP counterexample, Theorem 5.1 ---------------

def mu_pure_dp(eps0: Real, **options: Option) -> Enclosure:
    """μ₀ = −2Φ⁻¹(1/(1 + e^{ε₀})): every ε₀-DP mechanism is μ₀-GDP, tight for
    randomized response (Liu et al. 2022 Thm 5.1)."""
    from certdp.expr.brackets import monotone  # noqa: PLC0415
    from certdp.numerics.gdp import mu_from_pure_dp  # noqa: PLC0415

    return monotone(lambda e: mu_from_pure_dp(e, **options), (_exact(eps0, "eps0"), "eps0", +1))


def phi(mech: str | Mechanism, count: Count = 1, *, method: str = "auto", **options: Option) -> PhiAccountant:
    """The characteristic-function accountant (Zhu, Dong & Wang 2022) holding ``count``
    copies of the mechanism: φ of the composition is the product of the φ's.
    ``.delta(eps)`` and ``.epsilon(delta)`` are certified enclosures;
    ``.compose(other, k)`` adds more (heterogeneous compositions);
    ``.log_phi_expr()`` is the accumulated log φ(t) (sympy), ``.mu_squared`` the
    Gaussian part, ``.delta_at_infinity()`` the mass of the loss at +∞.
    ``method``: ``"auto"``, ``"exact"`` (atom convolution / closed forms) or
    ``"integral"`` (the certified Lévy inversion integral, needs a Gaussian)."""
    from certdp.analyses.accountants.phi import PhiAccountant  # noqa: PLC0415

    return PhiAccountant(method=method, **options).compose(mechanism(mech), _count(count))  # type: ignore[arg-type]


def pld(mech: str | Mechanism, count: Count = 1, *, h: Real | None = None, **options: Option) -> PLDAccountant:
    """The certified privacy-loss-distribution accountant (Doroshenko et al. 2022
    connect-the-dots discretisation, losses rounded outward, exact integer
    convolution) holding ``count`` copies of a (Poisson-subsampled) Gaussian:
    ``.delta(eps)`` and ``.epsilon(delta)`` are enclosures; ``h`` is the loss grid
    step (default chosen from the composition; a coarser grid only widens them)."""
    from certdp.analyses.accountants.pld import PLDAccountant  # noqa: PLC0415

    return PLDAccountant(h=_exact(h, "h"), **options).compose(mechanism(mech), _count(count))  # type: ignore[arg-type]


def switch_point(mech: str | Mechanism, **options: int) -> SwitchPoint:
    """The certified switch point (ε*, δ*) of a mechanism known by σ = f(ε, δ)
    (``sgd``, ``icea``, ``tradeoff``): the refined profile is the Theorem 3.1
    segment from (ε*, δ*) left of ε* and the naive profile right of it
    (Liu et al. 2022 App. B).  Fields ``eps``, ``delta`` (enclosures)."""
    from certdp.mechanisms.formula import TradeoffMechanism  # noqa: PLC0415

    m = mechanism(mech)
    if not isinstance(m, TradeoffMechanism):
        raise InputError(f"{m.spec()}: switch points exist for sgd, icea and tradeoff mechanisms only")
    return m.switch_point(**options)


#: A finite mechanism: rows ``table[input][output]`` of exact probabilities (a 2-d numpy
#: array too: its entries read exactly), or a built one.
Table = Union[Sequence[Sequence[Real]], "numpy.ndarray", "FiniteMechanism", "DiagonalMechanism"]
#: ``inputs``/``outputs`` (label lists) and ``neighbours`` (pairs of input labels).
Labels = Union[Sequence[str], Sequence[tuple[str, str]]]


def _finite(table: Table, labels: dict[str, Labels]) -> FiniteMechanism | DiagonalMechanism:
    from certdp.analyses.prdp.finite import DiagonalMechanism, FiniteMechanism  # noqa: PLC0415

    if isinstance(table, (FiniteMechanism, DiagonalMechanism)):
        return table
    if getattr(table, "ndim", None) == 2 or any(getattr(row, "ndim", None) == 1 for row in table):
        # a numpy table (or rows): each entry read exactly, as every other number at the boundary
        table = [[_exact(v, "table entry") for v in row] for row in table]  # type: ignore[union-attr]
    return FiniteMechanism(table, **labels)  # type: ignore[arg-type]


def is_adp(table: Table, eps: Real, delta: Real, **labels: Labels) -> DPCheck:
    """Exact decision: is the finite mechanism with rows ``table[input][output]``
    (exact entries: ints, Fractions, strings such as ``"1/3"`` or ``"e/(1+e)"``)
    (ε, δ)-approximately DP?  Hockey-stick divergence
    max over neighbours (a, b) of Σ_c (p_a(c) − e^ε p_b(c))⁺ ≤ δ (Guingona et al. 2023
    Def 2.2).  ``labels``: ``inputs``, ``outputs``, ``neighbours`` (default all pairs).
    Returns a check with ``holds``, ``margin`` (δ − sup) and ``witness``."""
    from certdp.analyses.prdp.finite import is_adp as _f  # noqa: PLC0415

    return _f(_finite(table, labels), _exact(eps, "eps"), _exact(delta, "delta"))


def is_prdp(table: Table, eps: Real, delta: Real, **labels: Labels) -> DPCheck:
    """Exact decision: is the finite mechanism (ε, δ)-probabilistically DP,
    P_{c∼M(a)}[p_a(c)/p_b(c) > e^ε] ≤ δ for all neighbours (Guingona et al. 2023
    Def 2.2)?  Arguments and result as for :func:`is_adp`."""
    from certdp.analyses.prdp.finite import is_prdp as _f  # noqa: PLC0415

    return _f(_finite(table, labels), _exact(eps, "eps"), _exact(delta, "delta"))


def counterexample(eps: Real, delta: Real, eps_hat: Real) -> Counterexample:
    """An (ε, δ)-ADP mechanism that is not (ε̂, δ)-PrDP (Guingona et al. 2023
    Thm 3.2, via Lemma 3.1): ``n`` outputs, the rational ``p``, ``q``, the exact
    verdicts ``adp`` and ``prdp``, the Lemma 3.1 ``conditions`` and ``valid``."""
    from certdp.analyses.prdp.constructions import theorem_3_2  # noqa: PLC0415

    return theorem_3_2(_exact(eps, "eps"), _exact(delta, "delta"), _exact(eps_hat, "eps_hat"))


__all__ = ["mechanism", "delta", "epsilon", "gdp", "gdpt", "identify", "dpsgd", "calibrate", "rdp", "rdp_epsilon",
           "rdp_delta", "zcdp", "delta_mu",
           "mu_gdp", "eps_gdp", "tradeoff_mu", "adp_to_prdp", "verify", "mu_pure_dp", "phi", "pld",
           "switch_point", "is_adp", "is_prdp", "counterexample", "Answer", "GDPAnswer", "Enclosure"]
