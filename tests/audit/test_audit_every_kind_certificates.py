"""Every decided audit claim gets a certificate the checker accepts, or the reason why
at once (issue 36): a claims file with every claim kind and value quantity
(``data/every_kind.toml``: closed forms, DP-SGD accountant answers, sgd's refined
profile, switch points, a noise refinement, ``tradeoff(sigma_formula=…)``), and the
builtin seeds (slow), are audited with ``--certificates DIR``; every written file is
VALID under ``certdp verify``."""

from __future__ import annotations

import json
import pathlib

import pytest

from certdp.cli import main
from certdp.verifier.checker import verify

DATA = pathlib.Path(__file__).parent / "data" / "every_kind.toml"
#: decided claims the checker cannot certify yet, and the words of the reason given
REFUSED = {"gdp-tradeoff": "tradeoff", "dp-tradeoff": "tradeoff", "value-switch-tradeoff": "tradeoff",
           "value-mu": "quantity 'mu'"}


def _audit(args, tmp_path, capsys):
    out = tmp_path / "certs"
    main(["audit", *args, "--certificates", str(out), "--json"])
    report = json.loads(capsys.readouterr().out)["claims"]
    files = {p.name.rsplit("-", 1)[0]: p for p in out.iterdir()} if out.exists() else {}
    return report, files


def test_every_kind_is_certified_or_refused_with_a_reason(tmp_path, capsys):
    report, files = _audit([str(DATA)], tmp_path, capsys)
    decided = {c["id"] for c in report if c["verdict"] in ("CONFIRMED", "REFUTED")}
    for cid, path in files.items():
        r = verify(str(path))
        assert r.valid, (cid, r.failed_step)
    missing = {c["id"]: c.get("no_certificate", "") for c in report if c["id"] in decided and c["id"] not in files}
    assert set(missing) == set(REFUSED), missing
    for cid, words in REFUSED.items():
        assert words in missing[cid], missing[cid]
    # the accountant answers are among the certified (value claims on DP-SGD's ε and δ)
    assert {"value-eps-dpsgd", "value-delta-dpsgd", "gdp-sgd", "dp-dpsgd", "notdp-dpsgd"} <= set(files)


@pytest.mark.slow
def test_builtin_seeds_certificates_all_verify(tmp_path, capsys):
    report, files = _audit(["--builtin", "seeds"], tmp_path, capsys)
    decided = [c["id"] for c in report if c["verdict"] in ("CONFIRMED", "REFUTED")]
    assert len(files) == len(decided)
    for cid, path in files.items():
        assert verify(str(path)).valid, cid
