"""Evidence ``pld_law`` / ``pld_law_lower`` for Poisson-subsampled finite pairs —
randomized response and pure-DP guarantees (check_law_pld) — against an independent
truth: the exact δ(ε) of the k-fold subsampled pair, written by hand from seed 002
Lemma 32 and Thm 11(1) and summed over the binomial loss patterns in mpmath."""

from __future__ import annotations

import subprocess
import sys
from fractions import Fraction

import mpmath
import pytest

from certdp.verifier.checker import check
from certdp.verifier.schema import MalformedCertificate
from certdp.certificates.writer import envelope, law_lower_evidence, law_pld_evidence
from certdp.mechanisms.spec import parse_spec
from refs import mpf


def _base(name: str, value) -> list[tuple]:
    """(loss, P, Q) of the base pair, by hand: randomized response with truth
    probability p, the pair of an ε0-DP guarantee, or discrete Laplace (t, Δ) from its
    pmf e^{−|x|/t}(1 − r)/(1 + r), r = e^{−1/t}, summed over the integers x by loss
    (|x − Δ| − |x|)/t (x <= 0 and x >= Δ as geometric series)."""
    if name == "dl":
        t, d = mpf(value[0]), value[1]
        r = mpmath.exp(-1 / t)
        pmf = lambda x: (1 - r) / (1 + r) * r ** abs(x)  # noqa: E731
        out = [(d / t, 1 / (1 + r), r**d / (1 + r)), (-d / t, r**d / (1 + r), 1 / (1 + r))]
        return out + [((d - 2 * x) / t, pmf(x), pmf(x - d)) for x in range(1, d)]
    if name == "approx":  # (ε0, δ0): the pure pair scaled by 1 − δ0, P(+∞) = Q(−∞) = δ0
        e0, d0 = mpf(value[0]), mpf(value[1])
        w = mpmath.exp(e0)
        return [(e0, (1 - d0) * w / (1 + w), (1 - d0) / (1 + w)), (-e0, (1 - d0) / (1 + w), (1 - d0) * w / (1 + w)),
                (mpmath.inf, d0, mpf(0)), (-mpmath.inf, mpf(0), d0)]
    if name == "rr":
        r = max(mpf(value), 1 - mpf(value))
        ell = mpmath.log(r / (1 - r))
        return [(ell, r, 1 - r), (-ell, 1 - r, r)]
    w = mpmath.exp(mpf(value))
    return [(mpf(value), w / (1 + w), 1 / (1 + w)), (-mpf(value), 1 / (1 + w), w / (1 + w))]


def truth(name: str, value: Fraction, gamma: Fraction, k: int, eps: Fraction) -> mpmath.mpf:
    """max over the relations of Σ_i C(k, i)(P_a^i P_b^{k−i} − e^ε Q_a^i Q_b^{k−i})⁺."""
    with mpmath.workdps(50):
        g = mpf(gamma)
        c = 1 - g
        base = _base(name, value)
        # (the losses are not needed for δ: Σ (P − e^ε Q)⁺ over the product atoms)
        rem = [(None, g * p + c * q, q) for ell, p, q in base]
        add = [(None, p, c * p + g * q) for ell, p, q in base]
        e = mpmath.exp(mpf(eps))
        best = mpf(0)
        for law in (rem, add):
            s = mpmath.fsum(max(0, c * (p - e * q)) for c, p, q in _patterns(law, k))
            best = max(best, s)
        return best


def _patterns(law: list[tuple], k: int):
    """(multinomial coefficient, P, Q) of every count vector of the k-fold product law."""
    for cs in _counts(k, len(law)):
        coef = mpmath.factorial(k)
        p = q = mpf(1)
        for c, (_, pa, qa) in zip(cs, law):
            coef /= mpmath.factorial(c)
            p *= pa**c
            q *= qa**c
        yield coef, p, q


def atom_distance(name: str, value: Fraction, gamma: Fraction, k: int, eps: Fraction) -> float:
    """Distance from ε to the nearest loss atom of the k-fold subsampled law (either
    relation): a grid bound near an atom moves it across ε, which costs tightness only."""
    g = mpf(gamma)
    c = 1 - g
    base = [ell for ell, _, _ in _base(name, value) if mpmath.isfinite(ell)]  # (±∞ never straddle ε)
    rem = [(mpmath.log(c + g * mpmath.exp(ell)), 1, 1) for ell in base]
    add = [(-mpmath.log(c + g * mpmath.exp(-ell)), 1, 1) for ell in base]
    out = []
    for law in (rem, add):
        for cs in _counts(k, len(law)):
            out.append(abs(sum(n * ell for n, (ell, _, _) in zip(cs, law)) - mpf(eps)))
    return float(min(out))


