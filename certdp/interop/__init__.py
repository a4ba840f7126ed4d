"""Interoperability with the established accountants' interfaces.

* :mod:`certdp.interop.dp_accounting` — convert a dp_accounting ``DpEvent`` to
  certdp mechanism specs, and :class:`~certdp.interop.dp_accounting.CertifiedAccountant`,
  a drop-in ``PrivacyAccountant`` whose answers are certified upper bounds.
* :mod:`certdp.interop.opacus` — ``CertdpAccountant``, a certified opacus
  ``IAccountant`` (registered as ``"certdp-pld"``), and ``StepAccountant``, the same
  accountant without torch.

Install the optional extra ``interop`` for the dp_accounting classes and ``opacus``
for opacus.
"""
