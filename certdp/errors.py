"""Exceptions raised by certdp.

Every error a user can trigger with bad input is an :class:`InputError`
(a ``ValueError``) whose message names the offending value.  Failures of the
certified machinery itself (a comparison that stays undecided at the maximum
precision) are :class:`PrecisionError`; certdp never guesses instead.
"""

from __future__ import annotations


class CertdpError(Exception):
    """Base class of all certdp errors."""


class InputError(CertdpError, ValueError):
    """User input is malformed or outside the domain of the mathematics."""


class PrecisionError(CertdpError, ArithmeticError):
    """A certified evaluation could not reach the requested accuracy.

    Raised instead of returning an uncertified or guessed answer.
    """
