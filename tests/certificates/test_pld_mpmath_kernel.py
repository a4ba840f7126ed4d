"""DP-SGD certificates (evidence ``pld``) under the second kernel (issue 15: "their
one-step checks should run in both"): the one-step discretisation recomputed in mpmath
intervals (certdp.verifier.check_pld_iv) against python-flint's
(certdp.verifier.check_pld), and verdicts of both kernels on true and false claims."""

from __future__ import annotations

import copy
from fractions import Fraction

import pytest

from certdp.verifier import check_pld, check_pld_iv
from certdp.verifier.check_iv import check as check_iv
from certdp.verifier.checker import check
from certdp.mechanisms.spec import parse_spec
from certdp.numerics.ball import working_precision


@pytest.mark.parametrize("sigma, q, sign", [(Fraction(2), Fraction(1, 10), 1), (Fraction(2), Fraction(1, 10), -1),
                                            (Fraction(1), Fraction(1, 100), 1), (Fraction(3), Fraction(1), 1)])
def test_one_step_masses_agree_between_kernels(sigma, q, sign):
    """Both kernels round the same masses up to multiples of 2^-bits: each coefficient may
    differ by the width of the enclosures (a few units), never by more."""
    h, bits, z = Fraction(1, 64), 60, 8.5
    pair = check_pld._Pair(sigma, q, sign)
    with working_precision(128):
        a = check_pld.one_step(pair, h, bits, z)
    old = check_pld_iv.iv.prec
    check_pld_iv.iv.prec = 128
    try:
        b = check_pld_iv.one_step(pair, h, bits, z)
    finally:
        check_pld_iv.iv.prec = old
    assert a[0] == b[0] and len(a[1]) == len(b[1])
    # 16 units of 2^-60: the enclosures' widths (the mpmath erfc series loses a few bits)
    assert max(abs(x - y) for x, y in zip(a[1], b[1])) <= 16 and abs(a[2] - b[2]) <= 16
    assert sum(a[1]) + a[2] >= 2**bits and sum(b[1]) + b[2] >= 2**bits  # rounded up: mass >= 1


def test_both_kernels_verify_a_dpsgd_certificate_and_refuse_a_false_one():
    """A coarse grid (h = 1/64) keeps the interval kernel fast; the claim is flint's
    re-derived bound rounded up to 8 digits, the false one 1 % below it."""
    from certdp.certificates.writer import envelope
    from certdp.numerics.enclosure import decimal_string

    mech = parse_spec("dpsgd(noise=2, rate=1/10, steps=20)")
    ev = {"h": "1/64", "tau": "1/100000000000000", "z": "8.5", "bits": 60}
    from certdp.verifier.mechs import parse

    with working_precision(128):
        y = check_pld.delta_upper(parse(mech.spec()), Fraction(1), ev, 128)
    doc = envelope({"kind": "dp", "eps": "1", "delta": decimal_string(y, 8, "up")}, mech.spec(), {"pld": ev}, 128)
    assert check(doc).valid and check_iv(doc) == (True, None)
    bad = copy.deepcopy(doc)
    bad["claim"]["delta"] = str(Fraction(bad["claim"]["delta"]) * Fraction(99, 100))
    assert not check(bad).valid
    valid, step = check_iv(bad)
    assert not valid and "intervals" in step


@pytest.mark.slow
@pytest.mark.soundness
def test_issue_example_under_both_kernels():
    """certdp dpsgd --noise 9.4 --sample-rate 0.32768 --steps 2000 --delta 1e-5: VALID under
    both kernels (mpmath: ~15 s), and with σ = 9 INVALID under both."""
    from certdp.analyses.accountants.dpsgd import dpsgd
    from certdp.certificates.writer import dpsgd_certificate

    doc = dpsgd_certificate(dpsgd(Fraction(47, 5), Fraction("0.32768"), 2000, delta=Fraction(1, 10**5)))
    assert check(doc).valid and check_iv(doc)[0]
    bad = copy.deepcopy(doc)
    bad["mechanism"] = bad["mechanism"].replace("sigma=9.4", "sigma=9")
    assert not check(bad).valid and not check_iv(bad)[0]


