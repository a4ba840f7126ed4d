"""Certified privacy accountants (see :mod:`certdp.accountants.base`)."""
