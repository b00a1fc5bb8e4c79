import Foundation
import SceneModel
import Testing
import USDParse

@testable import Layering
import TestSupport

/// Locations of the shared corpus (never copied into the repository) and the project's samples.
enum TestFiles {
    static let packageRoot: URL = TestPaths.packageRoot

    /// `../shared/corpus/roomplan`, when present beside the checkout.
    static let corpus: String? = {
        let p = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus/roomplan").path
        return FileManager.default.fileExists(atPath: p + "/usdz") ? p : nil
    }()

    static let samples: String = packageRoot.appendingPathComponent("samples/roomplan").path

    static var samplesPresent: Bool { FileManager.default.fileExists(atPath: samples + "/index.json") }

    static func bytes(_ path: String) throws -> [UInt8] {
        guard let d = FileManager.default.contents(atPath: path) else {
            throw MissingTestFile(path)
        }
        return [UInt8](d)
    }

    static func corpusUSDZ() -> [String] {
        guard let c = corpus else { return [] }
        let files = (try? FileManager.default.contentsOfDirectory(atPath: c + "/usdz")) ?? []
        return files.filter { $0.hasSuffix(".usdz") }.sorted().map { c + "/usdz/" + $0 }
    }

    static func corpusJSON() -> [String] {
        guard let c = corpus else { return [] }
        let files = (try? FileManager.default.contentsOfDirectory(atPath: c + "/json")) ?? []
        return files.filter { $0.hasSuffix(".json") }.sorted().map { c + "/json/" + $0 }
    }

    /// Sample pairs listed in `samples/roomplan/index.json`: name → (usdz path, json path).
    static func samplePairs() throws -> [(name: String, usdz: String, json: String)] {
        let data = try bytes(samples + "/index.json")
        let list = try JSONSerialization.jsonObject(with: Data(data)) as? [[String: Any]] ?? []
        return list.compactMap { e in
            guard let n = e["name"] as? String, let u = e["usdz"] as? String, let j = e["json"] as? String else { return nil }
            return (n, samples + "/" + u, samples + "/" + j)
        }
    }

    static func scene(_ path: String) throws -> Scene {
        try USDParser.parseScene(try bytes(path), name: (path as NSString).lastPathComponent).scene
    }
}

