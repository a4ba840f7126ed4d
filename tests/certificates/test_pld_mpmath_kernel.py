"""DP-SGD certificates (evidence ``pld``) under the second kernel (issue 15: "their
one-step checks should run in both"): the one-step discretisation recomputed in mpmath
intervals (certdp.certificates.check_pld_iv) against python-flint's
(certdp.certificates.check_pld), and verdicts of both kernels on true and false claims."""

from __future__ import annotations

import copy
from fractions import Fraction

import pytest

from certdp.certificates import check_pld, check_pld_iv
from certdp.certificates.check_iv import check as check_iv
from certdp.certificates.checker import check
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
    from certdp.certificates.mechs import parse

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
