"""Claims on DP-SGD with shuffled fixed-size batches: parsed at the boundary into a ShuffledRun,
decided by the certified shuffled lower bound (REFUTED, certificate not_dp_shuffled) or the
no-amplification upper bound (CONFIRMED), INCONCLUSIVE in between."""

from __future__ import annotations

import copy
import json
from fractions import Fraction

import pytest

from certdp.audit import audit_claim, parse_claims
from certdp.audit.claims import ShuffledRun
from certdp.errors import InputError
from certdp.verifier.checker import check

EVENT = ('{{ type = "dpsgd_shuffled_fixed_batch", noise_multiplier = "{s}", batch = {b}, n = {n}, '
         'epochs = {e}{extra} }}')


def _claim(kind: str, fields: str, s="1", b=100, n=1000, e=2, extra=""):
    doc = (f'[[claim]]\nid = "c"\nkind = "{kind}"\n{fields}\n'
           f'event = {EVENT.format(s=s, b=b, n=n, e=e, extra=extra)}\n')
    return parse_claims(doc)[0]


VALUE = 'quantity = "eps"\nat = { delta = "1e-5" }\nreported = "%s"'


def test_the_event_is_parsed_once_into_exact_types():
    c = _claim("value", VALUE % "3.59", extra=', steps_per_epoch = 10, relation = "unstated"')
    assert c.shuffled == ShuffledRun(Fraction(1), 100, 1000, 2, "unstated")
    assert c.mechanism is None and not c.needs


@pytest.mark.parametrize("kw, words", [
    ({"b": 256, "n": 60000}, "does not divide"),
    ({"extra": ", steps_per_epoch = 11"}, "steps_per_epoch"),
    ({"e": 0}, "positive integer"),
    ({"s": "0"}, "must be > 0"),
    ({"extra": ", shuffles = 3"}, "unknown key"),
])
def test_malformed_shuffled_events_are_refused_with_the_field(kw, words):
    with pytest.raises(InputError, match=words):
        _claim("value", VALUE % "3.59", **kw)


def test_only_eps_claims_are_audited_on_a_shuffled_event():
    with pytest.raises(InputError, match="kinds dp, not_dp and value of eps"):
        _claim("gdp", 'mu = "1"')


def test_a_non_dividing_batch_stays_pending_with_needs():
    doc = ('[[claim]]\nid = "c"\nkind = "dp"\neps = "3"\ndelta = "1e-5"\nneeds = "a dividing batch"\n'
           f'event = {EVENT.format(s="1.1", b=256, n=60000, e=60, extra="")}\n')
    c = parse_claims(doc)[0]
    assert c.shuffled is None and audit_claim(c).verdict == "INCONCLUSIVE"


def test_poisson_accounted_eps_below_the_shuffled_lower_bound_is_refuted_with_a_checked_certificate():
    # the Poisson number for this run is 3.5907...; shuffling cannot be accounted that way
    v = audit_claim(_claim("value", VALUE % "3.59"), want_certificate=True)
    assert v.verdict == "REFUTED" and v.valid_guarantee is False
    lo, hi = v.enclosure.lo_exact, v.enclosure.hi_exact
    assert Fraction(6) < lo < hi < Fraction(66, 10)  # lower bound 6.34, no amplification 6.573 (√2/σ-GDP)
    cert = v.certificate
    assert cert["claim"]["kind"] == "not_dp_shuffled" and check(cert).valid
    assert Fraction(cert["claim"]["eps"]) >= Fraction("3.595")  # the certificate itself carries the refutation
    bad = copy.deepcopy(cert)
    bad["claim"]["eps"] = "6.6"  # above the no-amplification bound: a false statement must not check
    assert not check(bad).valid


def test_a_claim_between_the_bounds_stays_inconclusive_naming_the_missing_upper_bound():
    v = audit_claim(_claim("value", VALUE % "6.4"), want_certificate=True)
    assert v.verdict == "INCONCLUSIVE" and v.valid_guarantee is None and v.certificate is None
    assert "no certified upper bound for shuffled batches" in v.detail


def test_dp_claims_refuted_at_the_claimed_eps_and_confirmed_without_amplification():
    v = audit_claim(_claim("dp", 'eps = "3.59"\ndelta = "1e-5"'), want_certificate=True)
    assert v.verdict == "REFUTED" and v.valid_guarantee is False
    assert v.certificate["claim"]["kind"] == "not_dp_shuffled" and check(v.certificate).valid
    assert Fraction(v.certificate["claim"]["delta"]) >= Fraction("1e-5")
    ok = audit_claim(_claim("dp", 'eps = "7"\ndelta = "1e-5"'), want_certificate=True)
    assert ok.verdict == "CONFIRMED" and ok.valid_guarantee is True and "no amplification" in ok.detail
    assert ok.certificate["claim"]["kind"] == "dp" and check(ok.certificate).valid
    neg = audit_claim(_claim("not_dp", 'eps = "3.59"\ndelta = "1e-5"'), want_certificate=True)
    assert neg.verdict == "CONFIRMED" and check(neg.certificate).valid


def test_one_batch_per_epoch_brackets_the_full_batch_gaussian():
    """B = N: the run is E full-batch Gaussian steps, exactly (√E/σ)-GDP, so the no-amplification
    bound is the truth and the lower bound must approach it (independent closed form: δ_μ)."""
    from certdp.analyses import dispatch
    from certdp.mechanisms.spec import parse_spec

    v = audit_claim(_claim("value", VALUE % "10.0", b=100, n=100, e=4))
    truth = dispatch.eps_of(parse_spec("gaussian_dp(mu=2)"), Fraction("1e-5")).enclosure
    assert v.enclosure.lo_exact <= truth.lo_exact and truth.hi_exact <= v.enclosure.hi_exact
    assert v.enclosure.lo_exact > Fraction(999, 1000) * truth.lo_exact  # width: within 0.1 %


def test_cli_audit_writes_and_verifies_the_shuffled_certificate(tmp_path, capsys):
    from certdp.cli import main

    f = tmp_path / "claims.toml"
    f.write_text('[[claim]]\nid = "shuf"\nkind = "value"\n' + VALUE % "3.59" + "\n"
                 f'event = {EVENT.format(s="1", b=100, n=1000, e=2, extra="")}\n', encoding="utf-8")
    out = tmp_path / "certs"
    main(["audit", str(f), "--certificates", str(out), "--json"])
    rows = json.loads(capsys.readouterr().out)
    assert any("REFUTED" in json.dumps(r) for r in (rows if isinstance(rows, list) else [rows]))
    files = list(out.iterdir())
    assert len(files) == 1 and main(["verify", str(files[0])]) == 0
