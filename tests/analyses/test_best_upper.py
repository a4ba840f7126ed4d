"""best_upper: a composition with a zCDP or RDP-only part is answered by the smaller upper
end of the RDP accountant and the PLD engine, as [0, min]; a route that fails is skipped
while another answers.  Independent truth: each route's own answer, and the exact ε of the
Gaussian with μ² = 2ρ + 1/σ² (a ρ-zCDP part composed with a Gaussian: a valid bound reaches it)."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest

from certdp.analyses.accountants.best_upper import BestUpper, best_upper
from certdp.analyses.dispatch import composition_accountant
from certdp.errors import InputError
from certdp.mechanisms.spec import parse_spec
from certdp.numerics.enclosure import Enclosure
from tests.refs import mp_delta_mu

D = Fraction(1, 10**5)


def test_the_smaller_upper_end_of_both_routes():
    items = [(parse_spec("zcdp(rho=1/8)"), 1), (parse_spec("gaussian(sigma=2)"), 1)]
    acc, method = composition_accountant(items)
    assert isinstance(acc, BestUpper) and "RDP accountant" in method and "PLD" in method
    enc = acc.epsilon(D)
    ends = [r.epsilon(D).hi for _, r in acc.routes]
    assert enc.lo == 0 and enc.hi == min(ends, key=lambda x: float(x.upper()))
    with mpmath.workdps(40):  # μ² = 2·(1/8) + 1/4 = 1/2: the exact ε of a composition the bound covers
        mu, lo, hi = mpmath.sqrt(mpmath.mpf(1) / 2), mpmath.mpf(0), mpmath.mpf(20)
        for _ in range(120):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if mp_delta_mu(mu, mid) > mpmath.mpf(1) / 10**5 else (lo, mid)
        assert enc.upper_float() >= hi


class _Broken:
    def epsilon(self, delta, **_):
        raise InputError("beyond its budget")

    delta = epsilon


def test_a_failing_route_is_skipped_and_all_failing_raises():
    good = best_upper([(parse_spec("zcdp(rho=1/8)"), 1), (parse_spec("gaussian(sigma=2)"), 1)], pld_ok=False)
    acc = BestUpper([("broken", _Broken()), *good.routes])
    assert acc.epsilon(D).hi == good.epsilon(D).hi and acc.last != "broken"
    with pytest.raises(InputError, match="budget"):
        BestUpper([("broken", _Broken())]).epsilon(D)
    with pytest.raises(InputError):
        BestUpper([])


def test_truncated_parts_take_both_routes_and_the_pld_wins_here():
    m = parse_spec("truncated_subsample(noise=4, rate=1/20, batch=20, size=200)")
    acc, method = composition_accountant([(m, 10)])
    assert [n.split(" ")[0] for n, _ in acc.routes] == ["RDP", "certified"]
    enc = acc.epsilon(D)  # measured: RDP [0, 0.331819], PLD (labelled mixture) [0, 0.147815]
    assert enc.lo == 0 and acc.last.startswith("certified PLD") and enc.upper_float() < 0.16
    assert isinstance(acc.delta(Fraction(1)), Enclosure)
