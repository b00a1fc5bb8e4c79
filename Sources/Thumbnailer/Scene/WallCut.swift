import SceneModel

/// The dollhouse cut of a home: every wall, door and window is clipped by a horizontal plane
/// `HomeLayout.cutHeight` above its room's floor, and each cut wall gets a flat cap in the cut
/// colour along its solid parts, broken where it hosts a door or an opening; openings (passages)
/// are not drawn. A view from above then sees into every room and reads the walls as a plan does.
enum WallCut {
    /// The cut faces' colour (sRGB): a warm dark grey, the plan's wall fill seen in 3D.
    static let capColour: UInt32 = 0x5E5852

    /// Clips the structural elements' meshes of `source` and adds the caps (one root node, no
    /// element, drawn in `capColour`).
    static func apply(_ home: HomeLayout, elements: [RoomElement], to source: inout RenderScene.Source) {
        let world = source.scene.worldTransforms()
        var segments: [Int: [(SIMD3<Double>, SIMD3<Double>)]] = [:]
        let nodeCount = source.scene.nodes.count
        for i in 0..<nodeCount {
            guard i < source.elementOfNode.count, source.drawNode[i], source.elementOfNode[i] >= 0,
                let mi = source.scene.nodes[i].mesh?.rawValue, mi >= 0, mi < source.scene.meshes.count
            else { continue }
            let e = Int(source.elementOfNode[i])
            guard e < elements.count, RoomAnalysis.structural.contains(elements[e].category) else { continue }
            if elements[e].category == .opening {
                source.drawNode[i] = false
                continue
            }
            let cutY = home.cutY(element: e)
            let m = world[i]
            guard m.m.count == 16, m.m.allSatisfy({ $0.isFinite }) else { continue }
            let out = clip(source.scene.meshes[mi], transform: m, cutY: cutY)
            if elements[e].category == .wall { segments[e, default: []] += out.segments }
            guard out.changed else { continue }
            // Meshes may be shared by several nodes: each node gets its own cut copy.
            source.scene.nodes[i].mesh = source.scene.addMesh(out.mesh)
        }
        // Doors and openings break their host wall's cap (walls built from the JSON have no holes).
        var passages: [String: [RoomElement]] = [:]
        for el in elements where el.category == .door || el.category == .opening {
            if let host = el.parentIdentifier { passages[host, default: []].append(el) }
        }
        // One cap drawing per room (and one for walls of no room), so a room can be drawn alone.
        var caps: [Int: CapBuilder] = [:]
        for e in segments.keys.sorted() {
            let room = e < home.roomOfElement.count ? home.roomOfElement[e] ?? -1 : -1
            caps[room, default: CapBuilder()].addCaps(
                element: elements[e], cutY: home.cutY(element: e), segments: segments[e]!,
                passages: passages[elements[e].identifier] ?? [])
        }
        let colour = ColorSpace.linear(hex: capColour)
        for room in caps.keys.sorted() where !caps[room]!.indices.isEmpty {
            let cap = caps[room]!
            source.addDrawing(
                Material(name: "cut walls", baseColor: SIMD4(colour, 1), roughness: 0.9), name: "cut walls",
                positions: cap.positions, normals: cap.normals, indices: cap.indices, room: room >= 0 ? room : nil)
        }
    }

