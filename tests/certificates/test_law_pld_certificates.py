"""Certificates with evidence ``pld_law`` (compositions of Poisson-subsampled Laplace,
relation by relation: check_law_pld) against independent truth — δ of one and two steps
by mpmath in x-space (tests/laplace_truth.py, the pair written by hand) — and against
the engine's certified lower end (a claim below it is false)."""

from __future__ import annotations

import copy
import functools
import json
import subprocess
import sys
from fractions import Fraction

import mpmath
import pytest
from hypothesis import given, settings, strategies as st

from certdp.analyses.dispatch import narrowed_epsilon
from certdp.verifier.checker import check
from certdp.verifier.schema import MalformedCertificate
from certdp.certificates.writer import envelope, law_pld_evidence, upper_dp_certificate
from certdp.mechanisms.spec import parse_spec
from laplace_truth import delta1, delta2, pair
from refs import mpf
from required import required

SUB = "subsample(laplace(scale=1), rate=1/10)"


@functools.lru_cache(maxsize=None)
def _truth(k: int, eps: Fraction) -> mpmath.mpf:
    """δ(ε) of k ∈ {1, 2} steps: the larger of the two relations (Zhu, Dong & Wang 2022 Thm 6)."""
    out = mpf(0)
    for rel in ("remove", "add"):
        f, q, lh = pair(mpf(1), mpf(Fraction(1, 10)), rel)
        out = max(out, delta1(f, q, lh, mpf(eps)) if k == 1 else delta2(f, q, lh, mpf(eps)))
    return out


def _doc(spec: str, eps: Fraction, delta: Fraction, h: Fraction = Fraction(1, 256)) -> dict:
    mech = parse_spec(spec)
    ev = law_pld_evidence(mech, h, Fraction(1, 10**14))
    claim = {"kind": "dp", "eps": str(eps), "delta": str(delta)}
    return envelope(claim, mech.spec(), {"pld_law": ev}, 128)


@pytest.mark.parametrize("k,eps", [(1, Fraction(1, 20)), (1, Fraction(1, 8)), (2, Fraction(1, 10)), (2, Fraction(1, 4))])
def test_checker_bound_is_above_the_truth_and_tight(k, eps):
    spec = SUB if k == 1 else f"compose({SUB}, k={k})"
    with mpmath.workdps(34):
        t = _truth(k, eps)
        below = Fraction(mpmath.nstr(t * (1 - mpf("1e-9")), 30))
        above = Fraction(mpmath.nstr(t * (1 + mpf("2e-3")), 30))
    assert not check(_doc(spec, eps, below)).valid  # a δ below the truth is never proved
    assert check(_doc(spec, eps, above)).valid  # and the bound is within 0.2 % of it (h = 1/256)


def test_certificate_states_the_engines_upper_end_and_no_less():
    spec = f"compose({SUB}, k=200)"
    mech = parse_spec(spec)
    d = Fraction(1, 10**5)
    enc, _ = narrowed_epsilon([(parse_spec(SUB), 200)], d)
    doc = upper_dp_certificate(mech, delta=d, eps_hi=enc)
    assert "pld_law" in doc["evidence"] and check(doc).valid
    eps = Fraction(doc["claim"]["eps"])
    assert enc.hi_exact <= eps <= enc.hi_exact + Fraction(1, 10**8)  # the answer's own upper end
    # below the engine's certified lower end δ(ε) > 1e-5: such a claim must not verify
    false = copy.deepcopy(doc)
    false["claim"]["eps"] = str(enc.lo_exact - Fraction(1, 1000))
    assert not check(false).valid
    # the profile pair of pld_profile proves only 7.11 here (it dominates both relations at once)
    assert eps < Fraction(62, 10)


@pytest.mark.parametrize("mutate", [
    lambda ev: ev.update(remove=[5, 1]),
    lambda ev: ev.pop("add"),
    lambda ev: ev.update(add=[0, 2**23]),
    lambda ev: ev.update(bits=4),
    lambda ev: ev.update(h="0"),
    lambda ev: ev.update(extra=1),
])
def test_malformed_evidence_is_refused(mutate):
    doc = _doc(SUB, Fraction(1, 10), Fraction(1, 10))
    mutate(doc["evidence"]["pld_law"])
    with pytest.raises(MalformedCertificate):
        check(doc)


