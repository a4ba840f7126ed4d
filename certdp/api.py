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
string; numbers may be exact decimals/fractions as strings, ints or Fractions.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from certdp.analyses.dispatch import Answer, GDPAnswer, delta_of, eps_of, gdp_of
from certdp.mechanisms import Mechanism, parse_spec
from certdp.numerics.enclosure import Enclosure


def mechanism(spec: str | Mechanism) -> Mechanism:
    """The mechanism of a spec string, e.g. ``mechanism("subsample(gaussian(sigma=1), rate=1/100)")``
    (``certdp mechanisms`` lists the grammar); a Mechanism is returned as is."""
    return spec if isinstance(spec, Mechanism) else parse_spec(spec)


def delta(mech: str | Mechanism, eps: object) -> Answer:
    """Certified δ_M(ε) (the privacy profile at ε) through the one router."""
    return delta_of(mechanism(mech), eps)


def epsilon(mech: str | Mechanism, delta: object) -> Answer:
    """Certified smallest ε with δ_M(ε) ≤ δ through the one router."""
    return eps_of(mechanism(mech), delta)


def gdp(mech: str | Mechanism, width: object = Fraction(1, 10**6), **options: Any) -> GDPAnswer:
    """Certified Gaussian-DP parameter μ of the mechanism (exact where the
    trade-off curve is Gaussian, else the GDPT measurement of Liu et al. 2022
    §4 — strict, η = 0, for compositions of pure DP / randomized response — or
    the accountant's "μ-GDP except η" report) — what ``certdp measure`` prints."""
    return gdp_of(mechanism(mech), width=width, **options)


def tradeoff(mech: str | Mechanism, alpha: object) -> Answer:
    """Certified β = f(α) of the mechanism's (symmetric) trade-off curve
    (:func:`certdp.analyses.dispatch.tradeoff_of`)."""
    from certdp.analyses.dispatch import tradeoff_of  # noqa: PLC0415

    return tradeoff_of(mechanism(mech), alpha)


def gdpt(mech: str | Mechanism, eps: object, *, width: object = Fraction(1, 10**12)) -> Enclosure:
    """Certified G(ε) = μ_GDP(ε, δ_M(ε)), the Gaussian DP transformation (Liu et al. 2022 Def 4.1)."""
    from certdp.analyses.gdpt import gdpt as _gdpt  # noqa: PLC0415

    return _gdpt(mechanism(mech), eps, width=width)


def identify(target: Any, *, validate: bool = True) -> Any:
    """Exact GDP identification: lim ε²/(−2 log δ(ε)) (Liu et al. 2022 Thm 4.4)
    of a mechanism, a spec string or a profile expression in ``eps``."""
    from certdp.analyses.limits import identify as _identify  # noqa: PLC0415

    if isinstance(target, str):
        from certdp.errors import InputError  # noqa: PLC0415
        from certdp.expr import parse_expression  # noqa: PLC0415

        try:
            target = mechanism(target)
        except InputError:  # not a mechanism spec: a profile δ(eps), parsed safely
            target = parse_expression(target, variables=("eps",))
    return _identify(target, validate=validate)


def dpsgd(noise: object, rate: object = None, steps: int | None = None, *, delta: object = None,
          eps: object = None, epochs: object = None, batch_size: object = None, dataset_size: object = None,
          sampling: str = "poisson", **options: Any) -> Any:
    """Certified (ε, δ) of DP-SGD (Poisson-subsampled Gaussian, ``steps`` steps),
    as ``certdp dpsgd`` computes it.  In practitioners' terms, ``batch_size`` B and
    ``dataset_size`` N replace ``rate`` (q = B/N exactly) and ``epochs`` E replaces
    ``steps`` (T = ⌈E/q⌉, rounded up; ``.schedule["steps_rule"]`` states it), e.g.
    ``dpsgd("1.1", epochs=60, batch_size=256, dataset_size=60000, delta="1e-5")``.

    ``sampling="shuffle"`` (``certdp dpsgd --sampling shuffle``; needs ``batch_size``
    dividing ``dataset_size``) answers for shuffled batches instead: a ShuffleResult
    with ``.lower`` (a certified lower bound on the run's ε or δ from an explicit
    pair of datasets), ``.upper`` (the no-amplification (√E/σ)-GDP bound) and
    ``.poisson`` (the Poisson answer at q = B/N, for comparison); docs/shuffling.md."""
    from certdp.errors import InputError  # noqa: PLC0415

    if sampling == "shuffle":
        from certdp.analyses.accountants.shuffle import shuffled_dpsgd  # noqa: PLC0415

        if rate is not None or options:
            extra = ["rate"] if rate is not None else []
            raise InputError(f"sampling='shuffle' takes no {', '.join(extra + sorted(options))} "
                             "(give batch_size and dataset_size)")
        return shuffled_dpsgd(noise, batch_size=batch_size, dataset_size=dataset_size, epochs=epochs,
                              steps=steps, delta=delta, eps=eps)
    if sampling != "poisson":
        raise InputError(f"sampling must be 'poisson' or 'shuffle', got {sampling!r}")
    from certdp.analyses.accountants.dpsgd import dpsgd as _dpsgd  # noqa: PLC0415

    return _dpsgd(noise, rate, steps, delta=delta, eps=eps, epochs=epochs, batch_size=batch_size,
                  dataset_size=dataset_size, **options)


