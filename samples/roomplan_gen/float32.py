"""Numbers: everything is Float32, as in RoomPlan."""

import math

import numpy as np


def f32(x):
    return float(np.float32(x))


def fmt32(x):
    """Shortest Float32 text as Swift prints it (1 → "1", 1e-05 → "1e-05")."""
    v = np.float32(x)
    if v == 0:
        return "-0" if math.copysign(1.0, float(v)) < 0 else "0"
    a = abs(float(v))
    if 1e-4 <= a < 2 ** 24:
        return np.format_float_positional(v, unique=True, trim="-")
    return np.format_float_scientific(v, unique=True, trim="-", exp_digits=2)


def fmt64(x):
    """A Float32 widened to double, as RoomPlan's USDA writes matrices and scales."""
    v = f32(x)
    if v == int(v) and abs(v) < 1e15:
        return str(int(v))
    return repr(v)


class F32(float):
    """A JSON number written as Float32."""
