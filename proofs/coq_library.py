"""The Coq library (proofs/coq/) compiled by coqc: the lemmas the Coq kernel's
GDP cell proofs rest on (CertDP.v), the noise refinement's cell argument (Refine.v) and the sign
calculus's rules (Mono.v), and the papers' key results (Papers.v).

Each theorem is accepted by coqc and ``Print Assumptions`` lists no axiom beyond
Coq's reals, its primitive numbers and the library's Gaussian integral.  Where
coqc is missing the result is "skipped" with the Debian packages to install —
a failure under ``CERTDP_REQUIRE_COQ=1`` (CI).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from proofs.core import ProofResult, Step, conclude

NAME = "coq-library"
STATEMENT = ("Coq (Coquelicot + Interval): delta_mu monotone in eps and mu, delta_mu >= 0, the monotone and "
             "mean-value cell lemmas, Mills' ratio bounds of delta_mu's tail, the switch-point bracket, the noise "
             "refinement's bracket, the sign calculus's rules for a sigma-formula's monotonicity; Liu et al. 2022 "
             "Thm 3.1, 3.2, 5.1 (optimality); Guingona et al. 2023 Lemma 2.3")
SOURCE = "proofs/coq/CertDP.v, proofs/coq/Refine.v, proofs/coq/Mono.v, proofs/coq/Papers.v (proofs/coq/README.md)"

#: theorem -> what it states (Print Assumptions is checked for each)
THEOREMS = {
    "CertDP.delta_mu_nonincr": "delta_mu is non-increasing in eps (Liu et al. 2022 Thm 3.2)",
    "CertDP.delta_mu_lt_mu": "delta_mu is strictly increasing in mu",
    "CertDP.delta_mu_nonneg": "delta_mu >= 0",
    "CertDP.cells_cover_head": "cells covering [0, eps_h] give (eps_h, mu)-head GDP",
    "CertDP.first_order_cell": "the monotone cell inequality (Liu et al. 2022 Thm 4.6)",
    "CertDP.laplace_cell2": "Laplace's second-order (mean value) cell",
    "CertDP.mills_upper": "Mills' ratio (Gordon 1941): Phi(-t) <= phi(t)/t for t > 0",
    "CertDP.mills_lower": "Mills' ratio (Gordon 1941): phi(t) t/(t^2 + 1) <= Phi(-t) for t > 0",
    "CertDP.delta_mu_tail": "two-sided bounds on delta_mu in its tail, free of cancellation",
    "CertDP.switch_bracket": "every maximiser of a refined profile's q lies in the proved bracket (Liu et al. 2022 App. B)",
    "CertDP.switch_exists": "q attains its maximum (continuous on the bracket)",
    "Refine.refine_bracket": "every minimiser of a noise refinement's F = f(x, delta0(x)) lies in the proved bracket "
                             "(Liu et al. 2022 App. C)",
    "Refine.refine_exists": "F attains its minimum on the refinement's domain (continuous on the bracket)",
    "Mono.mono_nonincr2": "a sign-calculus derivation of a sigma-formula proves it non-increasing in eps and delta",
    "Mono.m_mul": "the sign calculus's product rule (signed factors)",
    "Mono.m_inv": "the sign calculus's reciprocal rule (1/b on a signed range)",
    "Papers.liu2022_thm31": "Liu et al. 2022 Thm 3.1, corrected partial order (explicit hypotheses)",
    "Papers.liu2022_thm32": "Liu et al. 2022 Thm 3.2: delta_mu as the hockey-stick integral",
    "Papers.liu2022_thm51_optimal": "Liu et al. 2022 Thm 5.1, optimality of mu",
    "Papers.guingona2023_lemma23": "Guingona et al. 2023 Lemma 2.3: the ADP -> PrDP penalty",
}


def check() -> ProofResult:
    from certdp.verifier.coq.run import (ALLOWED_AXIOMS, PACKAGES, PRIMITIVE_PREFIXES, axioms,  # noqa: PLC0415
                                         library, library_source)

    if shutil.which("coqc") is None:
        required = os.environ.get("CERTDP_REQUIRE_COQ") == "1"
        step = Step(f"coqc is installed (apt-get install {PACKAGES})", "coq", not required,
                    "skipped: coqc missing")
        return ProofResult(NAME, STATEMENT, SOURCE, "failed" if required else "skipped", (step,), ())
    import subprocess  # noqa: PLC0415

    lib = library()  # CertDP.v, Refine.v and Mono.v, compiled once per source and coqc version
    steps = [Step("CertDP.v, Refine.v and Mono.v compile", "coq", True)]
    src = (library_source() / "Papers.v").read_text(encoding="utf-8")
    prints = "\n".join(f"Print Assumptions {name.split('.')[-1]}." for name in THEOREMS)
    with tempfile.TemporaryDirectory(prefix="certdp-proofs-") as tmp:
        Path(tmp, "Papers.v").write_text(src + "\nFrom CertDP Require Import CertDP Refine Mono.\n" + prints + "\n",
                                         encoding="utf-8")
        res = subprocess.run(["coqc", "-q", "-Q", str(lib), "CertDP", "Papers.v"], cwd=tmp,
                             capture_output=True, text=True, check=False, timeout=900)
    steps.append(Step("Papers.v compiles", "coq", res.returncode == 0, res.stderr[-300:] if res.returncode else ""))
    # one "Print Assumptions" block per theorem, in order (closed ones print "Closed under ...")
    outputs = _blocks(res.stdout) if res.returncode == 0 else []
    for (name, what), out in zip(THEOREMS.items(), outputs + [None] * (len(THEOREMS) - len(outputs))):
        bad = None if out is None else [a for a in axioms(out)
                                        if a not in ALLOWED_AXIOMS and not a.startswith(PRIMITIVE_PREFIXES)]
        steps.append(Step(f"{what} [{name}]", "coq", out is not None and not bad,
                          "" if not bad else f"axioms outside the trusted list: {bad}"))
    return conclude(NAME, STATEMENT, SOURCE, steps, [])


def _blocks(stdout: str) -> list[str]:
    """Split coqc's output into one block per Print Assumptions."""
    out: list[str] = []
    for line in stdout.splitlines():
        if line.startswith("Axioms:") or line.startswith("Closed under the global context"):
            out.append(line + "\n")
        elif out:
            out[-1] += line + "\n"
    return out
