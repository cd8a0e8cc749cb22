"""``python -m cardproof.cli``: the ``cardproof`` command."""

import sys

from cardproof.cli import main

sys.exit(main())
