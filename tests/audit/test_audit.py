"""Claims files and certified verdicts (issue 9)."""

from __future__ import annotations

import json
from fractions import Fraction

import mpmath
import pytest

from certdp import InputError
from certdp.audit import audit_claim, builtin_path, load_claims, parse_claims, printed_interval
from certdp.cli import main
from refs import delta_mu_ref, mpf

HEAD = '[[claim]]\nid = "c1"\n'


def one(body: str):
    return parse_claims(HEAD + body)[0]


@pytest.mark.parametrize(
    "reported,rounding,lo,hi",
    [
        ("5.28", "nearest", "5.275", "5.285"),
        ("5.28", "up", "5.27", "5.28"),
        ("5.28", "truncate", "5.28", "5.29"),
        ("2.00", "nearest", "1.995", "2.005"),
        ("10", "nearest", "9.5", "10.5"),
        ("1e-5", "nearest", "0.5e-5", "1.5e-5"),
    ],
)
def test_printed_interval(reported, rounding, lo, hi):
    assert printed_interval(reported, rounding) == (Fraction(lo), Fraction(hi))


@pytest.mark.parametrize(
    "text,needle",
    [
        ('kind = "dp"\nmechanism = "laplace(scale=1)"\neps = "1"\ndelta = "0"\nbogus = 1\n', "bogus"),
        ('kind = "dp"\nmechanism = "laplace(scale=1)"\neps = "1"\n', "delta"),
        ('kind = "maybe"\nmechanism = "laplace(scale=1)"\n', "kind"),
        ('kind = "dp"\nmechanism = "laplace(scale=1)"\neps = "one"\ndelta = "0"\n', "eps"),
        ('kind = "value"\nmechanism = "laplace(scale=1)"\nquantity = "eps"\nat = { eps = "1" }\nreported = "1"\n', "at"),
        ('kind = "value"\nquantity = "mu_gdp"\nat = { eps = "1", delta = "1e-5" }\nreported = 0.27\n', "reported"),
        ('kind = "dp"\nmechanism = "laplace(scale=1)"\neps = "1"\ndelta = "1.5"\n', "delta"),
    ],
)
def test_malformed_claims_name_id_and_field(text, needle):
    with pytest.raises(InputError) as err:
        parse_claims(HEAD + text)
    assert "c1" in str(err.value) and needle in str(err.value)


def test_duplicate_ids_and_bad_toml():
    with pytest.raises(InputError, match="duplicate"):
        parse_claims(HEAD + 'kind = "gdp"\nmechanism = "gaussian_dp(mu=1)"\nmu = "1"\n' * 1
                     + HEAD + 'kind = "gdp"\nmechanism = "gaussian_dp(mu=1)"\nmu = "1"\n')
    with pytest.raises(InputError, match="TOML"):
        parse_claims("[[claim]\n")


def test_dp_verdicts_against_mpmath():
    """gaussian_dp(mu=0.27) at (1, 1e-5): μ_GDP(1, 1e-5) ≈ 0.268 < 0.27, so the
    rounded Table 3 value is NOT a valid replacement; 0.26 is."""
    assert delta_mu_ref(Fraction(27, 100), 1) > mpf("1e-5")  # independent truth
    assert delta_mu_ref(Fraction(26, 100), 1) < mpf("1e-5")
    bad = audit_claim(one('kind = "dp"\nmechanism = "gaussian_dp(mu=0.27)"\neps = "1"\ndelta = "1e-5"\n'))
    good = audit_claim(one('kind = "dp"\nmechanism = "gaussian_dp(mu=0.26)"\neps = "1"\ndelta = "1e-5"\n'))
    assert bad.verdict == "REFUTED" and bad.valid_guarantee is False and "witness" in bad.detail
    assert good.verdict == "CONFIRMED" and good.valid_guarantee is True
    neg = audit_claim(one('kind = "not_dp"\nmechanism = "gaussian_dp(mu=0.27)"\neps = "1"\ndelta = "1e-5"\n'))
    assert neg.verdict == "CONFIRMED" and neg.valid_guarantee is None


def test_value_mu_gdp_valid_guarantee():
    c = audit_claim(one('kind = "value"\nquantity = "mu_gdp"\nat = { eps = "1", delta = "1e-5" }\nreported = "0.27"\n'))
    assert c.verdict == "CONFIRMED" and c.valid_guarantee is False  # 0.27 rounds the truth up
    c2 = audit_claim(one('kind = "value"\nquantity = "mu_gdp"\nat = { eps = "1", delta = "1e-5" }\nreported = "0.268"\n'))
    assert delta_mu_ref(Fraction(268, 1000), 1) <= mpf("1e-5")
    assert c2.verdict == "CONFIRMED" and c2.valid_guarantee is True


