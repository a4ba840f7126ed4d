"""certdp — certified differential-privacy analysis.

Every number certdp reports is an :class:`~certdp.numerics.Enclosure`: exact
bounds that provably contain the true value (computed in python-flint ball
arithmetic).  See the README and ``docs/architecture.md``.

References cited in the docstrings by authors and year (theorem numbers
follow the versions of the papers the project was built from):

* Liu et al. 2022 — Y. Liu, K. Sun, B. Jiang, L. Kong, *Identification,
  amplification and measurement: a bridge to Gaussian differential privacy*,
  NeurIPS 2022 (and its later version).
* Zhu, Dong & Wang 2022 — Y. Zhu, J. Dong, Y.-X. Wang, *Optimal accounting of
  differential privacy via characteristic function*, AISTATS 2022.
* Gomez et al. 2025 — J. F. Gomez, B. Kulynych, G. Kaissis, F. P. Calmon,
  J. Hayes, B. Balle, A. Honkela, *Gaussian DP for reporting differential
  privacy guarantees in machine learning*, 2025.
* Guingona et al. 2023 — V. Guingona, A. Kolesnikov, J. Nierwinski,
  A. Schweitzer, *Comparing approximate and probabilistic differential
  privacy parameters*, 2023.
* Dong, Roth & Su 2022 — *Gaussian differential privacy*, JRSS-B 2022.
* Balle, Barthe & Gaboardi 2018 — *Privacy amplification by subsampling:
  tight analyses via couplings and divergences*, NeurIPS 2018.
* Doroshenko et al. 2022 — *Connect the dots: tighter discrete
  approximations of privacy loss distributions*, PETS 2022.
"""

# the exceptions' home is the checker's kernel (certdp.errors names the same module)
from certdp.verifier.errors import BudgetExceeded, CertdpError, InputError, PrecisionError


#: The public API (:mod:`certdp.api`), loaded on first use so that ``import
#: certdp`` stays light: one vocabulary for everything the CLI can do.
API = ("mechanism", "delta", "epsilon", "gdp", "gdpt", "tradeoff", "identify", "dpsgd", "calibrate", "rdp", "rdp_epsilon",
       "rdp_delta", "zcdp", "delta_mu", "mu_gdp", "eps_gdp", "tradeoff_mu", "adp_to_prdp", "verify", "mu_pure_dp",
       "phi", "pld", "switch_point", "is_adp", "is_prdp", "counterexample")
#: Earlier names, kept importable: the same functions under the kernel's names.
_KERNEL = ("Phi", "Phi_inv", "log_Phi", "mills_ratio", "mu_from_eps_delta", "eps_from_mu_delta", "mu_from_pure_dp")


def __getattr__(name: str):  # noqa: ANN202 - PEP 562 lazy attributes
    if name == "__version__":  # read from the package metadata on first use (the checker never asks)
        from certdp.meta import VERSION  # noqa: PLC0415

        return VERSION
    if name in API:
        from certdp import api  # noqa: PLC0415

        return getattr(api, name)
    if name in _KERNEL or name == "Enclosure":  # loaded on first use: the checker needs none of it
        from certdp import numerics  # noqa: PLC0415

        return getattr(numerics, name)
    raise AttributeError(f"module 'certdp' has no attribute {name!r}")


__all__ = ["__version__", "CertdpError", "InputError", "PrecisionError", "BudgetExceeded", "Enclosure", *API]
