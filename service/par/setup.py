"""Builds the service's C extensions; ``pyproject.toml`` holds the rest.

- ``cardproof_par._kernel``: the exact poker-squares par (no library but libc and libm).
- ``cardproof_par._deal``: the deal's shuffle, with SHA-256 from OpenSSL's libcrypto
  (Debian's ``libssl-dev``). It is optional: where it does not build, the deal's pure
  Python path serves, with the same orders.

``make run`` and ``make test`` install them (``pip install ./service/par``); a plain
``pip install cardproof`` (the SDK) never builds them and needs no compiler.
"""

import platform

from setuptools import Extension, setup

FLAGS = ["-O3"]
if platform.machine() in ("x86_64", "AMD64"):
    FLAGS.append("-mpopcnt")  # the search counts bits everywhere: one instruction, not a call

setup(
    ext_modules=[
        Extension("cardproof_par._kernel", ["cardproof_par/_kernel.c"], extra_compile_args=FLAGS),
        Extension(
            "cardproof_par._deal",
            ["cardproof_par/_deal.c"],
            libraries=["crypto"],
            # SHA256_Init and its kin: deprecated in OpenSSL 3, kept, and the fastest way
            # to copy a keyed state (a plain struct) for each block
            extra_compile_args=["-O2", "-Wno-deprecated-declarations"],
            optional=True,
        ),
    ]
)
