"""A printed value is a decimal numeral (issue 34, defect 2).

"1/2" has no last printed digit: it used to be read as a numeral with no
decimals, standing for [0, 1], so ``reported = "1/2"`` for μ_GDP(1, 1e-5) =
0.26805… was CONFIRMED and its certificate verified VALID.  The rule lives in
one place (``certdp.numerics.exact.printed_numeral``), used by the audit and by
the certificate checker alike."""

from __future__ import annotations

import copy
import importlib
from fractions import Fraction

import pytest

from certdp import InputError
from certdp.audit import audit_claim, parse_claims
from certdp.certificates import MalformedCertificate, check
from certdp.verifier.check_iv import check as check_mpmath
from certdp.cli import main

exact = importlib.import_module("certdp.numerics.exact")  # the module (the package re-exports a function of that name)

NOT_PRINTED = ["1/2", "1/3", "3/10", "0/1", "exp(1)", "1 /2", "", ".", "e5", "1e", "0x1", "nan", "inf",
               " 0.27", "0.27 ", "١", "1_000", "+-1", "1.2.3"]


def _claims(reported: str) -> str:
    return ('[[claim]]\nid = "half"\nkind = "value"\nquantity = "mu_gdp"\n'
            f'at = {{ eps = "1", delta = "1e-5" }}\nreported = "{reported}"\n')


@pytest.mark.parametrize("text", NOT_PRINTED)
def test_only_decimal_numerals_are_printed_values(text):
    with pytest.raises(InputError, match="printed decimal numeral"):
        exact.printed_numeral(text)
    with pytest.raises(InputError):
        exact.printed_interval(text, "nearest")


@pytest.mark.parametrize("text,value,ulp", [
    ("0.27", "0.27", "0.01"), ("-3", "-3", "1"), ("+3", "3", "1"), ("1.5e-3", "0.0015", "0.0001"),
    ("1.5E+3", "1500", "100"), (".5", "0.5", "0.1"), ("1.", "1", "1"), ("2.00", "2", "0.01"),
])
def test_printed_numerals(text, value, ulp):
    assert exact.printed_numeral(text) == (Fraction(value), Fraction(ulp))


@pytest.mark.parametrize("reported", ["1/2", "1/3", "3/10", "0/1"])
def test_audit_refuses_a_fraction_as_printed_value(reported, tmp_path, capsys):
    with pytest.raises(InputError) as err:
        parse_claims(_claims(reported))
    assert "half" in str(err.value) and "reported" in str(err.value)
    f = tmp_path / "c.toml"
    f.write_text(_claims(reported))
    assert main(["audit", str(f)]) == 2
    captured = capsys.readouterr()
    assert "half" in captured.err and "Traceback" not in captured.err
    assert "CONFIRMED" not in captured.out


@pytest.fixture(scope="module")
def cert():
    v = audit_claim(parse_claims(_claims("0.27"))[0], want_certificate=True)
    assert v.verdict == "CONFIRMED" and v.certificate is not None
    return v.certificate


@pytest.mark.parametrize("reported", ["1/2", "1/3", "3/10", "0/1", "27/100"])
@pytest.mark.parametrize("kernel", ["flint", "mpmath"])
def test_checker_refuses_a_fraction_as_printed_value(cert, reported, kernel):
    run = (lambda d: check(d).valid) if kernel == "flint" else (lambda d: check_mpmath(d)[0])
    doc = copy.deepcopy(cert)
    assert run(doc)
    doc["claim"]["reported"] = reported
    with pytest.raises(MalformedCertificate, match="printed decimal numeral"):
        run(doc)


def test_verify_cli_exit_2_for_a_fraction(cert, tmp_path, capsys):
    import json

    doc = copy.deepcopy(cert)
    doc["claim"]["reported"] = "1/2"
    f = tmp_path / "c.json"
    f.write_text(json.dumps(doc))
    assert main(["verify", str(f)]) == 2
    assert "VALID" not in capsys.readouterr().out
