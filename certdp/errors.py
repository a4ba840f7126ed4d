"""Exceptions raised by certdp and the time budget (InputError, PrecisionError, budget, check_budget).

The code lives in :mod:`certdp.verifier.errors`, part of the checker's own kernel (issue 36:
the checker imports only its own modules, so all that a certificate's reader
must trust is in ``certdp/verifier/``).  This name is the same module object.
"""

import sys as _sys

from certdp.verifier import errors as _owner

_sys.modules[__name__] = _owner
