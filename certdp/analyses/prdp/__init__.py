"""Approximate vs probabilistic DP (Guingona et al. 2023, Guingona et al.).

* :mod:`certdp.analyses.prdp.finite` — finite mechanisms with exact tables, exact
  ``is_adp`` / ``is_prdp`` (Def 2.2).
* :mod:`certdp.analyses.prdp.conversion` — ADP → PrDP (Lemma 2.3 / Zhao et al. Lemma 12).
* :mod:`certdp.analyses.prdp.constructions` — Lemma 3.1, Thm 3.2, Thm 3.3, Cor 3.4 (2).
* :mod:`certdp.certificates.prdp_writer` — certificates for the counterexamples.
"""

from certdp.analyses.prdp.constructions import (
    Counterexample,
    HypothesisCheck,
    corollary_3_4,
    lemma_3_1,
    lemma_3_1_conditions,
    theorem_3_2,
    theorem_3_3,
)
from certdp.analyses.prdp.conversion import adp_to_prdp, min_eps_hat
from certdp.analyses.prdp.finite import DPCheck, DiagonalMechanism, FiniteMechanism, Witness, is_adp, is_prdp

__all__ = [
    "FiniteMechanism",
    "DiagonalMechanism",
    "DPCheck",
    "Witness",
    "is_adp",
    "is_prdp",
    "adp_to_prdp",
    "min_eps_hat",
    "Counterexample",
    "HypothesisCheck",
    "lemma_3_1",
    "lemma_3_1_conditions",
    "theorem_3_2",
    "theorem_3_3",
    "corollary_3_4",
]
