"""Settings shared by the parent process and the workers: crate versions, file names, markers."""

from __future__ import annotations

VERSION_ENV = "USD_WRITE_NEW_USDC_FILES_AS_VERSION"
CRATE_VERSIONS = ("0.4.0", "0.5.0", "0.6.0", "0.7.0", "0.8.0", "default")
RESULT_MARKER = "GEN-DIFFERENTIAL-RESULT "
# Every NESTED_EVERY-th case is also written as a package inside a package (`case_NNN.nested.usdz`).
NESTED_EVERY = 5

# Small texture files shared by all cases; asset-valued attributes point at them with anchored paths
# ("./textures/x.png"), which the usdz packager keeps unchanged (search-relative or missing paths would
# be rewritten or dropped by the packager, and the three formats would then differ).
TEXTURE_NAMES = ("albedo.png", "normal.png", "roughness.png")
