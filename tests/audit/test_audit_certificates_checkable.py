"""`certdp audit --certificates` writes only what `certdp verify` accepts (issue 34,
defect 7a): a decided claim on a mechanism the checker's table refuses — the
σ-formula mechanisms (tradeoff, sgd, icea: except sgd/icea switch points) and
``subset`` — gets "no certificate" with the reason, never a malformed file."""

from __future__ import annotations

import json

import pytest

from certdp.audit import audit_claim, parse_claims
from certdp.certificates import check
from certdp.cli import main

TR = 'tradeoff("2/eps*sqrt(log(1/delta))", sigma=2)'
CLAIMS = [
    ("tr_dp", TR, 'kind = "dp"\neps = "2"\ndelta = "0.5"'),
    ("tr_not_dp", TR, 'kind = "not_dp"\neps = "2"\ndelta = "0.5"'),
    ("tr_switch", TR, 'kind = "value"\nquantity = "switch_eps"\nat = {}\nreported = "1"'),
    ("tr_delta", TR, 'kind = "value"\nquantity = "delta"\nat = { eps = "2" }\nreported = "0.5"'),
    ("sgd_dp", "sgd(A=1, B=1, sigma=2)", 'kind = "dp"\neps = "2"\ndelta = "0.5"'),
    ("icea_dp", "icea(m=100, n=10)", 'kind = "dp"\neps = "2"\ndelta = "0.5"'),
    ("icea_switch", "icea(m=100, n=10)", 'kind = "value"\nquantity = "switch_eps"\nat = {}\nreported = "1"'),
    ("subset_dp", "subset(laplace(scale=1), rate=1/2)", 'kind = "dp"\neps = "2"\ndelta = "0.5"'),
    ("subset_delta", "subset(laplace(scale=1), rate=1/2)",
     'kind = "value"\nquantity = "delta"\nat = { eps = "1" }\nreported = "0.5"'),
]
#: the claims whose certificate the checker accepts (the rest: "no certificate", with the reason)
CHECKABLE = {"icea_switch"}


def _toml(rows=CLAIMS) -> str:
    return "".join(f"[[claim]]\nid = \"{cid}\"\nmechanism = '{spec}'\n{body}\n\n" for cid, spec, body in rows)


@pytest.mark.parametrize("row", CLAIMS, ids=[r[0] for r in CLAIMS])
def test_a_certificate_is_written_only_when_the_checker_accepts_it(row):
    v = audit_claim(parse_claims(_toml([row]))[0], want_certificate=True)
    assert v.verdict in ("CONFIRMED", "REFUTED"), v.detail
    if row[0] in CHECKABLE:
        assert v.certificate is not None and check(v.certificate).valid
    else:
        assert v.certificate is None
        assert v.no_certificate and "not supported" in v.no_certificate


def test_cli_every_written_certificate_verifies(tmp_path, capsys):
    f = tmp_path / "claims.toml"
    f.write_text(_toml())
    out = tmp_path / "certs"
    main(["audit", str(f), "--certificates", str(out), "--json"])
    report = json.loads(capsys.readouterr().out)
    written = sorted(p.name.split("-")[0] for p in out.iterdir())
    assert written == sorted(CHECKABLE)
    for p in out.iterdir():
        assert main(["verify", str(p)]) == 0, p.name
    missing = {c["id"] for c in report["claims"] if c.get("no_certificate")}
    assert missing == {r[0] for r in CLAIMS} - CHECKABLE
