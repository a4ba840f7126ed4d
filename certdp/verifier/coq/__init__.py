"""The Coq kernel of the certificate checker (``certdp verify FILE --kernel coq``).

A certificate over closed-form mechanisms is translated into a Coq proof script
(:mod:`certdp.verifier.coq.translate`) whose last theorem states the claim about
the library's definitions (``proofs/coq/CertDP.v``: δ_μ, the catalog profiles,
the monotone cell lemma); ``coqc`` checks it (:mod:`certdp.verifier.coq.run`),
using the Interval library for every number and Coquelicot for the analysis.
What it trusts: ``proofs/coq/README.md``.  No sympy, no search code.
"""
