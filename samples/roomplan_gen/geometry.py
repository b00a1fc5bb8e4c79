"""Mesh geometry as RoomPlan writes it: boxes with per-vertex normals and the floor prism."""

import math


def box_mesh(x0, x1, y0, y1, z0, z1):
    """RoomPlan's mesh box: 24 vertices (4 per face, per-vertex normals), 12 triangles."""
    faces = [
        ((0, 0, -1), [(x0, y0, z0), (x0, y1, z0), (x1, y1, z0), (x1, y0, z0)]),
        ((0, 0, 1), [(x0, y0, z1), (x1, y0, z1), (x1, y1, z1), (x0, y1, z1)]),
        ((0, 1, 0), [(x0, y1, z1), (x1, y1, z1), (x1, y1, z0), (x0, y1, z0)]),
        ((0, -1, 0), [(x1, y0, z0), (x1, y0, z1), (x0, y0, z1), (x0, y0, z0)]),
        ((1, 0, 0), [(x1, y0, z1), (x1, y0, z0), (x1, y1, z0), (x1, y1, z1)]),
        ((-1, 0, 0), [(x0, y0, z0), (x0, y0, z1), (x0, y1, z1), (x0, y1, z0)]),
    ]
    points, normals, indices = [], [], []
    for n, quad in faces:
        b = len(points)
        points += quad
        normals += [n] * 4
        indices += [b, b + 1, b + 2, b, b + 2, b + 3]
    return points, [3] * 12, indices, normals


def ear_clip(poly):
    """Triangles (counter-clockwise) of a simple polygon [(x, y), ...]."""
    idx = list(range(len(poly)))
    area = sum(poly[i][0] * poly[(i + 1) % len(poly)][1] - poly[(i + 1) % len(poly)][0] * poly[i][1]
               for i in idx)
    if area < 0:
        idx.reverse()

    def cross(a, b, c):
        return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])

    tris = []
    guard = 0
    while len(idx) > 3 and guard < 10000:
        guard += 1
        for k in range(len(idx)):
            a, b, c = idx[k - 1], idx[k], idx[(k + 1) % len(idx)]
            if cross(poly[a], poly[b], poly[c]) <= 0:
                continue
            if any(cross(poly[a], poly[b], poly[p]) >= 0 and cross(poly[b], poly[c], poly[p]) >= 0
                   and cross(poly[c], poly[a], poly[p]) >= 0 for p in idx if p not in (a, b, c)):
                continue
            tris.append((a, b, c))
            idx.pop(k)
            break
    tris.append(tuple(idx))
    return tris


def prism_mesh(corners, thickness):
    """The floor prism: polygon top at z = 0 (normal +Z), bottom at -thickness, sides."""
    poly = [(c[0], c[1]) for c in corners]
    n = len(poly)
    tris = ear_clip(poly)
    points = [(x, y, 0) for x, y in poly] + [(x, y, -thickness) for x, y in poly]
    normals = [(0, 0, 1)] * n + [(0, 0, -1)] * n
    indices = []
    for a, b, c in tris:
        indices += [a, b, c]
    for a, b, c in tris:
        indices += [n + a, n + c, n + b]
    ccw = sum(poly[i][0] * poly[(i + 1) % n][1] - poly[(i + 1) % n][0] * poly[i][1] for i in range(n)) > 0
    for i in range(n):
        p, q = poly[i], poly[(i + 1) % n]
        if not ccw:
            p, q = q, p
        ln = math.hypot(q[0] - p[0], q[1] - p[1])
        nn = ((q[1] - p[1]) / ln, -(q[0] - p[0]) / ln, 0)
        b = len(points)
        points += [(p[0], p[1], 0), (p[0], p[1], -thickness), (q[0], q[1], -thickness), (q[0], q[1], 0)]
        normals += [nn] * 4
        indices += [b, b + 1, b + 2, b, b + 2, b + 3]
    return points, [3] * (len(indices) // 3), indices, normals
