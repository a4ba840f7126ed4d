"""Certified privacy accountants (see :mod:`certdp.analyses.accountants.base`)."""
