/// An axis-aligned bounding box in metres. An empty box has `min > max`.
public struct Bounds: Hashable, Sendable {
    public var min: SIMD3<Double>
    public var max: SIMD3<Double>

    public init(min: SIMD3<Double>, max: SIMD3<Double>) {
        self.min = min
        self.max = max
    }

    public static let empty = Bounds(
        min: SIMD3(repeating: .infinity), max: SIMD3(repeating: -.infinity))

    public var isEmpty: Bool { min.x > max.x || min.y > max.y || min.z > max.z }
    public var center: SIMD3<Double> { (min + max) * 0.5 }
    public var size: SIMD3<Double> { isEmpty ? .zero : max - min }

    public mutating func include(_ p: SIMD3<Double>) {
        min = pointwiseMin(min, p)
        max = pointwiseMax(max, p)
    }

    public mutating func include(_ b: Bounds) {
        guard !b.isEmpty else { return }
        include(b.min)
        include(b.max)
    }

    /// The bounds of this box's eight corners after `m`.
    public func transformed(by m: Matrix4) -> Bounds {
        guard !isEmpty else { return self }
        var out = Bounds.empty
        for i in 0..<8 {
            let c = SIMD3(i & 1 == 0 ? min.x : max.x, i & 2 == 0 ? min.y : max.y, i & 4 == 0 ? min.z : max.z)
            out.include(m.transformPoint(c))
        }
        return out
    }

    /// Bounds of a flat xyz position stream.
    public static func of(positions: [Float]) -> Bounds {
        var b = Bounds.empty
        var i = 0
        while i + 2 < positions.count {
            b.include(SIMD3(Double(positions[i]), Double(positions[i + 1]), Double(positions[i + 2])))
            i += 3
        }
        return b
    }

    /// Bounds of the whole scene in world space.
    public static func of(scene: Scene) -> Bounds {
        let world = scene.worldTransforms()
        var meshBounds = [Bounds?](repeating: nil, count: scene.meshes.count)
        var out = Bounds.empty
        for (i, node) in scene.nodes.enumerated() {
            guard let mi = node.mesh?.rawValue, mi >= 0, mi < scene.meshes.count else { continue }
            if meshBounds[mi] == nil { meshBounds[mi] = .of(positions: scene.meshes[mi].positions) }
            out.include(meshBounds[mi]!.transformed(by: world[i]))
        }
        return out
    }
}
