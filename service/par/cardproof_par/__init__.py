"""The compiled kernels of cardproof's service.

``_kernel`` (C, see ``_kernel.c``) anneals a grid and runs the branch-and-bound that
proves a deal's best score; :mod:`cardproof.solvers.hindsight` drives it and checks every
grid it returns with the rules engine. Without it the solver falls back to
hill-climbing and the CP-SAT relaxation.

``_deal`` (C, see ``_deal.c``, on OpenSSL's libcrypto) is the deal's shuffle, a fast path
:func:`cardproof.deal.shuffle` takes when it is installed. It is imported where it is
used, never here: a build without OpenSSL's headers skips it.

The service installs both (``make``).
"""

from cardproof_par import _kernel

__all__ = ["_kernel"]
