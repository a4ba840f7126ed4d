"""docs/claims.md's example file audits as the page says (a doc that cannot rot)."""

from __future__ import annotations

import re
from pathlib import Path

from certdp.audit import audit_claim, load_claims

DOC = Path(__file__).resolve().parents[2] / "docs" / "claims.md"


def test_documented_example_audits_as_documented(tmp_path):
    text = DOC.read_text(encoding="utf-8")
    block = re.search(r"```toml\n(.*?)```", text, re.S).group(1)
    f = tmp_path / "claims.toml"
    f.write_text(block, encoding="utf-8")
    verdicts = {c.id: audit_claim(c).verdict for c in load_claims(str(f))}
    kinds = dict(re.findall(r'id = "([^"]+)"\n(?:source = .*\n)?(?:mechanism = .*\n)?kind = "([^"]+)"', block))
    assert len(verdicts) == len(kinds) == 9
    assert set(kinds.values()) == {"dp", "not_dp", "gdp", "prdp", "not_prdp", "value"}
    for cid, kind in kinds.items():
        assert verdicts[cid] == ("UNSUPPORTED" if kind in ("prdp", "not_prdp") else "CONFIRMED"), cid
