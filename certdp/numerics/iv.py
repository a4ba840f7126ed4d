"""The mpmath interval kernel with a rigorous erfc.

The code lives in :mod:`certdp.verifier.iv`, part of the checker's own kernel (issue 36:
the checker imports only its own modules, so all that a certificate's reader
must trust is in ``certdp/verifier/``).  This name is the same module object.
"""

import sys as _sys

from certdp.verifier import iv as _owner

_sys.modules[__name__] = _owner
