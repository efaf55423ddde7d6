"""`python -m terminal`: the same as the `translation-agent` script."""

import sys

from .cli import main

sys.exit(main())
