"""The room description shared by the JSON and the USD: walls, the doors, windows and openings they
host, floors, objects and sections, with identifiers from a seeded generator."""

import base64
import math
import random
import uuid

import numpy as np

from .float32 import F32
from .swiftjson import swift_json
from .transforms import frame, yaw_frame

FLOOR_Y = -1.25  # floor height in ARKit world space (metres): the device starts above the floor


class Rng:
    def __init__(self, seed):
        self.r = random.Random(seed)

    def uuid(self):
        return str(uuid.UUID(bytes=bytes(self.r.getrandbits(8) for _ in range(16)), version=4)).upper()

    def bytes(self, n):
        return bytes(self.r.getrandbits(8) for _ in range(n))


class Room:
    def __init__(self, name, seed):
        self.name = name
        self.rng = Rng(seed)
        self.walls, self.doors, self.windows, self.openings, self.floors, self.objects = [], [], [], [], [], []
        self.sections = []
        self.reference_origin = None

    def add_walls(self, outline, height, confidences):
        """Walls along a closed plan outline [(x, z), ...]; local Z faces into the room."""
        cx = sum(p[0] for p in outline) / len(outline)
        cz = sum(p[1] for p in outline) / len(outline)
        for i, a in enumerate(outline):
            b = outline[(i + 1) % len(outline)]
            mid = ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)
            d = (b[0] - a[0], b[1] - a[1])
            length = math.hypot(*d)
            x = (d[0] / length, 0, d[1] / length)
            z = np.cross(x, (0, 1, 0))
            if z[0] * (cx - mid[0]) + z[2] * (cz - mid[1]) < 0:  # face the room
                x = (-x[0], 0, -x[2])
            self.walls.append(dict(
                kind="wall", id=self.rng.uuid(), dims=(length, height, 0), confidence=confidences[i],
                transform=frame(x, (0, 1, 0), (mid[0], FLOOR_Y + height / 2, mid[1])), hosted=[]))

    def add_hosted(self, kind, wall_index, offset, width, height, sill=0.0, is_open=None, confidence="high"):
        wall = self.walls[wall_index]
        t = wall["transform"]
        x = (t[0], t[1], t[2])
        c = (t[12] + x[0] * offset, FLOOR_Y + sill + height / 2, t[14] + x[2] * offset)
        e = dict(kind=kind, id=self.rng.uuid(), dims=(width, height, 0), confidence=confidence,
                 transform=frame(x, (0, 1, 0), c), parent=wall["id"], is_open=is_open)
        {"door": self.doors, "window": self.windows, "opening": self.openings}[kind].append(e)
        wall["hosted"].append(e)
        return e

    def add_floor(self, outline, confidence="high"):
        xs = [p[0] for p in outline]
        zs = [p[1] for p in outline]
        ox, oz = (min(xs) + max(xs)) / 2, (min(zs) + max(zs)) / 2
        # Local X = world +X, local Y = world -Z, local Z = world +Y.
        t = frame((1, 0, 0), (0, 0, -1), (ox, FLOOR_Y, oz))
        corners = [(p[0] - ox, -(p[1] - oz), 1.1920929e-07) for p in outline]
        self.floors.append(dict(kind="floor", id=self.rng.uuid(), dims=(max(xs) - min(xs), max(zs) - min(zs), 0),
                                confidence=confidence, transform=t, corners=corners))

    def add_object(self, category, center, size, yaw=0.0, parent=None, attributes=None, confidence="high"):
        w, h, d = size
        e = dict(kind="object", category=category, id=self.rng.uuid(), dims=size, confidence=confidence,
                 transform=yaw_frame(yaw, (center[0], FLOOR_Y + h / 2, center[1])),
                 parent=parent["id"] if parent else None, attributes=attributes or {})
        self.objects.append(e)
        return e

    # -----------------------------------------------------------------------------------------
    def json(self, ios16=False):
        def enum(name, payload=None):
            return {name: payload or {}}

        def surface(e, category):
            d = {
                "category": category,
                "completedEdges": [],
                "confidence": enum(e["confidence"]),
                "curve": None,
                "dimensions": [F32(v) for v in e["dims"]],
                "identifier": e["id"],
                "transform": [F32(v) for v in e["transform"]],
            }
            if not ios16:
                d["parentIdentifier"] = e.get("parent")
                d["polygonCorners"] = [[F32(c) for c in p] for p in e.get("corners", [])]
                d["story"] = 0
            return d

        def door_category(e):
            return enum("door", {"isOpen": bool(e["is_open"])})

        room = {
            "coreModel": base64.b64encode(self.rng.bytes(1536)).decode(),
            "walls": [surface(w, enum("wall")) for w in self.walls],
            "doors": [surface(d, door_category(d)) for d in self.doors],
            "windows": [surface(w, enum("window")) for w in self.windows],
            "openings": [surface(o, enum("opening")) for o in self.openings],
            "objects": [],
        }
        for o in self.objects:
            d = {
                "category": enum(o["category"]),
                "confidence": enum(o["confidence"]),
                "dimensions": [F32(v) for v in o["dims"]],
                "identifier": o["id"],
                "transform": [F32(v) for v in o["transform"]],
            }
            if not ios16:
                d["attributes"] = o["attributes"]
                d["parentIdentifier"] = o["parent"]
                d["story"] = 0
            room["objects"].append(d)
        if not ios16:
            room["floors"] = [surface(f, enum("floor")) for f in self.floors]
            room["sections"] = [{"center": [F32(c) for c in s["center"]], "label": s["label"], "story": 0}
                                for s in self.sections]
            room["story"] = 0
            room["version"] = 2
            if self.reference_origin is not None:
                room["referenceOriginTransform"] = [F32(v) for v in self.reference_origin]
        return swift_json(room).encode()