def _counts(left: int, slots: int):
    if slots == 1:
        yield (left,)
        return
    for i in range(left + 1):
        for rest in _counts(left - i, slots - 1):
            yield (i, *rest)


CASES = [
    ("subsample(randomized_response(p=3/4), rate=1/10)", "rr", Fraction(3, 4)),
    ("subsample(randomized_response(p=1/5), rate=1/3)", "rr", Fraction(1, 5)),
    ("subsample(pure_dp(eps=1), rate=1/10)", "pure", Fraction(1)),
    ("subsample(approx_dp(eps=1/2, delta=0), rate=1/2)", "pure", Fraction(1, 2)),
    ("subsample(approx_dp(eps=1, delta=1/1000), rate=1/10)", "approx", (Fraction(1), Fraction(1, 1000))),
    ("subsample(approx_dp(eps=1/2, delta=1/100), rate=1/2)", "approx", (Fraction(1, 2), Fraction(1, 100))),
    ("subsample(discrete_laplace(scale=1, sensitivity=3), rate=1/4)", "dl", (Fraction(1), 3)),
    ("subsample(discrete_laplace(scale=3/2), rate=1/10)", "dl", (Fraction(3, 2), 1)),
]


def _doc(kind: str, spec: str, eps: Fraction, delta: Fraction, h: Fraction) -> dict:
    mech = parse_spec(spec)
    if kind == "dp":
        ev = {"pld_law": law_pld_evidence(mech, h, Fraction(1, 10**14))}
    else:
        ev = {"pld_law_lower": law_lower_evidence(mech, h)}
    return envelope({"kind": kind, "eps": str(eps), "delta": str(delta)}, mech.spec(), ev, 128)


@pytest.mark.parametrize("spec, name, value", CASES)
@pytest.mark.parametrize("k, eps", [(1, Fraction(1, 50)), (6, Fraction(1, 5)), (6, Fraction(1, 2))])
def test_upper_and_lower_bounds_bracket_the_exact_delta(spec, name, value, k, eps):
    gamma = parse_spec(spec).rate
    t = truth(name, value, Fraction(gamma), k, eps)
    assert t > 0
    full = spec if k == 1 else f"compose({spec}, k={k})"
    h = Fraction(1, 512)
    with mpmath.workdps(40):
        below = Fraction(mpmath.nstr(t * (1 - mpf("1e-9")), 35))
        above = Fraction(mpmath.nstr(t * (1 + mpf("1e-9")), 35))
        far_above = Fraction(mpmath.nstr(t * (1 + mpf("1e-2")), 35))
        far_below = Fraction(mpmath.nstr(t * (1 - mpf("5e-2")), 35))
    # (ε, δ)-DP with δ below the truth is false: never proved; 1 % above is proved
    assert not check(_doc("dp", full, eps, below, h)).valid
    assert check(_doc("dp", full, eps, far_above, h)).valid
    # a refutation of δ above the truth is false: never proved; 5 % below is refuted on a
    # finer grid, unless an atom lies within 25k grid steps of ε (the lower bound moves
    # each step's atoms down by up to h: a relative loss of about kh over the distance)
    fine = Fraction(1, 4096)
    assert not check(_doc("not_dp", full, eps, above, fine)).valid
    if atom_distance(name, value, Fraction(gamma), k, eps) > 25 * k * float(fine):
        assert check(_doc("not_dp", full, eps, far_below, fine)).valid


def test_profile_answer_is_certified_at_its_own_upper_end(tmp_path):
    """The φ accountant's answer (an exact finite-pair route) is certified as it is, no
    longer the weaker profile-pair bound (1.539 against the truth 1.5089388673)."""
    f = tmp_path / "c.json"
    out = subprocess.run([sys.executable, "-m", "certdp", "profile",
                          "compose(subsample(randomized_response(p=3/4), rate=1/10), k=10)", "--delta", "1e-5",
                          "--certificate", str(f)], capture_output=True, text=True)
    assert out.returncode == 0 and "weaker" not in out.stdout, out.stdout + out.stderr
    import json  # noqa: PLC0415

    doc = json.loads(f.read_text())
    assert "pld_law" in doc["evidence"]
    eps = Fraction(doc["claim"]["eps"])
    # the exact ε*(1e-5) by bisection on the binomial truth (50 digits)
    with mpmath.workdps(50):
        star = mpmath.findroot(lambda e: truth("rr", Fraction(3, 4), Fraction(1, 10), 10, Fraction(str(e)))
                               - mpf("1e-5"), (mpf("1.4"), mpf("1.6")), solver="bisect", tol=mpf(10) ** -30)
    assert mpf(eps) >= star and eps - Fraction(str(star)) < Fraction(1, 10**8)
    below = dict(doc, claim=dict(doc["claim"], eps=mpmath.nstr(star - mpf("1e-9"), 20)))
    assert not check(below).valid