def calibrate(spec: str, param: str, *, eps: object, delta: object, resolution: object = Fraction(1, 1000),
              **options: Any) -> Any:
    """A value of ``param`` in ``spec`` on the grid resolution·Z certified to meet the
    target (ε, δ), with the certified fact at the next grid value towards less privacy
    (``certdp calibrate``), e.g. ``calibrate("dpsgd(noise=x, rate=0.01, steps=1000)", "x",
    eps=1, delta="1e-5")``.  ``.optimal`` (and ``.none_exists`` when ``.value`` is None)
    is True only where δ(ε) is proved monotone in the parameter by the catalog's rules;
    otherwise ``.assumptions`` states the monotonicity the answer would need.  Options:
    ``more_private`` ('larger'/'smaller', default: what the rules prove at ``start``),
    ``start``."""
    from certdp.analyses.calibrate import calibrate as _calibrate  # noqa: PLC0415

    return _calibrate(spec, param, eps=eps, delta=delta, resolution=resolution, **options)


def rdp(mech: str | Mechanism, count: int = 1) -> Any:
    """The certified Rényi-DP accountant holding ``count`` copies of the mechanism
    (``certdp account --accountant rdp``): ``.rdp(order)`` (a ball, any exact order > 1),
    ``.epsilon_bound(delta)`` and ``.delta_bound(eps)`` (upper bounds only, naming the
    order and the conversion), ``.zcdp()``; ``.compose(other, k)`` adds more."""
    from certdp.analyses.accountants.rdp import RDPAccountant  # noqa: PLC0415

    return RDPAccountant().compose(mechanism(mech), count)


def rdp_epsilon(mech: str | Mechanism, delta: object, count: int = 1, *, conversion: str | None = None,
                orders: Any = None) -> Any:
    """Certified upper bound on ε at δ by the Rényi-DP route (``certdp account
    --accountant rdp --delta``): the RDP curve of ``count`` copies of the mechanism,
    converted at the best order by the ``"improved"`` (Canonne, Kamath & Steinke
    2020 Prop 12) or ``"classic"`` (Mironov 2017 Prop 3) conversion (default: the
    better).  Returns a bound with ``.enclosure`` = [0, hi] (an upper bound only,
    never a lower one), ``.upper``, ``.order`` and ``.conversion``."""
    return _rdp_accountant(mech, count, orders).epsilon_bound(delta, conversion)  # type: ignore[arg-type]


def rdp_delta(mech: str | Mechanism, eps: object, count: int = 1, *, conversion: str | None = None,
              orders: Any = None) -> Any:
    """Certified upper bound on δ(ε) by the Rényi-DP route; see :func:`rdp_epsilon`."""
    return _rdp_accountant(mech, count, orders).delta_bound(eps, conversion)  # type: ignore[arg-type]


def zcdp(mech: str | Mechanism, count: int = 1) -> Enclosure:
    """ρ with ``count`` copies of the mechanism ρ-zCDP (Bun & Steinke 2016): exact
    for Gaussians (ρ = Δ²/(2σ²) each, composition adds), [0, ε²/2] per pure ε-DP part."""
    return _rdp_accountant(mech, count, None).zcdp()


def _rdp_accountant(mech: str | Mechanism, count: int, orders: Any) -> Any:
    from certdp.analyses.accountants.rdp import ORDERS, RDPAccountant  # noqa: PLC0415

    return RDPAccountant(orders=ORDERS if orders is None else orders).compose(mechanism(mech), count)


