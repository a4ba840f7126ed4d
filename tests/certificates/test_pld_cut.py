"""The one-step cut shared by the answer and the checker (issue 37, fourth pass):
:func:`certdp.verifier.pld_compose.cut_step`, stated in evidence ``pld.cut``."""

from __future__ import annotations

from fractions import Fraction as F

import pytest
from flint import arb

from certdp.analyses.accountants.pld import PLDAccountant, SubsampledGaussian
from certdp.verifier import check_pld as cp
from certdp.verifier.ball import working_precision
from certdp.verifier.errors import InputError
from certdp.verifier.pld_compose import compose, cut_step, f_eps

CELLS = [(F(1, 2), F(3, 10), 10), (F(11, 10), F(1, 10000), 100), (F(2), F(1, 100), 100), (F(47, 5), F(1, 1000), 1000)]


def _answer(s, q, T):
    acc = PLDAccountant().compose(SubsampledGaussian(s, q), T)
    return acc, acc.discretisation()


@pytest.mark.parametrize("s,q,T", CELLS)
def test_checker_moves_what_the_answer_moved(s, q, T):
    """The cut the checker applies is the answer's, to the grid point and the unit: the
    same kept range [lo, hi] and the same masses moved onto lo and to +∞ (the kept masses
    in between come from the two sides' own one-step arithmetic)."""
    acc, ev = _answer(s, q, T)
    h, bits, _, z = cp.parse_evidence(ev)
    cuts = cp.parse_cut(ev)
    assert cuts is not None and cuts == tuple(acc._cut(r)[1] for r in ("remove", "add"))
    for (rel, sign), cut in zip((("remove", 1), ("add", -1)), cuts):
        lo, hi, below, above = cut
        step = acc._steps(rel, "upper")[0]
        mine = acc._cut(rel)[0]
        with working_precision(128):
            theirs = cp.one_step(cp._Pair(s, q, sign), h, bits, z)
        t_off, t_cs, t_inf = cut_step(theirs, cut)
        assert mine.offset == t_off == lo and len(t_cs) == hi - lo + 1 and mine.length <= hi - lo + 1
        # the same moved masses on both sides: exactly the stated tails
        assert mine.inf == t_inf == above
        # the checker builds only [lo - 1, hi + 1]: the same kept masses as on its whole grid,
        # up to the rounding of its balls (e^{-kh} is stepped from the range's first point)
        with working_precision(128):
            part = cp.one_step(cp._Pair(s, q, sign), h, bits, z, (lo - 1, hi + 1))
        p_off, p_cs, p_inf = cut_step(part, cut)
        assert (p_off, len(p_cs), p_inf) == (t_off, len(t_cs), t_inf)
        assert sum(abs(a - b) for a, b in zip(p_cs, t_cs)) <= (1 << bits) // 10**12
        own_lo = int(step.poly[lo - step.offset]) if 0 <= lo - step.offset < step.length else 0
        their_lo = theirs[1][lo - theirs[0]] if 0 <= lo - theirs[0] < len(theirs[1]) else 0
        assert int(mine.poly[0]) - own_lo == t_cs[0] - their_lo == below
        # a cut that moves little: at most a few τ per side
        tau_units = int(F(ev["tau"]) * (1 << bits))
        assert below <= 3 * tau_units + 2 * (1 << 12) + 20000 and above <= 3 * tau_units + 2 * (1 << 12) + 20000


@pytest.mark.parametrize("s,q,T", [CELLS[1], CELLS[2]])
def test_composed_plds_agree(s, q, T):
    """The composed upper PLDs of the answer and of the checker's re-derivation: grid
    offsets close and masses at +∞ within 3 % (each side's own one-step arithmetic and the
    τ-truncation after each product; measured 0.6–1.4 %), and every F_ε of both within
    1e-7 relative above δ 1e-9 (measured 8e-9: the answer coarsens its one-step cells)."""
    acc, ev = _answer(s, q, T)
    h, bits, tau, z = cp.parse_evidence(ev)
    chk = cp.upper_plds(_mech(s, q, T), ev, 128)
    ups = acc.plds("upper")
    for rel, (off, cs, inf) in zip(("remove", "add"), chk):
        a = ups[rel]
        assert abs(a.offset - off) <= 128  # the bottom tails' truncation (83 points apart uncut, σ 1.1, q 1e-4)
        assert abs(a.inf - inf) <= 0.03 * max(a.inf, inf) + 2
        with working_precision(128):
            for eps in (F(0), F(1, 10), F(1, 2)):
                x, y = a.delta_ball(arb(eps.numerator) / eps.denominator, eps), f_eps((off, list(cs), inf), h, bits, eps)
                if y > 1e-9:
                    assert abs(float(x.mid()) / float(y.mid()) - 1) < 1e-7


def _mech(s, q, T):
    from certdp.verifier.mechs import parse
    return parse(f"compose(subsample(gaussian(sigma={s}), rate={q}), k={T})")


def test_cut_step_is_sound_and_checked():
    """cut_step only raises F_ε (any cut), and refuses a stated tail below the removed mass."""
    step = (-3, [5, 0, 7, 100, 50, 9, 0, 2], 4)
    cut = (-1, 2, 6, 12)
    off, cs, inf = cut_step(step, cut)
    assert (off, cs, inf) == (-1, [7 + 6, 100, 50, 9], 12)
    with working_precision(128):
        for eps in (F(-2), F(-1, 3), F(0), F(1, 2), F(2), F(7)):
            assert f_eps((off, cs, inf), F(1, 4), 8, eps) >= f_eps(step, F(1, 4), 8, eps)
    with pytest.raises(InputError):
        cut_step(step, (-1, 2, 4, 12))  # 5 units lie below lo
    with pytest.raises(InputError):
        cut_step(step, (-1, 2, 6, 5))  # 2 units lie above hi, 4 at +inf
    assert cut_step(step, (-6, 9, 0, 4)) == (-6, [0, 0, 0] + step[1] + [0, 0, 0, 0, 0], 4)


def test_understated_tail_is_invalid():
    """A certificate whose cut understates a tail is INVALID (the checker's own one-step
    holds more there); the stated cut of the answer is VALID."""
    from certdp.certificates.writer import gdp_except_certificate
    from certdp.analyses.accountants.dpsgd import dpsgd
    from certdp.verifier.checker import check

    res = dpsgd("2", "0.01", 100, delta="1e-5", mu=True)
    doc = gdp_except_certificate(res)
    assert "cut" in doc["evidence"]["pld"] and check(doc).valid
    bad = {**doc, "evidence": {"pld": {**doc["evidence"]["pld"], "cut": {**doc["evidence"]["pld"]["cut"]}}}}
    lo, hi, below, above = bad["evidence"]["pld"]["cut"]["remove"]
    bad["evidence"]["pld"]["cut"]["remove"] = [lo, hi, below, 0]
    out = check(bad)
    assert not out.valid and "cut" in str(out)