def test_only_subsampled_laplace_takes_this_evidence():
    doc = _doc(SUB, Fraction(1, 10), Fraction(1, 10))
    doc["mechanism"] = "gaussian(sigma=1)"
    with pytest.raises(MalformedCertificate):
        check(doc)
    ok = _doc(SUB, Fraction(1, 10), Fraction(1, 10))
    ok["claim"]["kind"] = "not_dp"  # an upper bound cannot refute
    with pytest.raises(MalformedCertificate):
        check(ok)


def test_a_narrow_grid_range_stays_sound():
    """Any stated range is sound (mass below goes up to its first point, above to +∞)."""
    with mpmath.workdps(34):
        t = _truth(1, Fraction(1, 8))
    doc = _doc(SUB, Fraction(1, 8), Fraction(mpmath.nstr(t * (1 - mpf("1e-9")), 30)))
    for rel, r in (("remove", [0, 10]), ("add", [-5, 5])):
        doc["evidence"]["pld_law"][rel] = r
        assert not check(doc).valid


def test_cli_round_trip(tmp_path):
    f = tmp_path / "c.json"
    out = subprocess.run([sys.executable, "-m", "certdp", "profile", f"compose({SUB}, k=10)", "--delta", "1e-5",
                          "--certificate", str(f)], capture_output=True, text=True)
    assert out.returncode == 0 and "weaker" not in out.stdout, out.stderr
    assert "pld_law" in json.loads(f.read_text())["evidence"]
    r = subprocess.run([sys.executable, "-m", "certdp", "verify", str(f)], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.startswith("VALID")


def test_schema_describes_the_evidence():
    import pathlib

    jsonschema = required("jsonschema")
    schema = json.loads((pathlib.Path(__file__).resolve().parents[2] / "docs" / "certificate.schema.json").read_text())
    jsonschema.validate(_doc(SUB, Fraction(1, 10), Fraction(1, 10)), schema)
    jsonschema.validate(_lower_doc(SUB, Fraction(1, 10), Fraction(1, 10)), schema)


# ---------------------------------------------------------------------------
# refutations: evidence pld_law_lower (kind not_dp)
# ---------------------------------------------------------------------------


def _lower_doc(spec: str, eps: Fraction, delta: Fraction, h: Fraction = Fraction(1, 256)) -> dict:
    from certdp.certificates.writer import law_lower_evidence

    mech = parse_spec(spec)
    claim = {"kind": "not_dp", "eps": str(eps), "delta": str(delta)}
    return envelope(claim, mech.spec(), {"pld_law_lower": law_lower_evidence(mech, h)}, 128)


@pytest.mark.parametrize("k,eps", [(1, Fraction(1, 20)), (2, Fraction(1, 10)), (2, Fraction(1, 4))])
def test_refutation_bound_is_below_the_truth_and_tight(k, eps):
    spec = SUB if k == 1 else f"compose({SUB}, k={k})"
    with mpmath.workdps(34):
        t = _truth(k, eps)
        above = Fraction(mpmath.nstr(t * (1 + mpf("1e-9")), 30))
        below = Fraction(mpmath.nstr(t * (1 - mpf("3e-2")), 30))
    assert not check(_lower_doc(spec, eps, above)).valid  # δ(ε) > a value above the truth: false
    assert check(_lower_doc(spec, eps, below)).valid  # the dominated PLD is within 3 % (h = 1/256: 2.6 %)


@settings(max_examples=15, deadline=None)
@given(shift=st.fractions(Fraction(0), Fraction(49, 100)),
       regions=st.lists(st.tuples(st.integers(0, 1), st.fractions(Fraction(-1, 4), Fraction(1, 4)),
                                  st.fractions(Fraction(0), Fraction(1, 8))), max_size=2))
def test_any_stated_partition_is_sound(shift, regions):
    """Every merge is a post-processing: whatever cells and regions the evidence states,
    no refutation of a true claim verifies."""
    eps = Fraction(1, 10)
    with mpmath.workdps(34):
        above = Fraction(mpmath.nstr(_truth(2, eps) * (1 + mpf("1e-9")), 30))
    doc = _lower_doc(f"compose({SUB}, k=2)", eps, above)
    ev = doc["evidence"]["pld_law_lower"]
    ev["shift"] = str(shift)
    seen: list = []
    for idx, u, w in regions:
        v = u + w + Fraction(1, 1000)
        if idx in [s[0] for s in seen] or any(not (v <= a or u >= b) for _, a, b in seen):
            continue
        seen.append((idx, u, v))
    ev["remove"]["regions"] = [[i, str(u), str(v)] for i, u, v in seen]
    assert not check(doc).valid


@pytest.mark.parametrize("mutate", [
    lambda ev: ev.update(shift="1/2"),
    lambda ev: ev["remove"].update(regions=[[2, "0", "1/10"]]),
    lambda ev: ev["remove"].update(regions=[[0, "1/10", "0"]]),
    lambda ev: ev["remove"].update(regions=[[0, "0", "1/10"], [1, "1/20", "1/5"]]),
    lambda ev: ev["add"].pop("range"),
    lambda ev: ev.update(remove=[0, 10]),
])
def test_malformed_lower_evidence_is_refused(mutate):
    doc = _lower_doc(SUB, Fraction(1, 10), Fraction(1, 10))
    mutate(doc["evidence"]["pld_law_lower"])
    with pytest.raises(MalformedCertificate):
        check(doc)


def test_audit_refutes_with_a_certificate(tmp_path):
    claims = tmp_path / "c.toml"
    claims.write_text('[[claim]]\nid = "sub"\nkind = "dp"\n'
                      f'mechanism = "compose({SUB}, k=200)"\neps = "6"\ndelta = "1e-5"\n')
    d = tmp_path / "certs"
    out = subprocess.run([sys.executable, "-m", "certdp", "audit", str(claims), "--certificates", str(d), "--json"],
                         capture_output=True, text=True)
    assert out.returncode in (0, 1), out.stderr
    assert json.loads(out.stdout)["claims"][0]["verdict"] == "REFUTED"  # ε(1e-5) >= 6.1418 > 6
    (f,) = list(d.iterdir())
    doc = json.loads(f.read_text())
    assert doc["claim"]["kind"] == "not_dp" and "pld_law_lower" in doc["evidence"] and check(doc).valid


def test_the_mpmath_kernel_rederives_the_loss_laws():
    """pld_law / pld_law_lower in intervals (check_law_pld_iv): the same verdict as flint."""
    from certdp.verifier.check_iv import check as check_iv

    cases = [(_doc, Fraction(1, 10), True), (_lower_doc, Fraction(1, 10), False),  # δ(1/10) <= 1/10
             (_doc, Fraction(1, 10**5), False), (_lower_doc, Fraction(1, 10**5), True)]  # δ(1/10) > 1e-5
    for make, delta, truth in cases:
        doc = make(SUB, Fraction(1, 10), delta)
        valid, why = check_iv(doc)
        assert valid is truth and check(doc).valid is truth, (make.__name__, delta, why)


@pytest.mark.parametrize("mech", ["compose(subsample(laplace(scale=1e-300), rate=1/10), k=3)",
                                  "compose(subsample(laplace(scale=1e-30), rate=1/10), k=3)"])
def test_extreme_laws_end_in_a_verdict_not_a_traceback(mech):
    """A loss of 1e30–1e300 cannot be placed on the stated grid or its masses bounded: the
    checker says so (INVALID with the step), never a traceback nor VALID for a false claim
    (δ(1) of these mechanisms is about 1 − 0.95³ > 1/10)."""
    for doc in (_doc(SUB, Fraction(1), Fraction(1, 10)), _lower_doc(SUB, Fraction(1), Fraction(1, 10))):
        doc["mechanism"] = mech
        res = check(doc)
        if doc["claim"]["kind"] == "dp":
            assert not res.valid
