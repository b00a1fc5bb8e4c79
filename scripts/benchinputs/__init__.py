"""The benchmark inputs' writers; `scripts/gen-bench-inputs.py` runs them (see its help)."""

import os

os.environ.pop("USD_WRITE_NEW_USDC_FILES_AS_VERSION", None)  # usd-core defaults, read at pxr import
