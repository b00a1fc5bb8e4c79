"""The usd-core (`pxr`) modules, imported only by worker processes.

usd-core reads USD_WRITE_NEW_USDC_FILES_AS_VERSION only when `pxr` is first imported, so a worker
imports it (import_pxr) after the parent has set that variable, and the parent never does. The
modules are bound here as globals by import_pxr(); other modules reach them as attributes of this
module (`pxrlib.Sdf`), never by `from .pxrlib import Sdf`, which would copy the unbound None.
"""

from __future__ import annotations

Sdf = Usd = Gf = Vt = UsdUtils = None  # bound by import_pxr()


def import_pxr() -> None:
    global Sdf, Usd, Gf, Vt, UsdUtils
    from pxr import Gf as _Gf
    from pxr import Sdf as _Sdf
    from pxr import Usd as _Usd
    from pxr import UsdUtils as _UsdUtils
    from pxr import Vt as _Vt

    Sdf, Usd, Gf, Vt, UsdUtils = _Sdf, _Usd, _Gf, _Vt, _UsdUtils
