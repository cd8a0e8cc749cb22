"""Builds ``cardproof_par._kernel`` from C; ``pyproject.toml`` holds the rest.

``make run`` and ``make test`` install it (``pip install ./service/par``); a plain
``pip install cardproof`` (the SDK) never builds it and needs no compiler.
"""

import platform

from setuptools import Extension, setup

FLAGS = ["-O3"]
if platform.machine() in ("x86_64", "AMD64"):
    FLAGS.append("-mpopcnt")  # the search counts bits everywhere: one instruction, not a call

setup(
    ext_modules=[
        Extension("cardproof_par._kernel", ["cardproof_par/_kernel.c"], extra_compile_args=FLAGS)
    ]
)