def _true_masses(sigma: int, q: Fraction, h: Fraction, z: float) -> list:
    """The connect-the-dots masses of one step (remove relation) in plain mpmath at 50
    digits, written out here from the construction (an independent reference)."""
    import mpmath as mp

    lo, hi = check_pld._Pair(Fraction(sigma), q, 1).grid(h, z)
    with mp.workdps(50):
        qq, hh, s = mp.mpf(q.numerator) / q.denominator, mp.mpf(h.numerator) / h.denominator, mp.mpf(sigma)

        def x_of(w):
            arg = mp.expm1(w) + qq
            return None if arg <= 0 else mp.log(arg / qq) * s**2 + mp.mpf(1) / 2

        def cdf(x, c):
            return mp.mpf(1) if x == mp.inf else (mp.mpf(0) if x == -mp.inf else mp.ncdf((x - c) / s))

        def mass(comps, a, b):
            a, b = (-mp.inf if a is None else a), (mp.inf if b is None else b)
            return sum(w * (cdf(b, c) - cdf(a, c)) for w, c in comps)

        p_comps, q_comps = ((1 - qq, 0), (qq, 1)), ((mp.mpf(1), 0),)
        ends = [x_of((lo + j) * hh) for j in range(hi - lo + 1)]
        m = [mp.mpf(0)] * len(ends)
        for j in range(len(ends) - 1):
            if ends[j + 1] is None:
                continue
            P, Q = mass(p_comps, ends[j], ends[j + 1]), mass(q_comps, ends[j], ends[j + 1])
            e0, e1 = mp.exp(-(lo + j) * hh), mp.exp(-(lo + j + 1) * hh)
            A = (Q - e1 * P) / (e0 - e1)
            m[j] += A
            m[j + 1] += P - A
        return m


def test_interval_kernel_rounds_one_step_masses_up_at_default_mpmath_precision():
    """Regression: ``mpmath.ceil`` rounds its integer result to mp.prec (53 bits), so
    masses near 2^60 units came back up to 31 units BELOW the truth (python-flint 0.9,
    sigma 1, q 1/100).  Every interval-kernel mass must be >= the 50-digit truth."""
    import mpmath as mp

    h, bits, z = Fraction(1, 64), 60, 8.5
    truth = _true_masses(1, Fraction(1, 100), h, z)
    old = check_pld_iv.iv.prec
    check_pld_iv.iv.prec = 128
    try:
        with mp.workprec(53):
            _, cs, _ = check_pld_iv.one_step(check_pld._Pair(Fraction(1), Fraction(1, 100), 1), h, bits, z)
    finally:
        check_pld_iv.iv.prec = old
    assert len(cs) == len(truth)
    with mp.workdps(50):
        below = [j for j, (c, t) in enumerate(zip(cs, truth)) if c < t * 2**bits]
        slack = max(c - t * 2**bits for c, t in zip(cs, truth))
    assert below == []
    assert slack < 64  # rounded up by a few units, not a loose bound


def test_exact_ceiling_of_mpf_and_interval_ends():
    import math

    import mpmath as mp
    from hypothesis import given, strategies as st

    @given(st.integers(-2**200, 2**200), st.integers(-300, 300))
    def check(man: int, exp: int) -> None:
        v = mp.mp.make_mpf(mp.libmp.from_man_exp(man, exp))  # exact (mp.mpf would round to mp.prec)
        want = math.ceil(Fraction(man) * Fraction(2) ** exp)
        assert check_pld_iv.ceil_mpf(v) == want
        old = check_pld_iv.iv.prec
        check_pld_iv.iv.prec = 400  # an interval's ends hold iv.prec bits
        try:
            assert check_pld_iv.ceil_mpf(check_pld_iv.iv.mpf([v, v])) == want
        finally:
            check_pld_iv.iv.prec = old

    check()