def _conservative_width(options: dict[str, Any]) -> dict[str, Any]:
    """A closed-form ``width`` target is replaced by a rational below it (narrower is safe)."""
    if options.get("width") is None:
        return options
    from certdp.expr.brackets import rational_at_most  # noqa: PLC0415

    return {**options, "width": rational_at_most(options["width"], "width")}


def delta_mu(mu: object, eps: object, **options: Any) -> Enclosure:
    """δ_μ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2): the profile of μ-GDP (Liu et al. 2022 Thm 3.2)."""
    from certdp.expr.brackets import monotone  # noqa: PLC0415
    from certdp.numerics.gdp import delta_mu as _f  # noqa: PLC0415

    return monotone(lambda m, e: _f(m, e, **options), (mu, "mu", +1), (eps, "eps", -1))


def mu_gdp(eps: object, delta: object, **options: Any) -> Enclosure:
    """The μ with δ_μ(ε) = δ: μ-GDP implies (ε, δ)-DP iff μ ≤ mu_gdp(ε, δ)."""
    from certdp.expr.brackets import monotone  # noqa: PLC0415
    from certdp.numerics.gdp import mu_from_eps_delta  # noqa: PLC0415

    options = _conservative_width(options)
    return monotone(lambda e, d: mu_from_eps_delta(e, d, **options), (eps, "eps", +1), (delta, "delta", +1))


def eps_gdp(mu: object, delta: object, **options: Any) -> Enclosure:
    """The smallest ε with δ_μ(ε) ≤ δ."""
    from certdp.expr.brackets import monotone  # noqa: PLC0415
    from certdp.numerics.gdp import eps_from_mu_delta  # noqa: PLC0415

    options = _conservative_width(options)
    return monotone(lambda m, d: eps_from_mu_delta(m, d, **options), (mu, "mu", +1), (delta, "delta", -1))


def tradeoff_mu(mu: object, alpha: object, **options: Any) -> Enclosure:
    """f_μ(α) = Φ(Φ⁻¹(1 − α) − μ), the μ-GDP trade-off function (Dong, Roth & Su 2022)."""
    from certdp.expr.brackets import monotone  # noqa: PLC0415
    from certdp.numerics.gdp import tradeoff_mu as _f  # noqa: PLC0415

    return monotone(lambda m, a: _f(m, a, **options), (mu, "mu", -1), (alpha, "alpha", -1))


def adp_to_prdp(eps: object, delta: object, eps_hat: object, **options: Any) -> Enclosure:
    """δ̂ with (ε, δ)-ADP ⇒ (ε̂, δ̂)-PrDP (Guingona et al. 2023 §2)."""
    from certdp.analyses.prdp import adp_to_prdp as _f  # noqa: PLC0415

    return _f(eps, delta, eps_hat, **options)


def verify(path: str) -> Any:
    """Check a certificate file with the independent checker (``certdp verify``)."""
    from certdp.certificates import verify as _verify  # noqa: PLC0415

    return _verify(path)


# -- additions for the teaching notebooks (issue 18): accountants, switch points,
# finite mechanisms and the ADP/PrDP counterexample, Theorem 5.1 ---------------

def mu_pure_dp(eps0: object, **options: Any) -> Enclosure:
    """μ₀ = −2Φ⁻¹(1/(1 + e^{ε₀})): every ε₀-DP mechanism is μ₀-GDP, tight for
    randomized response (Liu et al. 2022 Thm 5.1)."""
    from certdp.expr.brackets import monotone  # noqa: PLC0415
    from certdp.numerics.gdp import mu_from_pure_dp  # noqa: PLC0415

    return monotone(lambda e: mu_from_pure_dp(e, **options), (eps0, "eps0", +1))


def phi(mech: str | Mechanism, count: int = 1, *, method: str = "auto", **options: Any) -> Any:
    """The characteristic-function accountant (Zhu, Dong & Wang 2022) holding ``count``
    copies of the mechanism: φ of the composition is the product of the φ's.
    ``.delta(eps)`` and ``.epsilon(delta)`` are certified enclosures;
    ``.compose(other, k)`` adds more (heterogeneous compositions);
    ``.log_phi_expr()`` is the accumulated log φ(t) (sympy), ``.mu_squared`` the
    Gaussian part, ``.delta_at_infinity()`` the mass of the loss at +∞.
    ``method``: ``"auto"``, ``"exact"`` (atom convolution / closed forms) or
    ``"integral"`` (the certified Lévy inversion integral, needs a Gaussian)."""
    from certdp.analyses.accountants.phi import PhiAccountant  # noqa: PLC0415

    return PhiAccountant(method=method, **options).compose(mechanism(mech), count)