    /// A mesh clipped to world y ≤ `cutY` (vertices interpolated in the mesh's own frame, every
    /// stream kept), whether anything was cut, and the world segments where triangles meet the
    /// plane.
    static func clip(_ mesh: Mesh, transform m: Matrix4, cutY: Double)
        -> (mesh: Mesh, changed: Bool, segments: [(SIMD3<Double>, SIMD3<Double>)])
    {
        let v = mesh.positions.count / 3
        let hasN = mesh.normals.count == v * 3, hasUV = mesh.uv0.count == v * 2, hasC = mesh.colors.count == v * 4
        var height = [Double](repeating: 0, count: v)
        var above = false
        for i in 0..<v {
            let p = SIMD3(Double(mesh.positions[i * 3]), Double(mesh.positions[i * 3 + 1]), Double(mesh.positions[i * 3 + 2]))
            height[i] = cutY - m.transformPoint(p).y
            if height[i] < 0 { above = true }
        }
        guard above else { return (mesh, false, []) }
        var out = Mesh(name: mesh.name, sourcePath: mesh.sourcePath)
        var newIndex = [Int32](repeating: -1, count: v)
        var onEdge: [UInt64: UInt32] = [:]
        func keep(_ i: Int) -> UInt32 {
            if newIndex[i] < 0 {
                newIndex[i] = Int32(out.positions.count / 3)
                out.positions += mesh.positions[(i * 3)..<(i * 3 + 3)]
                if hasN { out.normals += mesh.normals[(i * 3)..<(i * 3 + 3)] }
                if hasUV { out.uv0 += mesh.uv0[(i * 2)..<(i * 2 + 2)] }
                if hasC { out.colors += mesh.colors[(i * 4)..<(i * 4 + 4)] }
            }
            return UInt32(newIndex[i])
        }
        func lerp(_ s: [Float], _ n: Int, _ a: Int, _ b: Int, _ t: Float) -> [Float] {
            (0..<n).map { s[a * n + $0] + (s[b * n + $0] - s[a * n + $0]) * t }
        }
        /// The vertex where edge a→b meets the plane (shared by the triangles on both sides).
        func cross(_ a: Int, _ b: Int) -> UInt32 {
            let key = UInt64(min(a, b)) << 32 | UInt64(max(a, b))
            if let k = onEdge[key] { return k }
            let (lo, hi) = a < b ? (a, b) : (b, a)
            let t = Float(height[lo] / (height[lo] - height[hi]))
            let k = UInt32(out.positions.count / 3)
            out.positions += lerp(mesh.positions, 3, lo, hi, t)
            if hasN {
                let q = lerp(mesh.normals, 3, lo, hi, t)
                var n = SIMD3<Float>(q[0], q[1], q[2])
                let l = (n * n).sum().squareRoot()
                if l > 1e-12 { n /= l }
                out.normals += [n.x, n.y, n.z]
            }
            if hasUV { out.uv0 += lerp(mesh.uv0, 2, lo, hi, t) }
            if hasC { out.colors += lerp(mesh.colors, 4, lo, hi, t) }
            onEdge[key] = k
            return k
        }
        func worldPoint(_ k: UInt32) -> SIMD3<Double> {
            let j = Int(k) * 3
            return m.transformPoint(SIMD3(Double(out.positions[j]), Double(out.positions[j + 1]), Double(out.positions[j + 2])))
        }
        var segments: [(SIMD3<Double>, SIMD3<Double>)] = []
        let t = mesh.indices.count / 3
        var material = [MaterialIndex?](repeating: nil, count: t)
        for p in mesh.primitives where p.indexStart >= 0 && p.indexCount > 0 {
            for k in (p.indexStart / 3)..<min((p.indexStart + p.indexCount) / 3, t) { material[k] = p.material }
        }
        var runs: [Mesh.Primitive] = []
        for k in 0..<t {
            let tri = [Int(mesh.indices[k * 3]), Int(mesh.indices[k * 3 + 1]), Int(mesh.indices[k * 3 + 2])]
            guard tri.allSatisfy({ $0 < v }) else { continue }
            let start = out.indices.count
            // Sutherland–Hodgman against one plane: the kept part is a triangle or a quad.
            var polygon: [UInt32] = []
            var cuts: [UInt32] = []
            for j in 0..<3 {
                let a = tri[j], b = tri[(j + 1) % 3]
                let inA = height[a] >= 0, inB = height[b] >= 0
                if inA { polygon.append(keep(a)) }
                if inA != inB {
                    let c = cross(a, b)
                    polygon.append(c)
                    cuts.append(c)
                }
            }
            if polygon.count >= 3 {
                for j in 1..<(polygon.count - 1) { out.indices += [polygon[0], polygon[j], polygon[j + 1]] }
            }
            if cuts.count == 2 { segments.append((worldPoint(cuts[0]), worldPoint(cuts[1]))) }
            let added = out.indices.count - start
            guard added > 0 else { continue }
            if let last = runs.last, last.material == material[k], last.indexStart + last.indexCount == start {
                runs[runs.count - 1].indexCount += added
            } else {
                runs.append(Mesh.Primitive(indexStart: start, indexCount: added, material: material[k]))
            }
        }
        out.primitives = runs
        return (out, true, segments)
    }
}