@pytest.mark.parametrize("spec", ["subsample(gaussian_dp(mu=1), rate=1/10)",
                                  "subsample(gaussian(sigma=1), rate=1/10)"])
def test_other_bases_are_refused(spec):
    doc = _doc("dp", "subsample(pure_dp(eps=1), rate=1/10)", Fraction(1, 10), Fraction(1, 10), Fraction(1, 256))
    doc["mechanism"] = spec
    with pytest.raises(MalformedCertificate, match="pld_law certifies"):
        check(doc)


def test_regions_are_ignored_for_atom_laws():
    # an atom law has no continuous mass to merge with: stated regions change nothing
    spec, eps = "compose(subsample(pure_dp(eps=1), rate=1/10), k=6)", Fraction(1, 5)
    t = truth("pure", Fraction(1), Fraction(1, 10), 6, eps)
    for delta, valid in ((t * mpf("0.9"), True), (t * (1 + mpf("1e-9")), False)):
        doc = _doc("not_dp", spec, eps, Fraction(mpmath.nstr(delta, 30)), Fraction(1, 4096))
        for rel in ("remove", "add"):
            doc["evidence"]["pld_law_lower"][rel]["regions"] = [[1, "0", "1/256"], [0, "1/256", "1"]]
        assert check(doc).valid is valid


@pytest.mark.parametrize("t, d, eps", [(Fraction(1), 1, Fraction(1, 2)), (Fraction(1, 2), 3, Fraction(5)),
                                       (Fraction(2), 2, Fraction(1, 10))])
def test_discrete_laplace_closed_form_in_the_checker(t, d, eps):
    """The checker's own discrete Laplace profile against the sum over its atoms by hand."""
    spec = f"discrete_laplace(scale={t}, sensitivity={d})"
    with mpmath.workdps(40):
        exact_delta = mpmath.fsum(max(0, p - mpmath.exp(mpf(eps)) * q) for _, p, q in _base("dl", (t, d)))
        below = Fraction(mpmath.nstr(exact_delta * (1 - mpf("1e-12")), 35))
        above = Fraction(mpmath.nstr(exact_delta * (1 + mpf("1e-12")), 35))
    doc = {"format": "certdp-certificate", "version": 1, "mechanism": spec, "precision": 128, "evidence": {},
           "producer": "test",
           "claim": {"kind": "dp", "eps": str(eps), "delta": str(above)}}
    assert check(doc).valid
    doc["claim"]["delta"] = str(below)
    assert not check(doc).valid
    doc["claim"]["kind"] = "not_dp"
    assert check(doc).valid


def test_audit_certificate_states_the_confirmed_claim_itself(tmp_path):
    # a confirmed (ε, δ) claim is certified as stated (δ = 1e-5, not 1.00000000000001e-5),
    # a refuted one as its negation, for a subsampled finite pair and discrete Laplace
    claims = tmp_path / "c.toml"
    claims.write_text(
        '[[claim]]\nid = "rr-true"\nmechanism = "compose(subsample(randomized_response(p=3/4), rate=1/10), k=10)"\n'
        'kind = "dp"\neps = "1.51"\ndelta = "1e-5"\n\n'
        '[[claim]]\nid = "dl-false"\n'
        'mechanism = "compose(subsample(discrete_laplace(scale=1/2, sensitivity=3), rate=1/10), k=10)"\n'
        'kind = "dp"\neps = "20"\ndelta = "1e-5"\n')
    out = subprocess.run([sys.executable, "-m", "certdp", "audit", str(claims), "--certificates",
                          str(tmp_path / "certs")], capture_output=True, text=True)
    assert out.returncode == 1, out.stdout + out.stderr  # dl-false is REFUTED: a negative verdict exits 1
    import json  # noqa: PLC0415

    docs = {p.name.split("-")[0] + "-" + p.name.split("-")[1]: json.loads(p.read_text())
            for p in (tmp_path / "certs").iterdir()}
    assert docs["rr-true"]["claim"] == {"kind": "dp", "eps": "151/100", "delta": "0.00001"}
    assert docs["dl-false"]["claim"]["kind"] == "not_dp" and "pld_law_lower" in docs["dl-false"]["evidence"]
    assert all(check(d).valid for d in docs.values())


