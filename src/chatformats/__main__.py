"""``python -m chatformats``: the ``chatformats`` command."""

import sys

from .cli import main

if __name__ == "__main__":  # guarded: worker processes may import this module
    sys.exit(main())
