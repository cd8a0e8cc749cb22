"""The compiled kernel of cardproof's exact poker-squares par.

``_kernel`` (C, see ``_kernel.c``) anneals a grid and runs the branch-and-bound that
proves a deal's best score; :mod:`cardproof.solvers.hindsight` drives it and checks every
grid it returns with the rules engine. The service installs it (``make``); without it the
solver falls back to hill-climbing and the CP-SAT relaxation.
"""

from cardproof_par import _kernel

__all__ = ["_kernel"]
