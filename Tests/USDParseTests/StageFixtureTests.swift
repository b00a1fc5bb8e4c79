import SceneModel
import Testing

@testable import USDParse

// A small DSL for building composed stages by hand (the composition engine is not needed to
// exercise the stage-to-scene conversion), plus helpers shared by the Stage*/Xform*/Triangulator*
// test files.

/// Builds a `UsdStage` from prims added in any order; missing ancestors become typeless prims.
final class TestStage {
    private var order: [String] = []
    private var prims: [String: UsdPrim] = [:]
    var metadata: [String: SdfValue] = ["metersPerUnit": .double(1), "upAxis": .token("Y")]

    init() {}

    /// Adds (or edits) the prim at `path`.
    @discardableResult
    func prim(
        _ path: String, _ type: String = "", specifier: SdfSpecifier = .def, _ edit: (inout UsdPrim) -> Void = { _ in }
    )
        -> TestStage
    {
        ensure(SdfPath(path).parent.string)
        if prims[path] == nil {
            order.append(path)
            prims[path] = UsdPrim(path: SdfPath(path), parent: nil, typeName: type, specifier: specifier)
        } else if !type.isEmpty {
            prims[path]!.typeName = type
        }
        edit(&prims[path]!)
        return self
    }

    private func ensure(_ path: String) {
        guard path != "/", !path.isEmpty, prims[path] == nil else { return }
        prim(path)
    }

    /// The stage in pre-order with parent/children indices filled in.
    func build() -> UsdStage {
        var children: [String: [String]] = [:]
        for p in order { children[SdfPath(p).parent.string, default: []].append(p) }
        var out: [UsdPrim] = [UsdPrim(path: .root, parent: nil)]
        func visit(_ path: String, parent: Int) {
            var prim = prims[path]!
            prim.parent = parent
            prim.children = []
            out.append(prim)
            let me = out.count - 1
            out[parent].children.append(me)
            for c in children[path] ?? [] { visit(c, parent: me) }
        }
        for r in children["/"] ?? [] { visit(r, parent: 0) }
        return UsdStage(prims: out, metadata: metadata, layerIdentifiers: ["root.usda"], warnings: [])
    }
}

/// Value constructors.
enum StageValue {
    static func points(_ p: [SIMD3<Float>]) -> SdfValue { .array(.float3, .float(p.flatMap { [$0.x, $0.y, $0.z] })) }
    static func float2s(_ p: [SIMD2<Float>]) -> SdfValue { .array(.float2, .float(p.flatMap { [$0.x, $0.y] })) }
    static func floats(_ a: [Float]) -> SdfValue { .array(.float, .float(a)) }
    static func ints(_ a: [Int32]) -> SdfValue { .array(.int, .int32(a)) }
    static func tokens(_ a: [String]) -> SdfValue { .array(.token, .string(a)) }
    static func double3(_ x: Double, _ y: Double, _ z: Double) -> SdfValue { .scalar(.double3, .double([x, y, z])) }
    static func float3(_ x: Float, _ y: Float, _ z: Float) -> SdfValue { .scalar(.float3, .float([x, y, z])) }
    static func float2(_ x: Float, _ y: Float) -> SdfValue { .scalar(.float2, .float([x, y])) }
    static func float4(_ a: [Float]) -> SdfValue { .scalar(.float4, .float(a)) }
    static func quatf(i: Float, j: Float, k: Float, r: Float) -> SdfValue { .scalar(.quatf, .float([i, j, k, r])) }
    static func matrix(_ rowMajor: [Double]) -> SdfValue { .scalar(.matrix4d, .double(rowMajor)) }
}

extension UsdPrim {
    /// Authors an attribute value (with optional interpolation metadata).
    mutating func set(
        _ name: String, _ typeName: String, _ value: SdfValue, interpolation: String? = nil, uniform: Bool = false,
        layer: String? = "root.usda"
    ) {
        var a =
            attributes[name] ?? UsdAttribute(name: name, typeName: typeName, variability: uniform ? .uniform : .varying)
        a.typeName = typeName
        a.defaultValue = value
        a.valueLayer = layer
        if let interpolation { a.metadata["interpolation"] = .token(interpolation) }
        attributes[name] = a
    }

    /// Authors a connection (`name.connect = <target>`).
    mutating func connect(_ name: String, _ typeName: String = "token", to target: String) {
        var a = attributes[name] ?? UsdAttribute(name: name, typeName: typeName)
        a.connections = [SdfPath(target)]
        attributes[name] = a
    }

    /// Authors a relationship with targets and optional metadata.
    mutating func rel(_ name: String, _ targets: [String], metadata: [String: SdfValue] = [:]) {
        relationships[name] = UsdRelationship(name: name, targets: targets.map(SdfPath.init), metadata: metadata)
    }

