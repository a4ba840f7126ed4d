"""Every closed-form certificate of the seeds' audit verifies VALID under the Coq kernel
(issue 40), deep Gaussian tails (Mills' ratio) and sgd/icea switch points included.  The
only refusals (exit 2, with the reason, never passed) are the kinds on the documented list
of proofs/coq/README.md: a PLD accountant's evidence.  The σ-formula's noise refinements
(proofs/coq/Refine.v) are checked, not refused.

Slow (coqc: about a minute of CPU per ten certificates): CI's soundness run."""

from __future__ import annotations

import glob
import json
import os

import pytest

from certdp.cli import main
from tests.certificates.test_coq_kernel import require_coq

PLD_EVIDENCE = ("pld", "pld_lower", "pld_profile", "pld_items", "pld_law", "pld_law_lower")


def _pld(doc: dict) -> bool:
    return (doc["claim"]["kind"] in ("gdp_except", "not_gdp_except")
            or any(k in (doc.get("evidence") or {}) for k in PLD_EVIDENCE))


def _refined(doc: dict) -> bool:
    return doc["claim"]["kind"] == "value" and doc["claim"].get("quantity", "").startswith("refined_")


#: The documented refused kinds (proofs/coq/README.md): which certificates, and the reason the
#: kernel must give.  Any other refusal, or any INVALID, fails the test.
REFUSED_KINDS = {
    "PLD accountant": (_pld, "privacy-loss distribution"),
}


@pytest.mark.slow
@pytest.mark.soundness
def test_seed_certificates_under_the_coq_kernel(tmp_path, capsys):
    require_coq()
    out = tmp_path / "certs"
    assert main(["audit", "--builtin", "seeds", "--certificates", str(out)]) in (0, 1)
    capsys.readouterr()
    files = sorted(glob.glob(os.path.join(out, "*.json")))
    assert len(files) >= 80
    valid, refused, bad = [], {k: [] for k in REFUSED_KINDS}, []
    for f in files:
        doc = json.load(open(f))
        listed = [k for k, (member, _) in REFUSED_KINDS.items() if member(doc)]
        code = main(["verify", f, "--kernel", "coq", "--budget", "900"])
        cap = capsys.readouterr()
        if not listed and code == 0 and cap.out.startswith("VALID"):
            valid.append(doc)
        elif listed and code == 2 and REFUSED_KINDS[listed[0]][1] in cap.err:
            refused[listed[0]].append(f)
        else:
            bad.append((os.path.basename(f), listed, code, (cap.out + cap.err)[-300:]))
    assert not bad, bad
    # the closed-form kinds, the deep tails and the switch points are checked, not refused
    assert {d["claim"]["kind"] for d in valid} >= {"dp", "not_dp", "value"}
    assert sum(d["mechanism"] == "gaussian_dp(mu=6)" for d in valid) == 3
    assert sum(d["claim"].get("quantity", "").startswith("switch_") for d in valid) == 4
    assert sum(_refined(d) for d in valid) == 3
    assert len(valid) == len(files) - sum(map(len, refused.values())) >= 65
