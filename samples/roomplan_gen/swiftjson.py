"""Swift JSONEncoder style: sorted keys, 2-space indent, "key" : value, empty containers on 3 lines,
"/" escaped, no final newline."""

import json

from .float32 import F32, fmt32


def jstr(s):
    return json.dumps(s, ensure_ascii=False).replace("/", "\\/")


def swift_json(v, indent=0):
    pad = "  " * indent
    if isinstance(v, dict):
        if not v:
            return "{\n\n" + pad + "}"
        items = [pad + "  " + jstr(k) + " : " + swift_json(v[k], indent + 1) for k in sorted(v)]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(v, list):
        if not v:
            return "[\n\n" + pad + "]"
        return "[\n" + ",\n".join(pad + "  " + swift_json(x, indent + 1) for x in v) + "\n" + pad + "]"
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, F32):
        return fmt32(v)
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return fmt32(v)
    if isinstance(v, str):
        return jstr(v)
    raise TypeError(type(v))
