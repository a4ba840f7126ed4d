"""Independent certificate checker: ``VALID`` / ``INVALID`` with the first failing step.

Trusted kernel only: this module imports :mod:`certdp.numerics` (ball
arithmetic, δ_μ), :mod:`certdp.expr` (the spec grammar, the expression
evaluator), the checker's own mechanism table (:mod:`certdp.verifier.mechs`)
and the format schema — never the mechanism catalog or the search code
(:mod:`certdp.analyses.gdpt`).  It re-evaluates every inequality of the
evidence in ball arithmetic; an undecided comparison is retried at 2x and 4x
the stated precision and otherwise fails (never guessed).

What each GDP claim means and how it is re-derived (Liu et al. 2022 Def 4.1,
Cor 4.1, Thm 4.6; DESIGN.md "Monotone cell argument"):

* cells 0 = a_0 < ... < a_n = eps_max, each with upper(δ_A(a_i)) <= lower(δ_μ(a_{i+1}))
  (or δ_A(a_i) = 0): then δ_A <= δ_μ on [0, eps_max] because δ_A is
  non-increasing and δ_μ is decreasing; or, failing that, the second-order
  (mean value) test of :mod:`certdp.numerics.cells` on the cell.
* tail zero: eps_zero <= eps_max and δ_A(eps_zero) = 0 ⇒ δ_A = 0 beyond: μ-GDP ("gdp").
* residual r: upper(δ_A(eps_max)) <= r ⇒ δ_A(ε) <= δ_μ(ε) + r for all ε >= 0.
* mu_lower with witness ε*: lower(δ_A(ε*)) >= upper(δ_{mu_lower}(ε*)) ⇒
  G(ε*) >= mu_lower, so no μ < mu_lower makes the mechanism μ-GDP.
* not_gdp μ with witness ε*: lower(δ_A(ε*)) > upper(δ_μ(ε*)).
"""

from __future__ import annotations

import functools
import importlib
import json
import os
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Mapping

from flint import arb

from certdp.errors import InputError, PrecisionError, check_budget
from certdp.numerics.cells import second_order_holds
from certdp.verifier.facts import assumptions_of, known_facts_step, parse_mechanism
from certdp.verifier.slopes import ball_functions
from certdp.verifier.schema import (
    GDP_KINDS,
    MalformedCertificate,
    validate_gdp,
    validate_top,
)
from certdp.numerics.ball import dyadic_to_fraction, lower_bound, to_ball, upper_bound, working_precision
from certdp.numerics.decide import decide
from certdp.numerics.exact import exact
from certdp.numerics.gdp import _delta_mu_start_prec, delta_mu_ball


#: Largest certificate file the checker reads (bytes); see docs/certificates.md.
MAX_FILE_BYTES = 16 * 2**20


class StepFailed(Exception):
    """A certificate step whose inequality does not hold (as far as balls can tell)."""


@dataclass(frozen=True)
class CheckResult:
    """Outcome of a check.  ``assumptions``: the unproved hypotheses a VALID
    claim rests on (stated in the certificate and required by its mechanism);
    such a claim is valid only under them."""

    valid: bool
    claim: dict[str, Any]
    failed_step: str | None
    assumptions: tuple[str, ...] = ()

    @property
    def unconditional(self) -> bool:
        """VALID with no unproved hypothesis."""
        return self.valid and not self.assumptions

    def to_json(self) -> dict[str, Any]:
        return {"valid": self.valid, "claim": self.claim, "failed_step": self.failed_step,
                "assumptions": list(self.assumptions)}

    def __str__(self) -> str:
        if self.valid and self.assumptions:
            return "VALID only under unproved assumptions:\n" + "\n".join(f"  assuming: {a}" for a in self.assumptions)
        if self.valid:
            return "VALID"
        return f"INVALID: {self.failed_step}"


def _num(text: str, where: str) -> Fraction:
    try:
        return exact(text, where)
    except InputError as err:
        raise MalformedCertificate(str(err)) from None


def _prof(mech: Any, eps: Fraction, prec: int) -> arb:
    with working_precision(prec):
        y = mech.delta_ball(to_ball(eps))
    if not y.is_finite():
        raise PrecisionError(f"profile ball at eps = {eps} is not finite")
    return y


def _dmu(mu: Fraction, eps: Fraction, prec: int) -> arb:
    p = max(prec, _delta_mu_start_prec(prec - 24, mu, eps))
    with working_precision(p):
        return delta_mu_ball(to_ball(mu), to_ball(eps))


def _decide(test, prec: int, what: str) -> None:
    """Run ``test(prec)`` (True = holds) at prec, 2 prec, 4 prec (the checker
    re-evaluates, it does not search); raise StepFailed."""
    try:
        decide(lambda p: True if test(p) else None, start=prec, doublings=2, what=what)
    except PrecisionError:
        raise StepFailed(what) from None


