"""k-ary randomized response (``randomized_response_k``) against independent truth.

The reference is the definition written out over all k outputs: on replace-one neighbours
x = 0, x' = 1 the mechanism reports y w.p. p if y is the true value, else (1 − p)/(k − 1), and
δ(ε) = max over both orders of Σ_y (P(y) − e^ε Q(y))⁺ (mpmath, 60 digits; nothing from certdp).
Compositions are checked against the exact multinomial sum of the composed output laws.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import product

import mpmath
import pytest

from certdp.analyses.accountants.phi import supports as phi_supports
from certdp.analyses.accountants.pld import supports as pld_supports
from certdp.analyses.dispatch import composition_accountant, delta_of, eps_of
from certdp.errors import InputError
from certdp.mechanisms import delta_enclosure, eps_enclosure, parse_spec
from certdp.numerics.enclosure import Enclosure
from refs import in_enclosure, mpq


def _laws(p, k):
    """The two output pmfs (length k) of k-ary RR on inputs 0 and 1, in mpmath."""
    p = mpq(p)
    b = (1 - p) / (k - 1)
    P = [p if y == 0 else b for y in range(k)]
    Q = [p if y == 1 else b for y in range(k)]
    return P, Q


def ref_delta(p, k, eps) -> mpmath.mpf:
    with mpmath.workdps(60):
        P, Q = _laws(p, k)
        e = mpmath.exp(mpq(eps))
        return max(mpmath.fsum(max(mpmath.mpf(0), x - e * y) for x, y in zip(A, B)) for A, B in ((P, Q), (Q, P)))


def ref_composed_delta(p, k, steps, eps) -> mpmath.mpf:
    """Σ over all k^steps output sequences of (P^n(y) − e^ε Q^n(y))⁺, the worse order."""
    with mpmath.workdps(60):
        P, Q = _laws(p, k)
        e = mpmath.exp(mpq(eps))
        out = []
        for A, B in ((P, Q), (Q, P)):
            total = mpmath.mpf(0)
            for ys in product(range(k), repeat=steps):
                a = mpmath.fprod(A[y] for y in ys)
                b = mpmath.fprod(B[y] for y in ys)
                total += max(mpmath.mpf(0), a - e * b)
            out.append(total)
        return max(out)


CASES = [(Fraction(7, 10), 5), (Fraction(1, 10), 3), (Fraction(1, 2), 2), (Fraction(9, 10), 100),
         (Fraction(1, 4), 4), (Fraction(3602879701896397, 2**55), 7)]


@pytest.mark.parametrize("p, k", CASES)
@pytest.mark.parametrize("eps", [Fraction(0), Fraction(1, 3), Fraction(2), Fraction(5)])
def test_profile_against_the_definition(p, k, eps):
    m = parse_spec(f"randomized_response_k(p={p}, k={k})")
    truth = ref_delta(p, k, eps)
    enc = delta_enclosure(m, eps)
    assert in_enclosure(enc, truth), (enc, truth)
    assert enc.width <= 1e-20 * max(float(truth), 1e-300) or enc.width <= 1e-300, enc


@pytest.mark.parametrize("p, k", CASES)
def test_epsilon_inverts_the_profile(p, k):
    m = parse_spec(f"randomized_response_k(p={p}, k={k})")
    d = Fraction(1, 10**3)
    enc = eps_enclosure(m, d)
    assert enc.width <= 1e-15, enc
    # truth at the upper end is <= δ; at the lower end (when > 0) it is >= δ
    assert ref_delta(p, k, Fraction(enc.upper_float())) <= mpq(d)
    if enc.lower_float() > 0:
        assert ref_delta(p, k, Fraction(enc.lower_float())) >= mpq(d)
    else:  # δ(0) = a − c <= δ
        assert ref_delta(p, k, 0) <= mpq(d)


def test_two_values_is_binary_randomized_response_and_uniform_is_zero():
    for eps in (Fraction(0), Fraction(1, 2)):
        a = delta_enclosure(parse_spec("randomized_response_k(p=3/4, k=2)"), eps)
        b = delta_enclosure(parse_spec("randomized_response(p=3/4)"), eps)
        assert str(a) == str(b)
        assert delta_enclosure(parse_spec("randomized_response_k(p=1/5, k=5)"), eps).upper_float() == 0.0
    # p below 1/k: the roles of the two buckets swap, the profile is that of a = (1 − p)/(k − 1)
    assert ref_delta(Fraction(1, 10), 3, 1) > 0
    assert parse_spec("randomized_response_k(p=1/10, k=3)").a == Fraction(9, 20)


@pytest.mark.parametrize("bad, msg", [
    ("randomized_response_k(p=1, k=3)", "0 < p < 1"),
    ("randomized_response_k(p=0, k=3)", "0 < p < 1"),
    ("randomized_response_k(p=1/2, k=1)", "k must be an integer >= 2"),
    ("randomized_response_k(p=1/2, k=5/2)", "must be an integer"),
    ("randomized_response_k(p=1/2)", "missing parameter 'k'"),
])
def test_parameters_are_checked(bad, msg):
    with pytest.raises(InputError, match=msg):
        parse_spec(bad)


def test_spec_round_trip():
    m = parse_spec("randomized_response_k(0.7, 5)")
    assert m.spec() == "randomized_response_k(p=0.7, k=5)"
    assert parse_spec(m.spec()).pmf_pair() == ((Fraction(7, 10), Fraction(3, 40), Fraction(9, 40)),
                                               (Fraction(3, 40), Fraction(7, 10), Fraction(9, 40)))


@pytest.mark.parametrize("p, k, steps", [(Fraction(7, 10), 3, 6), (Fraction(1, 5), 4, 5), (Fraction(1, 2), 5, 4)])
def test_composition_against_the_exact_sum(p, k, steps):
    m = parse_spec(f"compose(randomized_response_k(p={p}, k={k}), k={steps})")
    for eps in (Fraction(0), Fraction(1), Fraction(3)):
        truth = ref_composed_delta(p, k, steps, eps)
        ans = delta_of(m, eps)
        # the exact finite route, or δ = 0 beyond the sum of the largest losses (p = 1/5, k = 4 at ε = 3)
        assert "phi accountant" in ans.method or (truth == 0 and "δ = 0 beyond" in ans.method), ans.method
        assert in_enclosure(ans.enclosure, truth), (ans, truth)
        assert ans.enclosure.width <= 1e-12 * max(float(truth), 1e-300) or ans.enclosure.width <= 1e-300


def test_both_accountants_hold_it_and_a_long_composition_takes_the_pld_engine():
    m = parse_spec("randomized_response_k(p=7/10, k=5)")
    assert phi_supports(m) and pld_supports(m)
    # 1000 steps of a three-atom pair are 501,501 atoms: beyond the φ accountant's exact route,
    # so the PLD engine answers (formerly the router chose φ and then failed)
    acc, method = composition_accountant([(m, 1000)])
    assert "PLD" in method
    # a float estimate from the law: loss ±log(28/3) w.p. 7/10, 3/40, 0 w.p. 9/40 per step.  The
    # mean loss is (7/10 − 3/40) log(28/3) ≈ 1.3961 per step; ε(1e-5) ≈ 1576 (measured [1575.9, 1576.2]);
    # between the mean (1396) and the maximum 1000·log(28/3) ≈ 2233.6
    enc = eps_of(parse_spec("compose(randomized_response_k(p=7/10, k=5), k=1000)"), Fraction(1, 10**5)).enclosure
    assert 1396 < enc.lower_float() <= enc.upper_float() < 2234
    assert enc.width <= 1e-3 * enc.upper_float(), enc


@pytest.mark.parametrize("p, k", [(Fraction(7, 10), 5), (Fraction(1, 10), 3), (Fraction(5, 8), 4)])
def test_rdp_curve_against_the_definition(p, k):
    """certdp's RDP accountant: ρ(α) = log Σ_y P(y)^α Q(y)^{1−α}/(α − 1) over the k outputs
    (mpmath, both orders of the pair give the same sum)."""
    from certdp.analyses.accountants.rdp import RDPAccountant

    acc = RDPAccountant().compose(parse_spec(f"randomized_response_k(p={p}, k={k})"), 3)
    for a in (Fraction(3, 2), Fraction(2), Fraction(10), Fraction(64)):
        with mpmath.workdps(50):
            P, Q = _laws(p, k)
            al = mpq(a)
            truth = 3 * mpmath.log(mpmath.fsum(x**al * y ** (1 - al) for x, y in zip(P, Q))) / (al - 1)
        enc = Enclosure.from_ball(acc.rdp(a))
        assert in_enclosure(enc, truth), (enc, truth)
        assert enc.width <= 1e-30 * float(truth), enc
