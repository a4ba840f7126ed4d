"""The RDP accountant's float guide (issue 37 item 4): it only chooses orders, so the
guided search must report a certified bound at the order it names, and on these cases
the very bound the exhaustive search (every order in balls) finds."""
from fractions import Fraction

import pytest

from certdp.analyses.accountants.rdp import RDPAccountant, _guide
from certdp.mechanisms.spec import parse_spec


@pytest.mark.parametrize("spec,T,delta", [("subsample(gaussian(sigma=4), rate=1/100)", 10000, "1e-5"),
                                          ("subsample(gaussian(sigma=0.8), rate=1/2)", 5, "1e-3"),
                                          ("subsample(gaussian(sigma=20), rate=1/10000)", 100, "1e-5"),
                                          ("laplace(scale=2)", 20, "1e-5")])
def test_guided_search_finds_the_exhaustive_bound(spec, T, delta):
    mech = parse_spec(spec)
    guided = RDPAccountant().compose(mech, T)
    full = RDPAccountant(search="exhaustive").compose(mech, T)
    g, f = guided.epsilon_bound(delta), full.epsilon_bound(delta)
    assert (g.order, g.conversion) == (f.order, f.conversion)
    assert g.enclosure.hi == f.enclosure.hi


@pytest.mark.parametrize("a", ["9/8", "7/4", "2", "35/2", "64", "1024"])
def test_guide_tracks_the_certified_curve(a):
    mech = parse_spec("subsample(gaussian(sigma=4), rate=1/100)")
    ball = RDPAccountant(search="exhaustive").compose(mech).rdp(a)
    est = _guide(mech)(Fraction(a))
    assert abs(est - float(ball.mid())) <= 1e-9 * abs(float(ball.mid())) + 1e-15