def test_value_eps_threshold_of_seed002_is_refuted_at_nearest():
    """Seed 002 §3 prints 0.471 for the threshold log(0.7e - 0.3) = 0.47175…:
    wrong as a rounded statistic (nearest), right as a truncation."""
    with mpmath.workdps(50):
        truth = mpmath.log(mpmath.mpf("0.7") * mpmath.e - mpmath.mpf("0.3"))
    assert mpf("0.4715") < truth < mpf("0.472")
    body = 'kind = "value"\nmechanism = "pure_dp(eps=1)"\nquantity = "eps"\nat = { delta = "0.3" }\nreported = "0.471"\n'
    nearest = audit_claim(one(body))
    trunc = audit_claim(one(body + 'rounding = "truncate"\n'))
    assert nearest.verdict == "REFUTED" and nearest.valid_guarantee is False
    assert trunc.verdict == "CONFIRMED"
    assert mpf(Fraction(nearest.enclosure.lo_str(40))) <= truth <= mpf(Fraction(nearest.enclosure.hi_str(40)))


def test_builtin_seed003_table3_all_confirmed():
    claims = [c for c in load_claims(builtin_path("seeds")) if c.id.startswith("seed003-table3")]
    assert len(claims) == 24
    verdicts = [audit_claim(c) for c in claims]
    assert all(v.verdict == "CONFIRMED" for v in verdicts), [v.id for v in verdicts if v.verdict != "CONFIRMED"]


def test_cli_exit_codes_and_json(tmp_path, capsys):
    f = tmp_path / "claims.toml"
    f.write_text(HEAD + 'kind = "dp"\nmechanism = "gaussian_dp(mu=0.26)"\neps = "1"\ndelta = "1e-5"\n')
    assert main(["audit", str(f), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["claims"][0]["verdict"] == "CONFIRMED" and set(out["claims"][0]) >= {"id", "verdict", "enclosure", "valid_guarantee", "detail"}
    f.write_text(HEAD + 'kind = "prdp"\nmechanism = "gaussian_dp(mu=0.26)"\neps = "1"\ndelta = "1e-5"\n')
    assert main(["audit", str(f)]) == 1
    capsys.readouterr()
    f.write_text(HEAD + 'kind = "dp"\n')
    assert main(["audit", str(f)]) == 2
    assert "c1" in capsys.readouterr().err


def test_seed003_table2_mu_1_3_is_refuted_by_a_witness():
    """Seed 003 Table 2 prints μ = 1.3 for σ = 9.4, q = 16384/50000, T = 2000.
    Independent witness: at ε = 7.4 the certified lower bound of δ exceeds
    δ_1.3(7.4) + 1e-6, with δ_1.3 computed by mpmath (closed form)."""
    from certdp.analyses.dispatch import delta_of

    m = parse_claims(HEAD + 'kind = "gdp"\nmechanism = "dpsgd(noise=9.4, rate=16384/50000, steps=2000)"\n'
                     'mu = "1.3"\nresidual = "1e-6"\n')[0]
    d = delta_of(__import__("certdp.mechanisms", fromlist=["parse_spec"]).parse_spec(m.mechanism), "7.4")
    assert mpf(Fraction(d.enclosure.lo_str(30))) > delta_mu_ref(Fraction(13, 10), Fraction(74, 10)) + mpf("1e-6")
    v = audit_claim(m)
    assert v.verdict == "REFUTED" and v.valid_guarantee is False


def test_icea_switch_point_claim_against_mpmath_root():
    """ICEA (m=20, n=4): δ̂(ε) = 4e^{-2}/ε, and the switch point maximises
    q(x) = (1 - δ̂(x))/(1 + e^x); mpmath finds q'(x) = 0 independently."""
    c = one('kind = "value"\nmechanism = "icea(m=20, n=4)"\nquantity = "switch_eps"\nat = {}\nreported = "1.159"\n')
    v = audit_claim(c)
    with mpmath.workdps(40):
        q = lambda x: (1 - 4 * mpmath.exp(-2) / x) / (1 + mpmath.exp(x))  # noqa: E731
        root = mpmath.findroot(lambda x: mpmath.diff(q, x), mpmath.mpf("1.15"))
    assert mpf(Fraction(v.enclosure.lo_str(35))) <= root <= mpf(Fraction(v.enclosure.hi_str(35)))
    assert v.verdict == "REFUTED"  # the printed 1.159 is not a rounding of 1.15660…


def test_refined_claim_fields_are_validated():
    ok = one('kind = "value"\nquantity = "refined_sigma"\nformula = "-log(delta)/eps"\n'
             'at = { eps = "0.2", delta = "exp(-2)" }\nreported = "8.086"\n')
    assert ok.formula == "-log(delta)/eps"
    with pytest.raises(InputError, match="formula"):
        one('kind = "value"\nquantity = "refined_sigma"\nat = { eps = "0.2", delta = "0.1" }\nreported = "8"\n')
    with pytest.raises(InputError, match="at.delta"):
        one('kind = "value"\nquantity = "refined_sigma"\nformula = "-log(delta)/eps"\n'
            'at = { eps = "0.2", delta = "__import__(1)" }\nreported = "8"\n')
    with pytest.raises(InputError, match="takes no mechanism"):
        one('kind = "value"\nmechanism = "laplace(scale=1)"\nquantity = "refined_sigma"\n'
            'formula = "-log(delta)/eps"\nat = { eps = "0.2", delta = "0.1" }\nreported = "8"\n')
