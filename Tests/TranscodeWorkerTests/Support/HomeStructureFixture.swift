import Foundation
import JSONCore
import SceneModel

@testable import Layering
import TestSupport

/// The six real rooms of `../shared/homes/apple_myhome`, and a `CapturedStructure` made from them
/// as `roomplan-format.md` §3 describes a real one: the top-level lists are every room's elements
/// once, "snapped" (moved 2 cm along X and walls 2.7 cm narrower, so a room's copy differs from
/// the merged one); one merged top-level floor (a rectangle around every room floor); one top-level
/// section per room; `rooms[]` holds each room's file exactly as saved, with its base64 `coreModel`
/// (four of the six over 64 KiB); no top-level `coreModel` or `story`; `version` 2.
enum HomeStructureFixture {
    /// Room folders in input order.
    static let roomNames = ["Bathroom1", "Bedroom2", "Bedroom4", "Hallway2", "Kitchen", "Livingroom"]
    static let snapShift: Float = 0.02
    static let wallSnap: Float = -0.027
    static let mergedFloorID = "00000000-0000-4000-8000-00000000F100"

    static var present: Bool {
        FileManager.default.fileExists(atPath: TestPaths.sharedHome.appendingPathComponent("Kitchen/capturedRoom.json").path)
    }

    static func path(_ room: String, _ file: String) -> String {
        TestPaths.sharedHome.appendingPathComponent(room).appendingPathComponent(file).path
    }

    static func json(_ room: String) throws -> [UInt8] {
        guard let d = FileManager.default.contents(atPath: path(room, "capturedRoom.json")) else {
            throw MissingTestFile(room)
        }
        return [UInt8](d)
    }

    /// The structure's bytes.
    static func structure() throws -> [UInt8] {
        var lists: [String: [JSONValue]] = [:]
        var raw: [[UInt8]] = []
        var corners: [SIMD2<Double>] = []
        var floorY = 0.0
        for name in roomNames {
            let bytes = try json(name)
            raw.append(bytes)
            let tree = try JSONReader.parse(bytes, limits: .init(maxDepth: 32, maxValues: 1 << 20, maxStringBytes: 1 << 16,
                                                                 maxNumberLength: 64), skipKeys: ["coreModel"])
            for key in ["walls", "doors", "windows", "openings", "objects", "sections"] {
                for item in tree.member(key)?.arrayValue ?? [] {
                    lists[key, default: []].append(key == "sections" ? item.jsonValue : snapped(item, wall: key == "walls"))
                }
            }
            let room = try CapturedRoomDecoder.decode(bytes).0
            for f in room.floors { corners += StructureRooms.floorPolygon(f) ?? [] }
            floorY = Double(room.floors.first?.transform[13] ?? 0)
        }
        let lo = corners.reduce(corners[0]) { pointwiseMin($0, $1) }, hi = corners.reduce(corners[0]) { pointwiseMax($0, $1) }
        // Local XY → world (x, floorY, −y): columns (1,0,0), (0,0,−1), (0,1,0).
        let floor: JSONValue = .object([
            "category": .object(["floor": .object([:])]), "confidence": .object(["high": .object([:])]),
            "identifier": .string(mergedFloorID), "story": .int(0), "completedEdges": .array([]),
            "dimensions": .array([.double(hi.x - lo.x), .double(hi.y - lo.y), .int(0)]),
            "polygonCorners": .array([SIMD2(lo.x, -hi.y), SIMD2(hi.x, -hi.y), SIMD2(hi.x, -lo.y), SIMD2(lo.x, -lo.y)].map {
                .array([.double($0.x), .double($0.y), .int(0)])
            }),
            "transform": .array([1, 0, 0, 0, 0, 0, -1, 0, 0, 1, 0, 0, 0, floorY, 0, 1].map { .double($0) }),
        ])
        var top: [String: JSONValue] = ["version": .int(2), "floors": .array([floor])]
        for (k, v) in lists { top[k] = .array(v) }
        // Splice the rooms in as saved (their coreModel strings are longer than the writer's input allows to matter).
        var out = JSONWriter.bytes(.object(top))
        out.removeLast()  // }
        out += Array(",\"rooms\":[".utf8)
        for (i, r) in raw.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            out += r
        }
        out += Array("]}".utf8)
        return out
    }

    /// The merged copy of an element: moved `snapShift` along world X, a wall `wallSnap` narrower.
    static func snapped(_ item: ParsedJSON, wall: Bool) -> JSONValue {
        guard case .object(var o) = item.jsonValue else { return item.jsonValue }
        o["coreModel"] = nil
        if case .array(var t)? = o["transform"], t.count == 16, let x = number(t[12]) {
            t[12] = .double(Double(Float(x) + snapShift))
            o["transform"] = .array(t)
        }
        if wall, case .array(var d)? = o["dimensions"], let w = number(d[0]) {
            d[0] = .double(Double(Float(w) + wallSnap))
            o["dimensions"] = .array(d)
        }
        return .object(o)
    }

    static func number(_ v: JSONValue) -> Double? {
        switch v {
        case .double(let d): return d
        case .int(let i): return Double(i)
        case .float(let f): return Double(f)
        default: return nil
        }
    }
}
