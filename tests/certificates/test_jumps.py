"""Issue 34, defect 1: a derivative sign is no proof of monotonicity across a jump.

sympy differentiates ``if``/Piecewise branch by branch and drops the jumps, so
"F' > 0 on a cell" said nothing about a cell holding a breakpoint, and sympy's
"∂f/∂ε <= 0" said nothing about a formula with an upward jump.  Truth here is a
dense mpmath scan of F(x) = f(x, δ0(x)) (Liu et al. 2022 App. C), independent of
certdp's evaluator."""

from __future__ import annotations

import copy

import mpmath
import pytest
import sympy
from flint import arb

from certdp.audit.claims import parse_claims
from certdp.audit.verdicts import audit_claim
from certdp.verifier.checker import check
from certdp.expr import parse_expression
from certdp.expr.derivative import derivative, expression_functions, may_jump
from certdp.expr.monotone import decreasing_in_eps_and_delta, monotonicity_assumption
from certdp.expr.symbols import EPS

JUMP_DOWN = "sqrt(2*log(5/(4*delta)))/eps - if(eps < 11/10, 0, 1)"
JUMP_UP = "if(eps < 2, 3 - eps, 10 - eps) - delta"
SMOOTH = "-log(delta)/eps"


def _claims(formula: str, eps: str, delta: str, reported: dict[str, str]) -> list:
    text = "".join(
        f'[[claim]]\nid = "{q}"\nkind = "value"\nquantity = "{q}"\nformula = "{formula}"\n'
        f'at = {{ eps = "{eps}", delta = "{delta}" }}\nreported = "{r}"\n\n'
        for q, r in reported.items())
    return parse_claims(text)


def _scan_min(formula: str, eps: str, delta: str, n: int = 20000) -> tuple[mpmath.mpf, mpmath.mpf]:
    """(min F, argmin) over a dense grid of [ε, x_max) at 30 digits, both one-sided
    sides of every grid point included (mpmath, not certdp's evaluator)."""
    f = parse_expression(formula, ("eps", "delta"))
    fl = sympy.lambdify(sorted(f.free_symbols, key=lambda s: s.name), f, "mpmath")  # (delta, eps)
    with mpmath.workdps(30):
        e = mpmath.mpf(sympy.N(parse_expression(eps, ()), 40))
        d = mpmath.mpf(sympy.N(parse_expression(delta, ()), 40))
        xmax = mpmath.log((d + mpmath.exp(e)) / (1 - d))
        best = None
        for k in range(n):
            x = e + (xmax - e) * k / n
            d0 = (d + mpmath.exp(e) - (1 - d) * mpmath.exp(x)) / (1 + mpmath.exp(e))
            v = fl(d0, x)
            if best is None or v < best[0]:
                best = (v, x)
        return best


def test_the_scan_sees_the_jump():
    v, x = _scan_min(JUMP_DOWN, "1", "exp(-2)")
    assert abs(v - mpmath.mpf("1.18900")) < 1e-3 and abs(x - mpmath.mpf("1.1")) < 1e-3
    v_up, _ = _scan_min(JUMP_UP, "1", "0.9")
    assert v_up < mpmath.mpf("0.3")  # F(1.99) ≈ 0.234


def test_no_false_refinement_is_confirmed_across_a_downward_jump():
    truth, x = _scan_min(JUMP_DOWN, "1", "exp(-2)")
    claims = _claims(JUMP_DOWN, "1", "exp(-2)",
                     {"refined_sigma": "2.11"})
    for claim in claims:
        v = audit_claim(claim)
        # before the fix: CONFIRMED σ* ∈ [2.10862…] (the smooth branch's optimum)
        if v.verdict == "CONFIRMED":
            enc = v.enclosure
            value = {"refined_sigma": truth, "refined_eps0": x}.get(claim.quantity)
            assert value is not None and mpmath.mpf(str(enc.lo)) <= value <= mpmath.mpf(str(enc.hi)), (claim.id, enc)


def _smooth_doc() -> dict:
    (claim,) = _claims(SMOOTH, "0.2", "exp(-2)", {"refined_sigma": "8.086"})
    doc = audit_claim(claim, want_certificate=True).certificate
    assert doc is not None and check(doc).valid
    d = copy.deepcopy(doc)
    for k in ("reported", "rounding", "verdict"):
        d["claim"].pop(k, None)
    return d


