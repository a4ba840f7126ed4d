"""What an upper-bound-only profile refutes, as the README states it (issue 34,
defect 7e: the README said such profiles give no REFUTED verdicts, while value
claims are — soundly — refuted from their upper end)."""

from __future__ import annotations

import pathlib
import re

import pytest

from certdp.audit import audit_claim, parse_claims

README = (pathlib.Path(__file__).resolve().parents[2] / "README.md").read_text()
UPPER = ['clip_reify(laplace(scale=1), eps_h=5, lo=-1, hi=1)', 'profile("exp(-eps)/2")',
         'tradeoff("2/eps*sqrt(log(1/delta))", sigma=2)']


def _verdict(spec: str, body: str):
    return audit_claim(parse_claims(f"[[claim]]\nid = \"c\"\nmechanism = '{spec}'\n{body}")[0])


@pytest.mark.parametrize("spec", UPPER)
def test_refuted_only_from_the_upper_end(spec):
    # a dp claim far too strong is not refuted (no lower end) ...
    assert _verdict(spec, 'kind = "dp"\neps = "1/10"\ndelta = "1e-300"\n').verdict == "INCONCLUSIVE"
    # ... nor a gdp claim ...
    assert _verdict(spec, 'kind = "gdp"\nmu = "1e-6"\n').verdict != "REFUTED"
    # ... but a not_dp claim the upper bound proves false is, and so is a printed value above it
    assert _verdict(spec, 'kind = "not_dp"\neps = "1"\ndelta = "0.99"\n').verdict == "REFUTED"
    v = _verdict(spec, 'kind = "value"\nquantity = "delta"\nat = { eps = "1" }\nreported = "0.99"\n')
    assert v.verdict == "REFUTED" and v.valid_guarantee is True and v.enclosure.lo == 0


def test_readme_says_what_the_audit_does():
    para = re.search(r"\*\*What is known is stated\.\*\*(.*?)\n\n", README, re.S).group(1)
    flat = " ".join(para.split())
    assert "or REFUTED verdicts" not in flat  # the old, false promise
    assert "`not_dp`" in flat and "`value`" in flat and "REFUTED" in flat
