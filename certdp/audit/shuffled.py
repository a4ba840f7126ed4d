"""Verdicts on claims about DP-SGD with shuffled fixed-size batches (no spec names such a run).

A claim whose ``event`` is a :class:`~certdp.audit.claims.ShuffledRun` is decided with the two
certified bounds of :mod:`certdp.analyses.accountants.shuffle`:

* the **lower bound** (an explicit pair of datasets, zero-out; it also holds under replace-one):
  a claimed ε at or below it — or a claimed δ below the proved δ_lower(ε) — is REFUTED, with a
  certificate of kind ``not_dp_shuffled`` that ``certdp verify`` re-checks;
* the **upper bound without amplification**, (√E/σ)-GDP over the E epochs: a claim at or above
  it is CONFIRMED, with the certificate of ``compose(gaussian(sigma=σ), k=E)``, which states that
  bound (why it holds for the shuffled run: every record is in exactly one batch per epoch, and
  mixing over the permutations cannot increase a hockey-stick divergence).

Between the two the claim stays INCONCLUSIVE: certdp has no certified upper bound for shuffling
tighter than no amplification, so a claimed ε above the lower bound is neither confirmed nor
refuted.  The claim's relation is recorded as published; the bounds are stated for zero-out.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from typing import Callable

from certdp.audit.claims import Claim, ShuffledRun
from certdp.audit.outcome import CONFIRMED, INCONCLUSIVE, REFUTED, Verdict
from certdp.errors import BudgetExceeded, InputError
from certdp.numerics.enclosure import Enclosure
from certdp.numerics.exact import fraction_to_str, printed_interval

METHOD = ("shuffled batches: certified lower bound from an explicit pair (zero-out; also replace-one) and "
          "the no-amplification upper bound (√E/σ)-GDP")
NO_UPPER = ("certdp has no certified upper bound for shuffled batches tighter than no amplification, so a "
            "claim above the lower bound is not decided")


def _run(run: ShuffledRun, *, delta: Fraction | None = None, eps: Fraction | None = None):
    from certdp.analyses.accountants.shuffle import shuffled_dpsgd  # noqa: PLC0415

    return shuffled_dpsgd(run.noise, batch_size=run.batch, dataset_size=run.n, epochs=run.epochs,
                          delta=delta, eps=eps)


def no_amplification_spec(run: ShuffledRun) -> str:
    """The spec whose guarantee is the no-amplification upper bound of the shuffled run."""
    return f"compose(gaussian(sigma={fraction_to_str(run.noise)}), k={run.epochs})"


def _describe(run: ShuffledRun) -> str:
    return (f"shuffled run σ = {fraction_to_str(run.noise)}, batch {run.batch} of {run.n} "
            f"({run.n // run.batch} steps per epoch), {run.epochs} epochs, relation {run.relation}")


def _lower_certificate(res, refutes: Fraction, *, on_delta: bool) -> tuple[dict | None, str | None]:
    """The ``not_dp_shuffled`` certificate when it carries the refutation (its stated ε, or δ,
    reaches ``refutes``), else the reason there is none."""
    from certdp.certificates.shuffle_writer import shuffled_certificate  # noqa: PLC0415

    try:
        cert = shuffled_certificate(res)
    except (InputError, BudgetExceeded) as err:
        return None, str(err)
    stated = Fraction(cert["claim"]["delta" if on_delta else "eps"])
    if stated < refutes:  # the rounded statement falls short of what the verdict needs
        return None, (f"the lower bound's certificate states {'δ' if on_delta else 'ε'} = {cert['claim']['delta' if on_delta else 'eps']}, "
                      f"below the {fraction_to_str(refutes)} the verdict rests on")
    return cert, None


#: The audit's route for a ``dp`` claim on a spec (``certdp.audit.verdicts._dp``), passed in by the caller.
DpRoute = Callable[[Claim, bool], Verdict]


def _upper_verdict(claim: Claim, run: ShuffledRun, want_certificate: bool, dp_route: DpRoute) -> Verdict:
    """The no-amplification spec's own verdict on the claim's (ε, δ) (confirmation route)."""
    proxy = dataclasses.replace(claim, kind="dp", mechanism=no_amplification_spec(run), shuffled=None)
    return dp_route(proxy, want_certificate)


def shuffled_eps(claim: Claim) -> Enclosure:
    """[lower, upper] for the shuffled run's ε at the claim's δ (for reports)."""
    run = claim.shuffled
    assert run is not None
    delta = claim.at["delta"] if claim.kind == "value" else claim.delta
    res = _run(run, delta=delta)
    return Enclosure.hull(Enclosure.exact(res.lower.eps), res.upper.eps)


def audit_shuffled(claim: Claim, want_certificate: bool, dp_route: DpRoute) -> Verdict:
    """Certified verdict on a claim about a shuffled-batches DP-SGD run (``dp_route`` decides the
    no-amplification spec's ``dp`` claim: the audit's own route, so its certificate is the usual one)."""
    run = claim.shuffled
    assert run is not None
    if claim.kind == "value":
        return _value(claim, run, want_certificate)
    eps_s, delta_s = fraction_to_str(claim.eps), fraction_to_str(claim.delta)
    up = _upper_verdict(claim, run, want_certificate, dp_route)  # closed form: cheap, so tried first
    if up.verdict == CONFIRMED:  # the no-amplification bound already gives the guarantee
        enc = Enclosure(Enclosure.exact(0).lo, up.enclosure.hi)  # lower end not computed: 0
        detail = (f"no amplification: the {_describe(run)} is (√{run.epochs}/σ)-GDP, the guarantee of "
                  f"{no_amplification_spec(run)}; {up.detail}")
        verdict = CONFIRMED if claim.kind == "dp" else REFUTED
        return Verdict(claim.id, verdict, enc, True if claim.kind == "dp" else None, detail, METHOD,
                       certificate=up.certificate, no_certificate=up.no_certificate)
    res = _run(run, eps=claim.eps)
    low = res.lower.delta
    enc = Enclosure(low.lo if low is not None else Enclosure.exact(0).lo, res.upper.delta.hi)
    if low is not None and low.lo_exact > claim.delta:  # proved: not (ε, δ)-DP
        cert, why = _lower_certificate(res, claim.delta, on_delta=True) if want_certificate else (None, None)
        detail = (f"witness: the {_describe(run)} has δ({eps_s}) ≥ {low.lo_str(8)} > {delta_s} "
                  f"(explicit pair {res.lower.construction}, {res.lower.direction})")
        if claim.kind == "dp":
            return Verdict(claim.id, REFUTED, enc, False, detail, METHOD, certificate=cert, no_certificate=why)
        return Verdict(claim.id, CONFIRMED, enc, None, detail, METHOD, certificate=cert, no_certificate=why)
    detail = (f"the {_describe(run)} has δ({eps_s}) ∈ {enc}, which straddles δ = {delta_s}: the certified lower "
              f"bound does not exceed it and {NO_UPPER}")
    return Verdict(claim.id, INCONCLUSIVE, enc, None, detail, METHOD)


def _value(claim: Claim, run: ShuffledRun, want_certificate: bool) -> Verdict:
    delta = claim.at["delta"]
    res = _run(run, delta=delta)
    lower, upper = res.lower.eps, res.upper.eps
    enc = Enclosure.hull(Enclosure.exact(lower), upper)
    p_lo, p_hi = printed_interval(claim.reported, claim.rounding)
    d_s = fraction_to_str(delta)
    if res.lower.delta is not None and lower >= p_hi:  # the truth is above every number the digits stand for
        cert, why = _lower_certificate(res, p_hi, on_delta=False) if want_certificate else (None, None)
        detail = (f"eps ∈ {enc} at δ = {d_s} for the {_describe(run)}: the certified lower bound "
                  f"{Enclosure.exact(lower).lo_str(8)} (δ_lower ≥ {res.lower.delta.lo_str(8)} > {d_s}) is above the "
                  f"printed {claim.reported} (stands for [{fraction_to_str(p_lo)}, {fraction_to_str(p_hi)}]): "
                  "not a valid guarantee for the shuffled run")
        return Verdict(claim.id, REFUTED, enc, False, detail, METHOD, printed=claim.reported,
                       certificate=cert, no_certificate=why)
    if upper.hi_exact < p_lo:  # valid, and loose even against the no-amplification bound
        detail = (f"eps ∈ {enc} at δ = {d_s} for the {_describe(run)}: the no-amplification upper bound "
                  f"{upper.hi_str(8)} is below the printed {claim.reported}, a valid but loose guarantee")
        why = ("the audit writes no certificate for a value claim above the no-amplification bound"
               if want_certificate else None)
        return Verdict(claim.id, REFUTED, enc, True, detail, METHOD, printed=claim.reported, no_certificate=why)
    detail = (f"eps ∈ {enc} at δ = {d_s} for the {_describe(run)}: the printed {claim.reported} is above the "
              f"certified lower bound and {NO_UPPER}")
    return Verdict(claim.id, INCONCLUSIVE, enc, None, detail, METHOD, printed=claim.reported)
