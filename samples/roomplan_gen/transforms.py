"""Transforms: 16 floats, column-major (simd_float4x4), metres, +Y up."""

import math

import numpy as np

from .float32 import f32, fmt64


def frame(x_axis, y_axis, origin, w=1.0):
    x = np.array(x_axis, dtype=float)
    y = np.array(y_axis, dtype=float)
    z = np.cross(x, y)
    cols = [list(x) + [0], list(y) + [0], list(z) + [0], list(origin) + [w]]
    return [f32(v) for c in cols for v in c]


def yaw_frame(theta, origin):
    """Rotation about +Y by theta (radians), local X = (cos, 0, -sin)."""
    return frame((math.cos(theta), 0, -math.sin(theta)), (0, 1, 0), origin)


def usd_matrix(m):
    rows = [m[i * 4:(i + 1) * 4] for i in range(4)]
    return "( " + ", ".join("(" + ", ".join(fmt64(v) for v in r) + ")" for r in rows) + " )"


def transform_point(m, p):
    x, y, z = p
    return (m[0] * x + m[4] * y + m[8] * z + m[12], m[1] * x + m[5] * y + m[9] * z + m[13],
            m[2] * x + m[6] * y + m[10] * z + m[14])