def _dg_base(sigma: Fraction, d: int) -> list[tuple]:
    """(loss, P, Q) of N_Z(0, σ²) against N_Z(Δ, σ²) over |x| <= 40σ + Δ + 20 (the rest is
    below 1e-300), by hand."""
    s = mpf(sigma)
    n = int(40 * float(sigma)) + d + 20
    w = lambda x: mpmath.exp(-mpf(x) ** 2 / (2 * s * s))  # noqa: E731
    z = mpmath.fsum(w(x) for x in range(-n - d, n + d + 1))
    return [(None, w(x) / z, w(x - d) / z) for x in range(-n, n + d + 1)]


def _dg_truth(sigma: Fraction, d: int, gamma: Fraction, k: int, eps: Fraction) -> mpmath.mpf:
    """Exact δ(ε) of k ∈ {1, 2} Poisson-subsampled discrete Gaussian steps (both relations)."""
    with mpmath.workdps(40):
        g = mpf(gamma)
        c = 1 - g
        base = _dg_base(sigma, d)
        e = mpmath.exp(mpf(eps))
        best = mpf(0)
        for law in ([(g * p + c * q, q) for _, p, q in base], [(p, c * p + g * q) for _, p, q in base]):
            if k == 1:
                v = mpmath.fsum(max(0, p - e * q) for p, q in law)
            else:
                v = mpmath.fsum(max(0, p1 * p2 - e * q1 * q2) for p1, q1 in law for p2, q2 in law)
            best = max(best, v)
        return best


@pytest.mark.parametrize("sigma, d, gamma, k, eps", [(Fraction(1), 1, Fraction(1, 10), 1, Fraction(1, 10)),
                                                    (Fraction(1), 1, Fraction(1, 10), 2, Fraction(1, 5)),
                                                    (Fraction(3, 2), 2, Fraction(1, 4), 2, Fraction(1, 2))])
def test_subsampled_discrete_gaussian_brackets_the_exact_delta(sigma, d, gamma, k, eps):
    spec = f"subsample(discrete_gaussian(sigma={sigma}, sensitivity={d}), rate={gamma})"
    full = spec if k == 1 else f"compose({spec}, k={k})"
    t = _dg_truth(sigma, d, gamma, k, eps)
    with mpmath.workdps(40):
        below, above, far_above, far_below = (Fraction(mpmath.nstr(t * (1 + mpf(r)), 35))
                                              for r in ("-1e-9", "1e-9", "1e-2", "-5e-2"))
    h = Fraction(1, 1024)
    assert not check(_doc("dp", full, eps, below, h)).valid
    assert check(_doc("dp", full, eps, far_above, h)).valid
    assert not check(_doc("not_dp", full, eps, above, h)).valid
    assert check(_doc("not_dp", full, eps, far_below, h)).valid


def test_discrete_gaussian_tails_enter_the_upper_law():
    # the tails beyond the kept atoms are a ball [0, b]: the subsampled law must keep the
    # atom they become (at log(1 − γ), remove; −log(1 − γ), add) — a ball [0, b] is not
    # "certainly nonzero", and dropping it would lower an upper bound
    from certdp.verifier.check_law_pld import _Law, subsampled_base  # noqa: PLC0415
    from certdp.verifier.mechs import parse  # noqa: PLC0415
    from certdp.numerics.ball import to_ball, working_precision  # noqa: PLC0415

    with working_precision(128):
        base, gamma, _ = subsampled_base(parse("subsample(discrete_gaussian(sigma=1), rate=1/10)"))
        for sign in (1, -1):
            ell, p, _ = _Law(base, gamma, sign).atoms()[-1]
            assert (ell - sign * to_ball(Fraction(9, 10)).log()).contains(0)
            assert p.contains(0) and p.upper() > 0


def test_weaker_law_claim_is_true_and_close():
    # when no grid proves the answer's upper end, the writer certifies what the finest
    # grid proves (_law_claim): above the exact ε*(1e-5) = 1.5089388673110 and close to it
    from certdp.certificates.writer import _law_claim  # noqa: PLC0415
    from certdp.numerics.enclosure import Enclosure  # noqa: PLC0415

    spec = "compose(subsample(randomized_response(p=3/4), rate=1/10), k=10)"
    mech = parse_spec(spec)
    ev = law_pld_evidence(mech, Fraction(1, 1024), Fraction(1, 10**14))
    claim = _law_claim(mech.spec(), ev, eps=None, delta=Fraction(1, 10**5),
                       eps_hi=Enclosure.exact(Fraction(3, 2)), assumptions=())
    eps = Fraction(claim["eps"])
    assert Fraction("1.5089388673110") <= eps <= Fraction("1.509")
    assert truth("rr", Fraction(3, 4), Fraction(1, 10), 10, eps) <= mpf("1e-5")
    assert check(envelope(claim, mech.spec(), {"pld_law": ev}, 128)).valid