@functools.lru_cache(maxsize=32)
def _functions_for_spec(spec: str) -> Any:
    """(P, P') of a spec's profile (cached: a pure function of the spec), needed only for
    a cell the first-order test leaves undecided: the table's closed forms and their
    slopes in balls (:mod:`certdp.verifier.slopes`, no sympy); for ``profile("...")``
    specs the expression and its sympy derivative (:mod:`certdp.expr.derivative`)."""
    try:
        mech = parse_mechanism({"mechanism": spec})
        fns = ball_functions(mech)
        if fns is not None:
            return fns
        p = mech.profile()
    except InputError:
        return None
    from certdp.expr.derivative import expression_functions  # noqa: PLC0415  (sympy)

    return expression_functions(p)


def _check_gdp(doc: Mapping[str, Any], mech: Any) -> None:
    claim, ev, prec = doc["claim"], doc["evidence"], doc["precision"]
    step = known_facts_step(doc, mech)
    if step is not None:
        raise StepFailed(step)
    kind = claim["kind"]
    mu = _num(claim["mu"], "claim.mu")
    if mu <= 0:
        raise StepFailed(f"claim.mu = {claim['mu']} is not positive")
    if kind == "not_gdp":
        e = _num(ev["witness"]["eps"], "evidence.witness.eps")
        if e < 0:
            raise StepFailed("witness eps is negative")
        _decide(
            lambda p: bool(lower_bound(_prof(mech, e, p)) > upper_bound(_dmu(mu, e, p))),
            prec,
            f"witness: delta_A({ev['witness']['eps']}) > delta_mu({claim['mu']}) does not hold",
        )
        return
    eps_max = _num(claim["eps_max"], "claim.eps_max")
    cells = [_num(c, f"evidence.cells[{i}]") for i, c in enumerate(ev["cells"])]
    if cells[0] != 0:
        raise StepFailed("cells: the first breakpoint must be 0")
    if cells[-1] != eps_max:
        raise StepFailed(f"cells: the last breakpoint must equal claim.eps_max = {claim['eps_max']}")
    for i in range(len(cells) - 1):
        if not cells[i] < cells[i + 1]:
            raise StepFailed(f"cells: breakpoints {i} and {i + 1} are not increasing")
    fns = None  # (P, P') for the second-order test, built on first need
    for i in range(len(cells) - 1):
        if i % 64 == 0:
            check_budget("checking the certificate's cells")
        a, b = cells[i], cells[i + 1]

        def cell_ok(p: int, a: Fraction = a, b: Fraction = b) -> bool:
            nonlocal fns
            y = _prof(mech, a, p)
            if y.is_zero() or y <= 0:  # δ_A(a) = 0 <= δ_μ(b) (δ_μ > 0)
                return True
            if y <= _dmu(mu, b, p):  # first order: upper(δ_A(a)) <= lower(δ_μ(b))
                return True
            if fns is None:
                fns = _functions_for_spec(doc["mechanism"]) or False
            if not fns:
                return False
            P, dP = fns
            pb = max(p, _delta_mu_start_prec(p - 24, mu, b))
            with working_precision(pb):
                return second_order_holds(P, dP, to_ball(mu), to_ball(a), to_ball(b), b - a)

        _decide(cell_ok, prec, f"cell {i} [{ev['cells'][i]}, {ev['cells'][i + 1]}]: delta_A(a) <= delta_mu(b) does not hold")
    tail = ev["tail"]
    if tail["kind"] == "zero":
        ez = _num(tail["eps_zero"], "evidence.tail.eps_zero")
        if not 0 <= ez <= eps_max:
            raise StepFailed("tail: eps_zero must lie in [0, eps_max]")
        _decide(
            lambda p: bool(upper_bound(_prof(mech, ez, p)) <= 0),
            prec,
            f"tail: delta_A({tail['eps_zero']}) = 0 does not hold",
        )
    if "residual" in claim:
        r = _num(claim["residual"], "claim.residual")
        _decide(
            lambda p: dyadic_to_fraction(upper_bound(_prof(mech, eps_max, p))) <= r,
            prec,
            f"residual: delta_A(eps_max) <= {claim['residual']} does not hold",
        )
    if "mu_lower" in claim:
        ml = _num(claim["mu_lower"], "claim.mu_lower")
        if "witness" not in ev:
            raise StepFailed("claim.mu_lower needs evidence.witness")
        e = _num(ev["witness"]["eps"], "evidence.witness.eps")
        if e < 0:
            raise StepFailed("witness eps is negative")
        if ml <= 0:
            return  # trivially true: the optimal μ is >= 0
        _decide(
            lambda p: bool(lower_bound(_prof(mech, e, p)) >= upper_bound(_dmu(ml, e, p))),
            prec,
            f"witness: delta_A({ev['witness']['eps']}) >= delta_mu({claim['mu_lower']}) does not hold",
        )


def claim_summary(doc: Mapping[str, Any]) -> dict[str, Any]:
    """The claim as reported by ``certdp verify --json``."""
    out: dict[str, Any] = {"kind": doc["claim"]["kind"], "mechanism": doc["mechanism"]}
    for k, v in doc["claim"].items():
        if k != "kind":
            out[k] = v
    if out["kind"] == "gdp":
        out.setdefault("residual", "0")  # zero tail: no residual
    return out