def pld(mech: str | Mechanism, count: int = 1, *, h: object = None, **options: Any) -> Any:
    """The certified privacy-loss-distribution accountant (Doroshenko et al. 2022
    connect-the-dots discretisation, losses rounded outward, exact integer
    convolution) holding ``count`` copies of a (Poisson-subsampled) Gaussian:
    ``.delta(eps)`` and ``.epsilon(delta)`` are enclosures; ``h`` is the loss grid
    step (default chosen from the composition; a coarser grid only widens them)."""
    from certdp.analyses.accountants.pld import PLDAccountant  # noqa: PLC0415

    return PLDAccountant(h=h, **options).compose(mechanism(mech), count)


def switch_point(mech: str | Mechanism, **options: Any) -> Any:
    """The certified switch point (ε*, δ*) of a mechanism known by σ = f(ε, δ)
    (``sgd``, ``icea``, ``tradeoff``): the refined profile is the Theorem 3.1
    segment from (ε*, δ*) left of ε* and the naive profile right of it
    (Liu et al. 2022 App. B).  Fields ``eps``, ``delta`` (enclosures)."""
    from certdp.errors import InputError  # noqa: PLC0415
    from certdp.mechanisms.formula import TradeoffMechanism  # noqa: PLC0415

    m = mechanism(mech)
    if not isinstance(m, TradeoffMechanism):
        raise InputError(f"{m.spec()}: switch points exist for sgd, icea and tradeoff mechanisms only")
    return m.switch_point(**options)


def _finite(table: Any, labels: dict[str, Any]) -> Any:
    from certdp.analyses.prdp.finite import DiagonalMechanism, FiniteMechanism  # noqa: PLC0415

    if isinstance(table, (FiniteMechanism, DiagonalMechanism)):
        return table
    return FiniteMechanism(table, **labels)


def is_adp(table: Any, eps: object, delta: object, **labels: Any) -> Any:
    """Exact decision: is the finite mechanism with rows ``table[input][output]``
    (exact entries: ints, Fractions, strings such as ``"1/3"`` or ``"e/(1+e)"``)
    (ε, δ)-approximately DP?  Hockey-stick divergence
    max over neighbours (a, b) of Σ_c (p_a(c) − e^ε p_b(c))⁺ ≤ δ (Guingona et al. 2023
    Def 2.2).  ``labels``: ``inputs``, ``outputs``, ``neighbours`` (default all pairs).
    Returns a check with ``holds``, ``margin`` (δ − sup) and ``witness``."""
    from certdp.analyses.prdp.finite import is_adp as _f  # noqa: PLC0415

    return _f(_finite(table, labels), eps, delta)


def is_prdp(table: Any, eps: object, delta: object, **labels: Any) -> Any:
    """Exact decision: is the finite mechanism (ε, δ)-probabilistically DP,
    P_{c∼M(a)}[p_a(c)/p_b(c) > e^ε] ≤ δ for all neighbours (Guingona et al. 2023
    Def 2.2)?  Arguments and result as for :func:`is_adp`."""
    from certdp.analyses.prdp.finite import is_prdp as _f  # noqa: PLC0415

    return _f(_finite(table, labels), eps, delta)


def counterexample(eps: object, delta: object, eps_hat: object) -> Any:
    """An (ε, δ)-ADP mechanism that is not (ε̂, δ)-PrDP (Guingona et al. 2023
    Thm 3.2, via Lemma 3.1): ``n`` outputs, the rational ``p``, ``q``, the exact
    verdicts ``adp`` and ``prdp``, the Lemma 3.1 ``conditions`` and ``valid``."""
    from certdp.analyses.prdp.constructions import theorem_3_2  # noqa: PLC0415

    return theorem_3_2(eps, delta, eps_hat)


__all__ = ["mechanism", "delta", "epsilon", "gdp", "gdpt", "identify", "dpsgd", "calibrate", "rdp", "rdp_epsilon",
           "rdp_delta", "zcdp", "delta_mu",
           "mu_gdp", "eps_gdp", "tradeoff_mu", "adp_to_prdp", "verify", "mu_pure_dp", "phi", "pld",
           "switch_point", "is_adp", "is_prdp", "counterexample", "Answer", "GDPAnswer", "Enclosure"]