    /// Authors xform ops in the given order (`xformOpOrder` + values).
    mutating func xform(_ ops: [(String, SdfValue)], extraOrder: [String] = []) {
        for (entry, value) in ops {
            // `!invert!name` authors `name` only when it is not authored yet.
            let name = entry.hasPrefix("!invert!") ? String(entry.dropFirst("!invert!".count)) : entry
            if name.hasPrefix("!") || (entry != name && attributes[name] != nil) { continue }
            let type: String
            switch value.typed?.type {
            case .double3?: type = "double3"
            case .float3?: type = "float3"
            case .quatf?: type = "quatf"
            case .matrix4d?: type = "matrix4d"
            default: type = "double"
            }
            set(name, type, value)
        }
        set("xformOpOrder", "token[]", StageValue.tokens(extraOrder + ops.map(\.0)), uniform: true)
    }

    /// Authors a polygon mesh.
    mutating func mesh(points: [SIMD3<Float>], counts: [Int32], indices: [Int32]) {
        set("points", "point3f[]", StageValue.points(points))
        set("faceVertexCounts", "int[]", StageValue.ints(counts))
        set("faceVertexIndices", "int[]", StageValue.ints(indices))
    }
}

/// Converts a stage, asserting that the scene validates without errors.
func buildTestScene(
    _ stage: UsdStage, limits: ParseLimits = .default, assets: [String: [UInt8]] = [:],
    loaded: ((String, String) -> Void)? = nil
) throws -> Scene {
    let scene = try SceneBuilder.build(
        stage: stage, sourceFormat: "usda", limits: limits, budget: MemoryBudget(limits: limits),
        loadAsset: { path, layer in
            loaded?(path, layer)
            return assets[path]
        })
    let errors = SceneValidator.validate(scene).filter { $0.severity == .error }
    #expect(errors.isEmpty, "validator errors: \(errors)")
    return scene
}

extension Scene {
    func node(_ name: String) -> Node? { nodes.first { $0.name == name } }
    func nodeIndex(_ name: String) -> Int? { nodes.firstIndex { $0.name == name } }
    /// The mesh of the first node named `name` that draws one.
    func mesh(of name: String) -> Mesh? {
        nodes.first { $0.name == name && $0.mesh != nil }?.mesh.map { meshes[$0.rawValue] }
    }
    func hasWarning(_ code: String) -> Bool { warnings.contains { $0.code == code } }

    /// World-space bounds of the mesh drawn by node `name`.
    func worldBounds(of name: String) -> Bounds {
        guard let i = nodes.firstIndex(where: { $0.name == name && $0.mesh != nil }), let m = nodes[i].mesh else {
            return .empty
        }
        return Bounds.of(positions: meshes[m.rawValue].positions).transformed(by: worldTransforms()[i])
    }
}

/// Approximate equality for doubles and vectors.
func nearlyEqual(_ a: Double, _ b: Double, _ eps: Double = 1e-9) -> Bool { abs(a - b) <= eps }
func nearlyEqual(_ a: SIMD3<Double>, _ b: SIMD3<Double>, _ eps: Double = 1e-9) -> Bool {
    nearlyEqual(a.x, b.x, eps) && nearlyEqual(a.y, b.y, eps) && nearlyEqual(a.z, b.z, eps)
}

/// Eight unit-cube corners and six quads (counter-clockwise outward).
let testCubePoints: [SIMD3<Float>] = [
    SIMD3(-1, -1, -1), SIMD3(1, -1, -1), SIMD3(1, 1, -1), SIMD3(-1, 1, -1),
    SIMD3(-1, -1, 1), SIMD3(1, -1, 1), SIMD3(1, 1, 1), SIMD3(-1, 1, 1),
]
let testCubeCounts: [Int32] = [4, 4, 4, 4, 4, 4]
let testCubeIndices: [Int32] = [
    0, 3, 2, 1,  // -Z
    4, 5, 6, 7,  // +Z
    0, 1, 5, 4,  // -Y
    3, 7, 6, 2,  // +Y
    0, 4, 7, 3,  // -X
    1, 2, 6, 5,  // +X
]
let testCubeFaceNormals: [SIMD3<Float>] = [
    SIMD3(0, 0, -1), SIMD3(0, 0, 1), SIMD3(0, -1, 0), SIMD3(0, 1, 0), SIMD3(-1, 0, 0), SIMD3(1, 0, 0),
]

@Suite struct StageFixtureTests {
    @Test func stageBuilderProducesPreOrderWithLinks() {
        let s = TestStage()
        s.prim("/A/B", "Xform")
        s.prim("/A/C", "Mesh")
        s.prim("/D")
        let stage = s.build()
        #expect(stage.prims.map(\.path.string) == ["/", "/A", "/A/B", "/A/C", "/D"])
        #expect(stage.prims[0].children == [1, 4])
        #expect(stage.prims[1].children == [2, 3])
        #expect(stage.prims[3].parent == 1)
        #expect(stage.primIndex(at: SdfPath("/A/C")) == 3)
    }

    @Test func emptyStageBuildsEmptyScene() throws {
        let scene = try buildTestScene(TestStage().build())
        #expect(scene.nodes.isEmpty)
        #expect(scene.metadata.sourceFormat == "usda")
    }
}
