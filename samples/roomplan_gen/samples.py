"""The four samples: each function returns the room, its export style and the options for
`export_usdz`."""

import math

from .float32 import f32
from .room import FLOOR_Y, Room
from .transforms import frame, yaw_frame


def dining_attrs():
    return {"ChairArmType": "missing", "ChairBackType": "existing", "ChairLegType": "four", "ChairType": "dining"}


def parametric_two_sections():
    r = Room("parametric_two_sections", seed=17)
    # 6 × 5 m with a 1 × 1 m notch in the south wall: 8 corners, area 29 m², perimeter 24 m.
    outline = [(-3, -2.5), (3, -2.5), (3, 2.5), (0.5, 2.5), (0.5, 1.5), (-0.5, 1.5), (-0.5, 2.5), (-3, 2.5)]
    r.add_walls(outline, 2.5, ["high"] * 8)
    r.add_hosted("door", 0, -1.6, 0.9, 2.05, is_open=True)
    r.add_hosted("door", 0, 1.7, 0.8, 2.05, is_open=False, confidence="medium")
    r.add_hosted("window", 0, 0.1, 1.2, 1.1, sill=0.9)
    r.add_hosted("window", 1, 0.0, 1.4, 1.2, sill=0.8)
    r.add_floor(outline)
    table = r.add_object("table", (-1.5, -0.5), (1.6, 0.75, 0.9), attributes={"TableShapeType": "rectangular",
                                                                               "TableType": "dining"})
    for dx, dz, yaw in [(-0.45, -0.75, 0.0), (0.45, -0.75, 0.0), (-0.45, 0.75, math.pi), (0.45, 0.75, math.pi)]:
        r.add_object("chair", (-1.5 + dx, -0.5 + dz), (0.45, 0.9, 0.5), yaw=yaw, parent=table,
                     attributes=dining_attrs(), confidence="medium")
    r.add_object("sofa", (1.8, 1.6), (2.0, 0.85, 0.9), yaw=math.pi, attributes={"SofaType": "rectangular"})
    r.add_object("storage", (2.6, -1.5), (0.5, 1.8, 0.9), yaw=-math.pi / 2, attributes={"StorageType": "cabinet"})
    r.add_object("television", (1.8, -2.3), (1.2, 0.7, 0.1))
    r.sections = [dict(label="diningRoom", center=(-1.5, FLOOR_Y, 0.0)), dict(label="livingRoom", center=(1.5, FLOOR_Y, 0.0))]
    r.reference_origin = yaw_frame(0.3, (0.25, 0.1, -0.4))
    return r, "parametric", {}


def mesh_opening_unmatched():
    r = Room("mesh_opening_unmatched", seed=23)
    outline = [(-2, -1.5), (2, -1.5), (2, 1.5), (-2, 1.5)]  # 4 × 3 m
    r.add_walls(outline, 2.4, ["high", "high", "medium", "low"])
    r.add_hosted("door", 1, 0.4, 0.85, 2.0, is_open=True)
    r.add_hosted("window", 2, 0.0, 1.5, 1.1, sill=0.9)
    opening = r.add_hosted("opening", 3, 0.0, 1.2, 2.1)
    r.add_floor(outline)
    r.add_object("bed", (-0.6, 0.3), (1.6, 0.55, 2.0), yaw=math.pi / 2)
    r.add_object("storage", (1.6, -1.2), (0.6, 0.8, 0.45), attributes={"StorageType": "shelf"})
    r.add_object("chair", (1.4, 0.9), (0.55, 1.003, 0.6), attributes={"ChairType": "swivel"}, confidence="low")
    r.sections = [dict(label="bedroom", center=(0.0, FLOOR_Y, 0.0))]
    return r, "mesh", dict(skip_ids={opening["id"]}, wider_walls={r.walls[0]["id"], r.walls[2]["id"]},
                           chair_mesh_height=0.643)


def model_catalog():
    r = Room("model_catalog", seed=31)
    outline = [(-1.75, -1.5), (1.75, -1.5), (1.75, 1.5), (-1.75, 1.5)]  # 3.5 × 3 m
    r.add_walls(outline, 2.6, ["high", "high", "high", "medium"])
    r.add_hosted("door", 2, -0.8, 0.9, 2.1, is_open=False)
    r.add_hosted("window", 0, 0.3, 1.0, 1.2, sill=0.9)
    r.add_floor(outline)
    table = r.add_object("table", (0.2, 0.0), (1.2, 0.75, 0.8), yaw=0.2, attributes={"TableShapeType": "rectangular",
                                                                                      "TableType": "dining"})
    r.add_object("chair", (0.2 + 0.1, -0.6), (0.46, 0.92, 0.5), yaw=0.2, parent=table, attributes=dining_attrs())
    r.add_object("chair", (0.2 - 0.1, 0.6), (0.46, 0.92, 0.5), yaw=0.2 + math.pi, parent=table, attributes=dining_attrs())
    r.sections = [dict(label="diningRoom", center=(0.0, FLOOR_Y, 0.0))]
    r.reference_origin = frame((1, 0, 0), (0, 1, 0), (0, 0, 0))
    return r, "model", {}


def ios16_mesh():
    r = Room("ios16_mesh", seed=16)
    outline = [(-2.5, -2), (2.5, -2), (2.5, 2), (-2.5, 2)]  # 5 × 4 m: area 20 m², perimeter 18 m
    r.add_walls(outline, 2.5, ["high", "high", "high", "medium"])
    r.walls[1]["transform"][15] = f32(0.99999994)  # as some iOS 16 exports write it
    r.add_object("sofa", (0.0, 1.4), (2.1, 0.9, 0.95), yaw=math.pi)
    r.add_object("television", (0.0, -1.9), (1.3, 0.8, 0.12))
    r.add_object("storage", (-2.2, 0.0), (0.45, 1.9, 1.0), yaw=math.pi / 2)
    return r, "ios16", {}