/// Checks every part of the node layout contract and the scene's validity.
func checkLayoutContract(_ l: LayeredScene, sourceLocation: SourceLocation = #_sourceLocation) {
    let issues = SceneValidator.validate(l.scene).filter { $0.severity == .error }
    #expect(issues.isEmpty, "validator errors: \(issues)", sourceLocation: sourceLocation)
    let world = l.scene.worldTransforms()
    var seenIDs = Set<String>()
    var previousLayerKey: (Int, String)?
    for layer in l.layers {
        let node = l.scene.nodes[layer.node.rawValue]
        #expect(node.parent == nil && node.name == NodeName.layer(layer.id) && node.localTransform.isIdentity,
                sourceLocation: sourceLocation)
        let kind = LayerKind.canonicalOrder.firstIndex(of: layer.kind) ?? 99
        if let p = previousLayerKey { #expect(p < (kind, layer.id.rawValue), "layer order", sourceLocation: sourceLocation) }
        previousLayerKey = (kind, layer.id.rawValue)
        var previous: String?
        for ei in layer.elements {
            let e = l.elements[ei]
            #expect(e.layer == layer.id, sourceLocation: sourceLocation)
            let en = l.scene.nodes[e.node.rawValue]
            #expect(en.parent == layer.node && en.name == e.identifier, sourceLocation: sourceLocation)
            #expect(en.localTransform == e.transform, sourceLocation: sourceLocation)
            if let p = previous { #expect(p < e.identifier, "element order in \(layer.id)", sourceLocation: sourceLocation) }
            previous = e.identifier
            #expect(seenIDs.insert(e.identifier).inserted, "duplicate \(e.identifier)", sourceLocation: sourceLocation)
            #expect(world[e.node.rawValue] == e.transform, sourceLocation: sourceLocation)
        }
    }
    #expect(l.layers.reduce(0) { $0 + $1.elements.count } == l.elements.count, sourceLocation: sourceLocation)
    #expect(l.scene.roots == l.layers.map(\.node), sourceLocation: sourceLocation)
}

/// The meshes drawn below an element's node, with their world transforms.
func meshesBelow(_ l: LayeredScene, element: RoomElement) -> [(mesh: Mesh, world: Matrix4)] {
    let children = l.scene.childrenByNode()
    let world = l.scene.worldTransforms()
    var out: [(Mesh, Matrix4)] = []
    var stack = [element.node.rawValue]
    while let i = stack.popLast() {
        if let m = l.scene.nodes[i].mesh { out.append((l.scene.meshes[m.rawValue], world[i])) }
        stack += children[i].map(\.rawValue)
    }
    return out
}

func near(_ a: Double, _ b: Double, _ tol: Double = 1e-6) -> Bool { abs(a - b) <= tol }

/// Writes small CapturedRoom JSON documents for tests (RoomPlan's shape, values chosen by the test).
struct TestRoom {
    struct Wall {
        var a: SIMD2<Double>
        var b: SIMD2<Double>
        var height: Double = 2.5
        var confidence = "high"
    }

    struct Object {
        var category: String
        var center: SIMD3<Double>
        var size: SIMD3<Double>
        var parent: String?
    }

    var walls: [Wall] = []
    var objects: [Object] = []
    /// Floor outlines in plan (x, z).
    var floors: [[SIMD2<Double>]] = []
    var referenceOrigin: [Double]?
    var floorY = 0.0

    /// Walls around a closed plan outline.
    static func outline(_ pts: [SIMD2<Double>], confidences: [String]? = nil, height: Double = 2.5) -> TestRoom {
        var r = TestRoom()
        for i in pts.indices {
            r.walls.append(Wall(a: pts[i], b: pts[(i + 1) % pts.count], height: height,
                                confidence: confidences?[i] ?? "high"))
        }
        return r
    }

    static func id(_ kind: String, _ i: Int) -> String {
        let hex = String(i, radix: 16, uppercase: true)
        let tail = String(repeating: "0", count: max(0, 12 - hex.count)) + hex
        let k: String
        switch kind {
        case "wall": k = "A"
        case "floor": k = "F"
        default: k = "B"
        }
        return "\(k)0000000-0000-4000-8000-\(tail)"
    }

    static func num(_ v: Double) -> String { "\(Float(v))" }

    static func array(_ v: [Double]) -> String { "[" + v.map(num).joined(separator: ", ") + "]" }

    static func wallTransform(_ w: Wall, floorY: Double) -> [Double] {
        let d = w.b - w.a
        let len = (d * d).sum().squareRoot()
        let x = SIMD3(d.x / len, 0, d.y / len)
        let z = SIMD3(x.y * 0 - x.z * 1, x.z * 0 - x.x * 0, x.x * 1 - x.y * 0)  // x × (0, 1, 0)
        let mid = (w.a + w.b) / 2
        return [x.x, x.y, x.z, 0, 0, 1, 0, 0, z.x, z.y, z.z, 0, mid.x, floorY + w.height / 2, mid.y, 1]
    }

    func json(version: Bool = true) -> [UInt8] {
        var walls: [String] = []
        for (i, w) in self.walls.enumerated() {
            let d = w.b - w.a
            let len = (d * d).sum().squareRoot()
            walls.append("""
            {"category": {"wall": {}}, "completedEdges": [], "confidence": {"\(w.confidence)": {}}, "curve": null,
             "dimensions": \(Self.array([len, w.height, 0])), "identifier": "\(Self.id("wall", i))",
             "parentIdentifier": null, "polygonCorners": [], "story": 0,
             "transform": \(Self.array(Self.wallTransform(w, floorY: floorY)))}
            """)
        }
        var objects: [String] = []
        for (i, o) in self.objects.enumerated() {
            objects.append("""
            {"attributes": {}, "category": {"\(o.category)": {}}, "confidence": {"high": {}},
             "dimensions": \(Self.array([o.size.x, o.size.y, o.size.z])), "identifier": "\(Self.id("object", i))",
             "parentIdentifier": \(o.parent.map { "\"\($0)\"" } ?? "null"), "story": 0,
             "transform": \(Self.array([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, o.center.x, o.center.y, o.center.z, 1]))}
            """)
        }
        var floors: [String] = []
        for (i, f) in self.floors.enumerated() {
            let xs = f.map(\.x), zs = f.map(\.y)
            let ox = (xs.min()! + xs.max()!) / 2, oz = (zs.min()! + zs.max()!) / 2
            let corners = f.map { Self.array([$0.x - ox, -($0.y - oz), 0]) }.joined(separator: ", ")
            floors.append("""
            {"category": {"floor": {}}, "completedEdges": [], "confidence": {"high": {}}, "curve": null,
             "dimensions": \(Self.array([xs.max()! - xs.min()!, zs.max()! - zs.min()!, 0])),
             "identifier": "\(Self.id("floor", i))", "parentIdentifier": null, "polygonCorners": [\(corners)],
             "story": 0, "transform": \(Self.array([1, 0, 0, 0, 0, 0, -1, 0, 0, 1, 0, 0, ox, floorY, oz, 1]))}
            """)
        }
        var top = [
            "\"coreModel\": \"AAAA\"", "\"doors\": []", "\"windows\": []", "\"openings\": []",
            "\"walls\": [\(walls.joined(separator: ",\n"))]", "\"objects\": [\(objects.joined(separator: ",\n"))]",
            "\"floors\": [\(floors.joined(separator: ",\n"))]",
        ]
        if version { top += ["\"version\": 2", "\"story\": 0", "\"sections\": []"] }
        if let r = referenceOrigin { top.append("\"referenceOriginTransform\": \(Self.array(r))") }
        return Array(("{" + top.joined(separator: ",\n") + "}").utf8)
    }
}

extension Dictionary {
    /// The same values under transformed keys (the keys must stay distinct).
    func mapKeys<K: Hashable>(_ transform: (Key) -> K) -> [K: Value] {
        Dictionary<K, Value>(uniqueKeysWithValues: map { (transform($0.key), $0.value) })
    }
}
