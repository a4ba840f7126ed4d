"""Machine-checked facts certdp relies on.

Each module has ``check() -> ProofResult`` that proves its statement by exact
symbolic computation (sympy) or certified ball arithmetic, and records where a
seed's printed statement is wrong (with the correction).  ``python -m proofs``
runs them all.
"""

from __future__ import annotations

import importlib

from proofs.core import ProofResult

MODULES = [
    "proofs.seed000_thm31_tightness",
    "proofs.seed000_thm45_lipschitz",
    "proofs.seed000_lemmaA1_asymptotics",
    "proofs.seed000_thm51_pure_dp",
    "proofs.seed002_phi_functions",
    "proofs.seed004_lemmas",
    "proofs.seed000_algorithm3_corrections",
    "proofs.coq_library",
]
#: Modules that run coqc (tests/test_proofs.py leaves them to the slow soundness run).
COQ_MODULES = ("proofs.coq_library",)


def run_all() -> list[ProofResult]:
    return [importlib.import_module(m).check() for m in MODULES]