/// The flat caps of cut walls: along the wall (its local X), the solid parts the cut segments
/// cover; across it, the wall's cut thickness.
struct CapBuilder {
    var positions: [Float] = []
    var normals: [Float] = []
    var indices: [UInt32] = []

    /// - Parameter passages: the doors and openings the wall hosts: no cap across their width.
    mutating func addCaps(
        element: RoomElement, cutY: Double, segments: [(SIMD3<Double>, SIMD3<Double>)], passages: [RoomElement] = []
    ) {
        let t = element.transform.m
        guard t.count == 16, !segments.isEmpty else { return }
        let origin = SIMD3(t[12], t[13], t[14])
        let ex = SIMD3(t[0], 0, t[2]).normalizedOrZero, ez = SIMD3(t[8], 0, t[10]).normalizedOrZero
        guard ex != .zero, ez != .zero, abs(ex.dot(ez)) < 0.01 else { return }
        var spans: [(Double, Double)] = []
        var zLo = Double.infinity, zHi = -Double.infinity
        for (a, b) in segments {
            let la = a - origin, lb = b - origin
            let xa = la.dot(ex), xb = lb.dot(ex), za = la.dot(ez), zb = lb.dot(ez)
            zLo = min(zLo, za, zb)
            zHi = max(zHi, za, zb)
            // Faces along the wall carry its solid length; faces across it (ends, door reveals) none.
            if abs(xb - xa) > 0.005 { spans.append((min(xa, xb), max(xa, xb))) }
        }
        guard zLo.isFinite, zHi.isFinite else { return }
        if zHi - zLo < 0.04 {
            let mid = (zLo + zHi) / 2
            zLo = mid - 0.02
            zHi = mid + 0.02
        }
        spans.sort { $0.0 < $1.0 }
        var merged: [(Double, Double)] = []
        for s in spans {
            if let last = merged.last, s.0 <= last.1 + 0.002 {
                merged[merged.count - 1].1 = max(last.1, s.1)
            } else {
                merged.append(s)
            }
        }
        for p in passages {
            let m = p.transform.m
            guard m.count == 16, let w = p.dimensions?.x, w.isFinite, w > 0 else { continue }
            let centre = (SIMD3(m[12], m[13], m[14]) - origin).dot(ex)
            merged = Self.subtract(merged, centre - abs(w) / 2, centre + abs(w) / 2)
        }
        for (x0, x1) in merged where x1 - x0 > 0.005 {
            let corners = [(x0, zLo), (x1, zLo), (x1, zHi), (x0, zHi)].map { x, z in
                origin + ex * x + ez * z
            }
            let base = UInt32(positions.count / 3)
            for c in corners {
                positions += [Float(c.x), Float(cutY), Float(c.z)]
                normals += [0, 1, 0]
            }
            // Counter-clockwise seen from above (+Y).
            let n = (corners[1] - corners[0]).cross(corners[2] - corners[0])
            indices += n.y > 0 ? [base, base + 1, base + 2, base, base + 2, base + 3] : [base, base + 2, base + 1, base, base + 3, base + 2]
        }
    }

    /// `spans` without the interval lo…hi.
    static func subtract(_ spans: [(Double, Double)], _ lo: Double, _ hi: Double) -> [(Double, Double)] {
        var out: [(Double, Double)] = []
        for (a, b) in spans {
            if hi <= a || lo >= b {
                out.append((a, b))
                continue
            }
            if lo > a { out.append((a, lo)) }
            if hi < b { out.append((hi, b)) }
        }
        return out
    }
}