#: Checker modules for the non-GDP kinds: each has ``KINDS`` and ``check(doc) -> (valid, step)``.
KIND_MODULES = ("certdp.verifier.check_prdp", "certdp.verifier.check_dp", "certdp.verifier.check_exact",
                "certdp.verifier.check_value", "certdp.verifier.check_fdp", "certdp.verifier.check_refute")
#: The module of each of their kinds, imported only when a certificate has that kind
#: (tests/test_checker_closure.py checks it against every module's ``KINDS``).
KIND_HOME = {"adp_not_prdp": "certdp.verifier.check_prdp", "dp": "certdp.verifier.check_dp",
             "not_dp": "certdp.verifier.check_dp", "gdp_exact": "certdp.verifier.check_exact",
             "value": "certdp.verifier.check_value", "gdp_except": "certdp.verifier.check_fdp",
             "not_gdp_except": "certdp.verifier.check_refute"}


def _kind_module(kind: Any) -> Any:
    name = KIND_HOME.get(kind) if isinstance(kind, str) else None
    if name is None:
        raise MalformedCertificate(f"unknown claim kind {kind!r}")
    module = importlib.import_module(name)
    if kind not in module.KINDS:  # pragma: no cover - the table above is wrong
        raise MalformedCertificate(f"claim kind {kind!r} is not checked by {name}")
    return module


def check(doc: Any) -> CheckResult:
    """Check a parsed certificate document.

    Raises :class:`MalformedCertificate` for malformed documents (unknown
    fields/kinds, bad numbers, unparsable mechanism spec).  A field of the wrong
    JSON type that a kind's validation missed still ends as MalformedCertificate
    (never a traceback, never VALID).
    """
    try:
        return _check_document(doc)
    except (TypeError, KeyError, AttributeError, IndexError) as err:
        raise MalformedCertificate(f"malformed certificate: a field has the wrong type or shape "
                                   f"({type(err).__name__}: {err})") from None


def _check_document(doc: Any) -> CheckResult:
    validate_top(doc)
    kind = doc["claim"]["kind"]
    if kind in GDP_KINDS:
        validate_gdp(doc)
        mech = parse_mechanism(doc)
        summary = claim_summary(doc)
        try:
            _check_gdp(doc, mech)
        except StepFailed as err:
            return CheckResult(False, summary, str(err))
        return CheckResult(True, summary, None, assumptions_of(doc))
    module = _kind_module(kind)
    ok, step = module.check(doc)
    stated = assumptions_of(doc) if isinstance(doc["claim"], dict) and ok else ()
    return CheckResult(bool(ok), claim_summary(doc), None if ok else step, stated)


def load(path: str) -> Any:
    """Parse a certificate file: at most MAX_FILE_BYTES of UTF-8 JSON, no
    floats, no duplicate keys (MalformedCertificate otherwise)."""
    if os.path.isdir(path):
        raise InputError(f"cannot read certificate {path!r}: it is a directory")
    try:
        with open(path, "rb") as fh:
            raw = fh.read(MAX_FILE_BYTES + 1)  # never more: /dev/zero must not hang
    except OSError as err:
        raise InputError(f"cannot read certificate {path!r}: {err.strerror}") from None
    if len(raw) > MAX_FILE_BYTES:
        raise MalformedCertificate(f"{path}: larger than {MAX_FILE_BYTES} bytes (the format's limit)")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise MalformedCertificate(f"{path}: not UTF-8 text ({err.reason} at byte {err.start})") from None
    try:
        return json.loads(text, parse_float=_no_float, parse_int=int, parse_constant=_no_float,
                          object_pairs_hook=_no_duplicates)
    except ValueError as err:
        raise MalformedCertificate(f"{path}: not valid JSON ({err})") from None
    except RecursionError:
        raise MalformedCertificate(f"{path}: JSON nested too deeply") from None


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object with each key once: a repeated key (which json would
    silently resolve to the last value) makes the document ambiguous."""
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            raise ValueError(f"duplicate key {k!r}")
        out[k] = v
    return out


def _no_float(text: str) -> Any:
    raise ValueError(f"bare JSON number {text!r}: certificate numbers must be decimal strings")


KERNELS = ("flint", "mpmath")


def verify(path: str, kernel: str = "flint") -> CheckResult:
    """Load and check the certificate at ``path`` (``certdp verify FILE``);
    ``kernel="mpmath"`` re-checks with the second, independent interval kernel
    (:mod:`certdp.verifier.check_iv`)."""
    doc = load(path)
    if kernel == "flint":
        return check(doc)
    if kernel != "mpmath":
        raise InputError(f"kernel must be one of {KERNELS}, got {kernel!r}")
    from certdp.verifier.check_iv import check as check_with_mpmath  # noqa: PLC0415

    try:
        ok, step = check_with_mpmath(doc)
    except (TypeError, KeyError, AttributeError, IndexError) as err:
        raise MalformedCertificate(f"malformed certificate: a field has the wrong type or shape "
                                   f"({type(err).__name__}: {err})") from None
    return CheckResult(bool(ok), claim_summary(doc), None if ok else step, assumptions_of(doc) if ok else ())
