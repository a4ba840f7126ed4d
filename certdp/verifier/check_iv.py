"""``certdp verify --kernel mpmath``: re-check closed-form certificates with a
second, independent interval kernel (mpmath ``iv`` and
:mod:`certdp.numerics.iv`'s rigorous erfc), computing nothing with python-flint.

Kinds and what is re-derived (the same inequalities as the flint checker):

* ``gdp_exact`` — exact rational arithmetic only (kernel-free): μ² >= the exact μ².
* ``dp`` / ``not_dp`` with a closed-form profile — δ_M(ε) <= δ / > δ.
  With evidence ``pld`` (DP-SGD) the one-step discretisation is recomputed in
  intervals (:mod:`check_pld_iv`) and only the exact integer convolution is shared.
* ``not_gdp`` — the witness δ_A(ε*) > δ_μ(ε*).
* ``gdp`` / ``gdp_head`` — first-order cells δ_A(a_i) <= δ_μ(a_{i+1}) (or
  δ_A(a_i) = 0), else the second-order (mean-value) test of
  :mod:`certdp.numerics.cells` in intervals; the zero tail, the residual and the μ⁻ witness.
* ``not_dp`` with ``pld_lower`` (DP-SGD: the dominated one-step PLD in intervals,
  :func:`check_pld_iv.delta_lower`), ``not_gdp_except`` (its witness against that
  bound or the all-sampled bound), accountant ``value``s (evidence ``upper``/``lower``,
  each end as a dp / not_dp certificate).
* ``gdp_except``: :mod:`certdp.verifier.check_fdp_iv`; switch points and GDP claims on
  sgd/icea: :mod:`certdp.verifier.switch_iv`.
* ``dp`` with ``pld_profile`` / ``pld_items`` (:mod:`check_profile_pld_iv`), ``pld_law`` and
  ``not_dp`` with ``pld_law_lower`` (:mod:`check_law_pld_iv`), ``not_dp_shuffled``
  (:mod:`check_shuffle_iv`), noise refinements (:mod:`check_optimum_iv`).
* Closed forms from :mod:`certdp.verifier.mechs_iv` (no sympy); only ``profile("...")``
  expressions go through the expression evaluator's interval backend.
* ``value`` — μ_GDP(ε, δ) ∈ [lo, hi] via δ_lo(ε) <= δ <= δ_hi(ε); δ_M(ε) ∈ [lo, hi];
  ε* <= hi via δ_M(hi) <= δ (and lo via δ_M(lo) > δ), plus the printed-number verdict;
  switch points in intervals (:mod:`switch_iv`), noise refinements (:mod:`check_optimum_iv`).
* ``adp_not_prdp`` — every certified sign of :mod:`check_prdp` in mpmath intervals.

An undecided comparison is retried at 2× and 4× the certificate's precision,
then fails (never guessed).  Structure is validated by the same schema code as
the flint checker.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Callable, Mapping

import mpmath
from mpmath import iv, libmp

from certdp.verifier.check_exact import check as check_gdp_exact
from certdp.verifier.facts import known_facts_step, parse_mechanism
from certdp.verifier.schema import GDP_KINDS, MalformedCertificate, validate_gdp, validate_top
from certdp.verifier.errors import InputError, PrecisionError
from certdp.verifier import iv as kernel
from certdp.verifier.exact import exact


class _Fail(Exception):
    pass


def _num(text: Any, where: str) -> Fraction:
    try:
        return exact(text, where)
    except (InputError, TypeError) as err:
        raise MalformedCertificate(str(err)) from None


def _decide(test: Callable[[], bool | None], prec: int, what: str) -> bool:
    """True/False once decided at prec, 2·prec or 4·prec; else _Fail(what)."""
    old = iv.prec
    try:
        for p in (prec, 2 * prec, 4 * prec):
            iv.prec = p
            out = test()
            if out is not None:
                return out
    finally:
        iv.prec = old
    raise _Fail(f"undecided under the mpmath kernel: {what}")


def _profile(mech: Any) -> Callable[[Fraction], Any]:
    """ε ↦ δ_mech(ε) in intervals: the closed forms of :mod:`certdp.verifier.mechs_iv` (no
    sympy); only ``profile("...")`` expressions go through the expression evaluator."""
    from certdp.verifier.mechs_iv import NoClosedForm, profile  # noqa: PLC0415

    try:
        return profile(mech)
    except NoClosedForm as err:
        raise _Fail(str(err)) from None


def _point_at(q: Fraction, prec: int) -> Any:
    """The interval of an exact rational at ``prec`` bits (not mpmath's default 53)."""
    old = iv.prec
    iv.prec = prec
    try:
        return kernel.point(q)
    finally:
        iv.prec = old


def _le(x: Any, y: Any) -> bool | None:
    """Certain x <= y (True), certain x > y (False), else None."""
    if x.b <= y.a:
        return True
    if x.a > y.b:
        return False
    return None


def _gt(x: Any, y: Any) -> bool | None:
    """Certain x > y (True), certain x <= y (False), else None."""
    out = _le(x, y)
    return None if out is None else not out


def _dmu_iv(m: Any, x: Any) -> Any:
    """δ_μ over intervals, Φ from the fixed-point table (:func:`certdp.verifier.mechs_iv.delta_mu`)."""
    from certdp.verifier.mechs_iv import delta_mu  # noqa: PLC0415

    return delta_mu(m, x)


def _dmu(mu: Fraction, e: Fraction) -> Any:
    """δ_μ(ε) at the current precision (:func:`certdp.verifier.mechs_iv.delta_mu`; μ's interval
    made once per precision)."""
    from certdp.verifier.mechs_iv import _point, delta_mu  # noqa: PLC0415

    return delta_mu(_point(mu, iv.prec), kernel.point(e))


def check(doc: Any) -> tuple[bool, str | None]:
    """(valid, first failing step) under the mpmath kernel."""
    validate_top(doc)
    kind = doc["claim"]["kind"]
    try:
        if kind == "gdp_exact":
            return check_gdp_exact(doc)
        if kind in GDP_KINDS:
            validate_gdp(doc)
            return _gdp(doc)
        if kind in ("dp", "not_dp"):
            return _dp(doc)
        if kind == "value":
            return _value(doc)
        if kind == "not_gdp_except":
            return _not_gdp_except(doc)
        if kind == "not_dp_shuffled":
            from certdp.verifier.check_shuffle_iv import check as check_shuffle_iv  # noqa: PLC0415

            return check_shuffle_iv(doc)
        if kind == "gdp_except":
            from certdp.verifier.check_fdp_iv import check as check_fdp_iv  # noqa: PLC0415

            return check_fdp_iv(doc)
        if kind == "adp_not_prdp":
            from certdp.verifier.check_prdp import check as check_prdp  # noqa: PLC0415

            return check_prdp(doc, kernel="mpmath")
    except _Fail as err:
        return False, str(err)
    raise MalformedCertificate(f"unknown claim kind {kind!r}")


def _dp(doc: Mapping[str, Any]) -> tuple[bool, str | None]:
    from certdp.verifier.check_dp import PLD_EVIDENCE, _validate  # noqa: PLC0415  (structure only)

    mech, eps, delta = _validate(doc)
    step = known_facts_step(doc, mech)
    if step is not None:
        return False, step
    if "pld" in doc["evidence"]:  # DP-SGD: the one-step discretisation in intervals
        from certdp.verifier.check_pld_iv import delta_upper  # noqa: PLC0415

        for prec in (doc["precision"], 2 * doc["precision"]):
            try:
                y = delta_upper(mech, eps, doc["evidence"]["pld"], prec)
            except PrecisionError:
                continue
            except InputError as err:  # e.g. a stated one-step cut below the re-derived tails
                return False, f"re-deriving the PLD in intervals failed: {err}"
            d = _point_at(delta, prec).a
            if y <= d:
                return True, None
            if y > d * (1 + mpmath.mpf(2) ** -20):
                break  # not borderline: finer intervals would not prove it
        return False, (f"the upper PLD re-derived in intervals does not prove delta({doc['claim']['eps']}) "
                       f"<= {doc['claim']['delta']}")
    if "pld_lower" in doc["evidence"]:  # DP-SGD refuted: the dominated one-step PLD in intervals
        from certdp.verifier.check_pld_iv import delta_lower  # noqa: PLC0415

        for prec in (doc["precision"], 2 * doc["precision"]):
            try:
                y = delta_lower(mech, eps, doc["evidence"]["pld_lower"], prec)
            except PrecisionError:
                continue
            if y > _point_at(delta, prec).b:
                return True, None
        return False, (f"the lower PLD re-derived in intervals does not refute delta({doc['claim']['eps']}) "
                       f"<= {doc['claim']['delta']}")
    ev = doc["evidence"]
    if "pld_law_lower" in ev:  # the dominated loss laws of a subsampled base, refuting dp
        from certdp.verifier.check_law_pld_iv import delta_lower as law_lower  # noqa: PLC0415

        for prec in (doc["precision"], 2 * doc["precision"]):
            try:
                y = law_lower(mech, eps, ev["pld_law_lower"], prec)
            except PrecisionError:
                continue
            if y > _point_at(delta, prec).b:
                return True, None
        return False, (f"the lower loss-law PLD re-derived in intervals does not refute delta({doc['claim']['eps']}) "
                       f"<= {doc['claim']['delta']}")
    if "pld_profile" in ev or "pld_items" in ev or "pld_law" in ev:  # profile pairs, items, loss laws
        from certdp.verifier.check_law_pld_iv import delta_upper as law_upper  # noqa: PLC0415
        from certdp.verifier.check_profile_pld_iv import delta_upper as profile_upper  # noqa: PLC0415
        from certdp.verifier.check_profile_pld_iv import items_delta_upper  # noqa: PLC0415

        for prec in (doc["precision"], 2 * doc["precision"]):
            try:
                y = (profile_upper(mech, eps, ev["pld_profile"], prec) if "pld_profile" in ev
                     else items_delta_upper(mech, eps, ev["pld_items"], prec) if "pld_items" in ev
                     else law_upper(mech, eps, ev["pld_law"], prec))
            except PrecisionError:
                continue
            except InputError as err:
                return False, str(err)
            if isinstance(y, str):
                return False, y
            if y <= _point_at(delta, prec).a:
                return True, None
        return False, (f"the upper PLD re-derived in intervals does not prove delta({doc['claim']['eps']}) "
                       f"<= {doc['claim']['delta']}")
    if (set(PLD_EVIDENCE) - {"pld", "pld_lower"}) & set(doc["evidence"]):  # the other PLD evidence kinds
        return False, "this certificate needs the flint kernel (exact integer convolution of the PLD)"
    prof = _profile(mech)
    holds = _decide(lambda: _le(prof(eps), kernel.point(delta)), doc["precision"], "delta_M(eps) against delta")
    if doc["claim"]["kind"] == "dp":
        return (True, None) if holds else (False, "delta_M(eps) > delta: not (eps, delta)-DP")
    return (True, None) if not holds else (False, "delta_M(eps) <= delta: the mechanism is (eps, delta)-DP")


def _gdp(doc: Mapping[str, Any]) -> tuple[bool, str | None]:
    claim, ev, prec = doc["claim"], doc["evidence"], doc["precision"]
    second_fns: Callable[[], Any] | None = None
    if "switch" in ev:  # sgd/icea: the refined profile from the switch point, proved in intervals
        from certdp.verifier.switch import bracket_of, reach_of  # noqa: PLC0415  (rationals only)
        from certdp.verifier.switch_iv import RefinedIV  # noqa: PLC0415

        naive = parse_mechanism(doc, naive_ok=True)
        if getattr(naive, "name", None) not in ("sgd", "icea"):
            raise MalformedCertificate("evidence.switch is for sgd(...) and icea(...) only")
        r0, r1, tail = bracket_of(ev["switch"], "evidence.switch", tail=True)
        mech = RefinedIV(naive, r0, r1, tail)
        step = mech.prove(prec, reach_of(doc))
        if step is not None:
            return False, f"switch point: {step}"
        prof, second_fns = mech.prof, mech.functions
    else:
        mech = parse_mechanism(doc)
        prof = None
    step = known_facts_step(doc, mech)
    if step is not None:
        return False, step
    prof = prof or _profile(mech)
    mu = _num(claim["mu"], "claim.mu")
    if claim["kind"] == "not_gdp":
        e = _num(ev["witness"]["eps"], "evidence.witness.eps")
        ok = _decide(lambda: _gt(prof(e), _dmu(mu, e)), prec, "the not_gdp witness")
        return (True, None) if ok else (False, "witness: delta_A(eps) > delta_mu(eps) does not hold")
    cells = [_num(c, f"evidence.cells[{i}]") for i, c in enumerate(ev["cells"])]
    eps_max = _num(claim["eps_max"], "claim.eps_max")
    if cells[0] != 0 or cells[-1] != eps_max or any(not a < b for a, b in zip(cells, cells[1:])):
        return False, "cells: breakpoints must increase from 0 to eps_max"
    second: list = []  # (P, P') compiled on first need; [None] if unavailable

    for i, (a, b) in enumerate(zip(cells, cells[1:])):
        def cell(a: Fraction = a, b: Fraction = b) -> bool | None:
            y = prof(a)
            if y.b <= 0:
                return True
            if _le(y, _dmu(mu, b)):
                return True
            if not second:
                second.append(second_fns() if second_fns else _second_order_functions(mech))
            if second[0] is not None and _second_order(*second[0], mu, a, b):
                return True
            return None
        try:
            _decide(cell, prec, f"cell {i}")
        except _Fail:
            return False, f"cell {i}: delta_A <= delta_mu is not proved on [a, b] (first- and second-order tests)"
    tail = ev["tail"]
    if tail["kind"] == "zero":
        ez = _num(tail["eps_zero"], "evidence.tail.eps_zero")
        if not 0 <= ez <= eps_max or not _decide(lambda: prof(ez).b <= 0 or None, prec, "the zero tail"):
            return False, "tail: delta_A(eps_zero) = 0 does not hold"
    if "residual" in claim:
        r = _num(claim["residual"], "claim.residual")
        if not _decide(lambda: _le(prof(eps_max), kernel.point(r)), prec, "the residual"):
            return False, "residual: delta_A(eps_max) <= residual does not hold"
    if "mu_lower" in claim:
        ml = _num(claim["mu_lower"], "claim.mu_lower")
        if ml > 0:
            e = _num(ev["witness"]["eps"], "evidence.witness.eps")
            if not _decide(lambda: _le(_dmu(ml, e), prof(e)), prec, "the mu_lower witness"):
                return False, "witness: delta_A(eps) >= delta_mu(mu_lower, eps) does not hold"
    return True, None


def _second_order_functions(mech: Any) -> tuple[Callable[[Any], Any], Callable[[Any], Any]] | None:
    """(P, P') on intervals: the table's closed forms and slopes (:mod:`certdp.verifier.mechs_iv`),
    else (``profile("...")``) the expression and its sympy derivative under the iv backend; or None."""
    from certdp.verifier.mechs_iv import covered, functions  # noqa: PLC0415

    fns = functions(mech)
    if fns is not None:
        return fns
    if covered(mech):
        return None  # a closed form without a slope here: no second-order test
    from certdp.expr.derivative import derivative  # noqa: PLC0415  (sympy: user expressions only)
    from certdp.expr.ivbackend import compile_iv  # noqa: PLC0415
    from certdp.expr.symbols import EPS  # noqa: PLC0415

    try:
        p = mech.profile()
        d = derivative(p)
        if d is None:
            return None
        return compile_iv(p, (EPS,)), compile_iv(d, (EPS,))
    except InputError:
        return None


def _second_order(P: Callable[[Any], Any], dP: Callable[[Any], Any], mu: Fraction, a: Fraction, b: Fraction) -> bool:
    """The mean-value cell test (:mod:`certdp.numerics.cells`) in mpmath intervals:
    f = δ_μ − P, f(a) >= 0 and f(a) + min(0, inf f'([a, b]))·(b − a) >= 0, with
    f' = δ_μ' − P', δ_μ'(ε) = −e^ε Φ(−ε/μ − μ/2).  Sound for a non-increasing P."""
    m, ia = kernel.point(mu), kernel.point(a)
    f_a = _dmu_iv(m, ia) - P(ia)
    if not f_a.a >= 0:
        return False
    cell = kernel.hull(ia, kernel.point(b))
    from certdp.verifier.phi_series import ncdf  # noqa: PLC0415

    D = -(iv.exp(cell) * ncdf(-cell / m - m / 2)) - dP(cell)
    lo, hi = D._mpi_
    if lo in (libmp.fninf, libmp.fnan) or hi in (libmp.finf, libmp.fnan):
        return False
    if D.a >= 0:
        return True
    return bool((f_a + D.a * kernel.point(b - a)).a >= 0)


def _value(doc: Mapping[str, Any]) -> tuple[bool, str | None]:
    from certdp.verifier.check_value import check_verdict, validate  # noqa: PLC0415

    c, q, at, lo, hi = validate(doc)  # structure only: no arithmetic
    if q.startswith("switch_"):  # the switch-point proof in intervals
        from certdp.verifier.switch_iv import check_switch_iv  # noqa: PLC0415

        step = check_switch_iv(doc, q, lo, hi, max(doc["precision"], 64))
        return (False, step) if step is not None else check_verdict(c, lo, hi)
    if q.startswith("refined_"):  # the noise refinement's cell proof in intervals (a user formula: sympy)
        from certdp.verifier.check_optimum_iv import check_refined_iv  # noqa: PLC0415

        step = check_refined_iv(doc, q, lo, hi, max(doc["precision"], 64))
        return (False, step) if step is not None else check_verdict(c, lo, hi)
    prec = doc["precision"]
    if lo < 0:
        return False, "the quantity is non-negative; claim.lo < 0 is not a proved lower end"
    if q == "mu_gdp":  # every interval made inside the decision loop, at its precision
        def e() -> Any:
            return kernel.point(at["eps"])

        def d() -> Any:
            return kernel.point(at["delta"])

        ok = (lo <= 0 or _decide(lambda: _le(_dmu_iv(kernel.point(lo), e()), d()), prec,
                                 "delta_lo <= delta")) \
            and _decide(lambda: _le(d(), _dmu_iv(kernel.point(hi), e())), prec, "delta <= delta_hi")
    elif doc["evidence"]:  # an accountant's answer: each end as the dp / not_dp certificate it amounts to
        from certdp.verifier.check_value import check_ends  # noqa: PLC0415

        step = check_ends(doc, q, at, lo, hi, dp_check=_dp)
        if step is not None:
            return False, step
        ok = True
    else:
        mech = parse_mechanism(doc)
        step = known_facts_step(doc, mech)
        if step is not None:
            return False, step
        if lo > 0 and not mech.profile_kind.bounds_from_below:
            return False, f"a lower end needs an exact profile; {doc['mechanism']}'s is {mech.profile_kind.value}"
        prof = _profile(mech)
        if q == "delta":
            y = lambda: prof(at["eps"])  # noqa: E731
            ok = _decide(lambda: _le(y(), kernel.point(hi)), prec, "delta <= hi") and \
                (lo <= 0 or _decide(lambda: _le(kernel.point(lo), y()), prec, "lo <= delta"))
        else:
            def d() -> Any:  # at the decision loop's precision (a 53-bit δ could never be separated)
                return kernel.point(at["delta"])

            ok = _decide(lambda: _le(prof(hi), d()), prec, "delta_M(hi) <= delta") and \
                (lo <= 0 or _decide(lambda: _gt(prof(lo), d()), prec, "delta_M(lo) > delta"))
    if not ok:
        return False, "the enclosure is not proved by the mpmath kernel"
    return check_verdict(c, lo, hi)


def _cancellation_bits(mu: float, eps: float) -> int:
    """Extra bits for δ_μ(ε) = Φ(a) − e^ε Φ(a − μ) in intervals (a = −ε/μ + μ/2): the
    cancellation log2(1 + ε/μ²), Φ's sensitivity at |a|, e^ε's at ε (a guess: re-checked)."""
    import math  # noqa: PLC0415

    a = eps / mu + mu / 2
    return 16 + int(math.log2(1 + eps / (mu * mu)) + 2 * math.log2(1 + a) + math.log2(1 + eps))


def _not_gdp_except(doc: Mapping[str, Any]) -> tuple[bool, str | None]:
    """:mod:`check_refute` in intervals: the witness δ_M(ε*) > δ_μ(ε*) + η, δ_M(ε*) bounded
    from below by q^T δ_{√T/s}(ε* + T log(1/q)) (all sampled) or the dominated PLDs."""
    import math  # noqa: PLC0415

    from certdp.verifier.check_pld import subsampled_gaussians  # noqa: PLC0415  (structure only)
    from certdp.verifier.check_refute import validate  # noqa: PLC0415  (structure only)

    mech, mu, eta, e = validate(doc)
    step = known_facts_step(doc, mech)
    if step is not None:
        return False, step
    ev = doc["evidence"]
    s, q, count = subsampled_gaussians(mech)
    arg_f = float(e) + count * -math.log(float(q)) if q < 1 else float(e)
    extra = _cancellation_bits(float(mu), float(e))
    if "bound" in ev:
        extra += _cancellation_bits(math.sqrt(count) / float(s), arg_f)
    for prec in (doc["precision"] + extra, 2 * (doc["precision"] + extra)):
        old = iv.prec
        iv.prec = prec
        try:
            if "bound" in ev:
                qb = kernel.point(q)
                low = iv.exp(count * iv.log(qb)) * _dmu_iv(iv.sqrt(count) / kernel.point(s),
                                                                     kernel.point(e) - count * iv.log(qb))
                low = low.a
            else:
                from certdp.verifier.check_pld_iv import delta_lower  # noqa: PLC0415

                low = delta_lower(mech, e, ev["pld_lower"], doc["precision"])
            up = (_dmu(mu, e) + kernel.point(eta)).b
            if low > up:
                return True, None
        except PrecisionError:
            continue
        finally:
            iv.prec = old
    return False, (f"witness: a lower bound of delta_M({ev['witness']['eps']}) > delta_mu({doc['claim']['mu']}) "
                   f"+ {doc['claim']['residual']} does not hold")
