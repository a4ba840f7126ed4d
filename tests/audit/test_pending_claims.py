"""Claims on mechanisms certdp cannot name yet (issue 39): ``event`` + ``needs``.

Such a claim is parsed and kept (the rest of the file is audited), and its verdict is
INCONCLUSIVE naming the missing capability; it never gets an enclosure or a certificate.
A misspelt ``mechanism`` still refuses the whole file.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from certdp import InputError
from certdp.audit import audit_claim, parse_claims

PENDING = '''
[[claim]]
id = "tree"
kind = "dp"
eps = "8.9"
delta = "1e-10"
event = { type = "dpftrl_tree", noise = "7", rounds = 2000, participation = "min_separation" }
needs = "tree aggregation (DP-FTRL)"

[[claim]]
id = "printed"
kind = "value"
quantity = "eps"
at = { delta = "1e-5" }
reported = "3.01"
event = { type = "shuffled_dpsgd", noise = "1.1", batch = 256, n = 60000 }
needs = "shuffling"

[[claim]]
id = "decided"
mechanism = "gaussian(sigma=1)"
kind = "gdp"
mu = "1"
'''


def test_pending_claims_are_kept_and_inconclusive_naming_the_capability():
    tree, printed, decided = parse_claims(PENDING)
    assert tree.mechanism is None and tree.needs == "tree aggregation (DP-FTRL)"
    assert tree.event == {"type": "dpftrl_tree", "noise": Fraction(7), "rounds": Fraction(2000),
                          "participation": "min_separation"}
    assert printed.event["noise"] == Fraction(11, 10)  # numerals are exact at the boundary
    for c in (tree, printed):
        v = audit_claim(c, want_certificate=True)
        assert v.verdict == "INCONCLUSIVE" and v.enclosure is None and v.certificate is None
        assert v.needs == c.needs and c.needs in v.detail and c.event["type"] in v.detail
        assert v.to_json()["needs"] == c.needs
    assert audit_claim(printed).printed == "3.01"
    assert audit_claim(decided).verdict == "CONFIRMED"  # the rest of the file is audited as before
    assert "needs" not in audit_claim(decided).to_json()


HEAD = '[[claim]]\nid = "c"\nkind = "dp"\neps = "1"\ndelta = "1e-5"\n'


@pytest.mark.parametrize("body,match", [
    ('needs = "shuffling"\n', "describes its mechanism in 'event'"),
    ('event = { type = "x" }\nneeds = ""\n', "field 'needs'"),
    ('event = { type = "x" }\nneeds = 3\n', "field 'needs'"),
    ('event = { noise = "1" }\nneeds = "x"\n', "event.type"),
    ('event = { type = "x", noise = 1.5 }\nneeds = "x"\n', "event.noise"),
    ('event = "tree"\nneeds = "x"\n', "field 'event'"),
    ('mechanism = "gaussian(sigma=1)"\nevent = { type = "x" }\nneeds = "x"\n', "has no 'mechanism'"),
    ('event = { type = "x" }\n', "'mechanism' is required"),
    ('mechanism = "tree_aggregation(noise=1)"\n', "mechanism"),  # an unknown name still refuses the file
])
def test_malformed_pending_claims_are_refused(body, match):
    with pytest.raises(InputError, match=match):
        parse_claims(HEAD + body)


def test_event_without_needs_describes_an_auditable_claim():
    (c,) = parse_claims(HEAD + 'mechanism = "gaussian(sigma=5)"\nevent = { type = "gaussian", sigma = "5" }\n')
    assert c.event["sigma"] == 5 and not c.needs
    assert audit_claim(c).verdict == "CONFIRMED"


def test_cli_reports_the_missing_capability(tmp_path, capsys):
    """`certdp audit FILE --json` keeps the pending claims, names what they need, and exits 1 (not all decided)."""
    import json

    from certdp.cli import main

    f = tmp_path / "claims.toml"
    f.write_text(PENDING)
    assert main(["audit", str(f), "--json"]) == 1
    out = {c["id"]: c for c in json.loads(capsys.readouterr().out)["claims"]}
    assert out["tree"]["verdict"] == "INCONCLUSIVE" and out["tree"]["needs"] == "tree aggregation (DP-FTRL)"
    assert out["decided"]["verdict"] == "CONFIRMED" and "needs" not in out["decided"]