def test_a_certificate_blind_to_a_downward_jump_is_invalid():
    doc = _smooth_doc()
    doc["claim"]["formula"] = JUMP_DOWN
    doc["claim"]["at"] = {"eps": "1", "delta": "exp(-2)"}
    needed = monotonicity_assumption(JUMP_DOWN)  # the claim.formula text, as the checker reads it
    if needed:
        doc["claim"]["assumptions"] = list(needed)
    # the smooth branch's optimum: F' < 0 left of it, F' > 0 right of it piece by piece
    doc["evidence"]["bracket"] = ["1", "1"]
    doc["claim"]["lo"], doc["claim"]["hi"] = "2.10", "2.12"
    res = check(doc)
    assert not res.valid, res


def test_a_certificate_blind_to_an_upward_jump_is_invalid():
    f = parse_expression(JUMP_UP, ("eps", "delta"))
    assert may_jump(f)
    assert not decreasing_in_eps_and_delta(f)  # sympy "proved" it: ∂f/∂ε = -1 piece by piece
    doc = _smooth_doc()
    doc["claim"]["formula"] = JUMP_UP
    doc["claim"]["at"] = {"eps": "1", "delta": "0.9"}
    doc["evidence"]["bracket"] = ["3.58", "3.585"]  # below x_max ≈ 3.5886; F ≈ 6.41 there
    doc["claim"]["lo"], doc["claim"]["hi"] = "6", "7"
    res = check(doc)
    assert not res.valid and "hypothesis" in res.failed_step  # it rests on an unproved monotonicity
    doc["claim"]["assumptions"] = list(monotonicity_assumption(JUMP_UP))  # the text the checker reads
    res = check(doc)
    assert not res.valid, res  # and even granted that, the cell holding ε0 = 2 is not excluded


@pytest.mark.parametrize("cell, finite", [
    ((1, 2), False),            # holds the breakpoint 11/10
    ((arb(11) / 10, 2), False),  # 11/10 is not a dyadic: the ball straddles it
    ((1, 1), True), ((2, 3), True), ((1, "1.09"), True),
])
def test_the_derivative_is_no_information_on_a_cell_holding_a_breakpoint(cell, finite):
    p = parse_expression("1/2 - eps/8 + if(eps < 11/10, 0, -1/10)", ("eps",))
    P, dP = expression_functions(p)
    a, b = (c if isinstance(c, arb) else arb(c) for c in cell)
    d = dP(a.union(b))
    assert d.is_finite() is finite
    if finite:
        assert d.contains(arb(-1) / 8) and d.rad() < 1e-10


def test_continuous_pieces_are_guarded_too_and_max_min_are_not():
    assert derivative(parse_expression("if(eps < 1, 2 - eps, 3 - 2*eps)", ("eps",))).has(sympy.Piecewise)
    d = derivative(parse_expression("Max(1 - eps, 1/2 - eps/4)", ("eps",)))
    P, dP = expression_functions(parse_expression("Max(1 - eps, 1/2 - eps/4)", ("eps",)))
    assert d is not None and dP(arb(0).union(arb(2))).is_finite()  # continuous: a Clarke enclosure


def test_symbolic_threshold_direction_refuses_piecewise():
    from certdp.analyses.limits.thresholds import _derivative_direction

    e = sympy.Piecewise((-EPS, EPS < 3), (10 - EPS, True))
    assert _derivative_direction(e, EPS, arb(1), lambda x: sympy.limit(x, EPS, sympy.oo), lambda x: -1, 0) is None


def test_a_pole_is_no_proved_monotonicity():
    # 1/(100 eps - 119) decreases on both sides of its jump from -oo to +oo at 1.19
    f = parse_expression("sqrt(2*log(5/(4*delta)))/eps + 1/(100*eps - 119)", ("eps", "delta"))
    assert not decreasing_in_eps_and_delta(f) and monotonicity_assumption(f)
    assert decreasing_in_eps_and_delta(parse_expression("sqrt(2*log(5/(4*delta)))/eps", ("eps", "delta")))


def test_a_jumping_penalty_has_no_root_in_the_printed_text():
    from certdp.analyses.prdp.constructions import theorem_3_3

    text = str(theorem_3_3("1/2", "1/10", 1, "if(x < 3/100 + 1/7919, x, x + 1/100)"))
    assert "root of" not in text and "not necessarily a root" in text
