import SceneModel
import JSONCore

/// Lays out and writes one prepared mesh's streams: POSITION, NORMAL (always), TEXCOORD_0 (when
/// present), COLOR_0 (when the colours vary), then each primitive's indices. Vertex streams are
/// float32, except normals of a meshopt model (8-bit octahedral, 4 bytes each); indices are u16 or
/// u32 per primitive.
enum MeshEncoder {
    /// Writes the mesh's streams into their views. Returns how many vertex values were repaired
    /// (non-finite texture coordinates or colours set to 0, zero or non-finite normals set to +Y).
    static func write(
        _ prepared: PreparedMesh, views: MeshViews, layout: BinaryLayout, compression: GLBCompression,
        into bin: BinaryWriter
    ) -> Int {
        let mesh = prepared.mesh
        let sourceCount = mesh.positions.count / 3
        var repaired = 0
        mesh.positions.withUnsafeBufferPointer { p in
            let at = layout.offset(of: views.position)
            bin.put(p, at: at)
            duplicateExtras(prepared.extraSource, sourceCount: sourceCount, stride: 12, at: at, bin: bin)
        }
        let normalAt = layout.offset(of: views.normal)
        let (unit, repairedNormals) = MeshPreparer.unitNormals(prepared)
        repaired += repairedNormals + prepared.repairedNormals
        if compression == .meshopt {
            bin.put(bytes: MeshoptCodec.encodeOctahedral(unit), at: normalAt)  // 8-bit octahedral, 4 bytes each
        } else {
            unit.withUnsafeBufferPointer { bin.put($0, at: normalAt) }
        }
        if let stream = views.texcoord {
            mesh.uv0.withUnsafeBufferPointer { uv in
                let at = layout.offset(of: stream)
                repaired += putFinite(uv, clamp: false, at: at, bin: bin)
                duplicateExtras(prepared.extraSource, sourceCount: sourceCount, stride: 8, at: at, bin: bin)
            }
        }
        if let stream = views.color {
            mesh.colors.withUnsafeBufferPointer { c in
                let at = layout.offset(of: stream)
                repaired += putFinite(c, clamp: true, at: at, bin: bin)
                duplicateExtras(prepared.extraSource, sourceCount: sourceCount, stride: 16, at: at, bin: bin)
            }
        }
        prepared.indices.withUnsafeBufferPointer { idx in
            for (i, primitive) in prepared.primitives.enumerated() {
                let at = layout.offset(of: views.indices[i])
                let range = UnsafeBufferPointer(
                    rebasing: idx[primitive.indexStart..<(primitive.indexStart + primitive.indexCount)])
                if primitive.shortIndices {
                    for (k, value) in range.enumerated() { bin.put(UInt16(truncatingIfNeeded: value), at: at + 2 * k) }
                } else {
                    bin.put(range, at: at)
                }
            }
        }
        return repaired
    }

    /// Writes `values`, replacing non-finite ones with 0 (and clamping to [0, 1] when asked);
    /// returns the number replaced.
    private static func putFinite(_ values: UnsafeBufferPointer<Float>, clamp: Bool, at: Int, bin: BinaryWriter) -> Int
    {
        var bad = 0
        for (i, v) in values.enumerated() {
            var out = v
            if !v.isFinite {
                out = 0
                bad += 1
            } else if clamp {
                out = min(max(v, 0), 1)
            }
            bin.put(out, at: at + 4 * i)
        }
        return bad
    }

    /// Fills the split vertices (after the `sourceCount` written ones) with copies of their source
    /// vertex's already written, already sanitised bytes.
    private static func duplicateExtras(
        _ extraSource: [UInt32], sourceCount: Int, stride: Int, at: Int, bin: BinaryWriter
    ) {
        for (k, s) in extraSource.enumerated() {
            bin.copy(from: at + Int(s) * stride, to: at + (sourceCount + k) * stride, count: stride)
        }
    }

    /// Accessor objects for the mesh's views, and the mesh object referring to them.
    static func json(
        _ mesh: PreparedMesh, views: MeshViews, compression: GLBCompression, accessors: inout [JSONValue],
        material: (MaterialIndex?) -> Int
    ) -> JSONValue {
        func accessor(
            _ stream: StreamRef, _ componentType: Int, _ count: Int, _ type: String, min: JSONValue? = nil,
            max: JSONValue? = nil, normalized: Bool = false
        ) -> Int {
            var o = JSONObjectBuilder()
            o.set("bufferView", .int(stream.view))
            if stream.byteOffset != 0 { o.set("byteOffset", .int(stream.byteOffset)) }
            o.set("componentType", .int(componentType))
            if normalized { o.set("normalized", .bool(true)) }
            o.set("count", .int(count))
            o.set("type", .string(type))
            o.set("min", min)
            o.set("max", max)
            accessors.append(o.value)
            return accessors.count - 1
        }
        let lo = mesh.minPosition
        let hi = mesh.maxPosition
        var attributes = [
            JSONMember(
                "POSITION",
                .int(
                    accessor(
                        views.position, 5126, mesh.vertexCount, "VEC3",
                        min: .doubles([Double(lo.x), Double(lo.y), Double(lo.z)]),
                        max: .doubles([Double(hi.x), Double(hi.y), Double(hi.z)])))),
            JSONMember(
                "NORMAL",
                .int(
                    compression == .meshopt
                        ? accessor(views.normal, 5120, mesh.vertexCount, "VEC3", normalized: true)
                        : accessor(views.normal, 5126, mesh.vertexCount, "VEC3"))),
        ]
        if let stream = views.texcoord {
            attributes.append(JSONMember("TEXCOORD_0", .int(accessor(stream, 5126, mesh.vertexCount, "VEC2"))))
        }
        if let stream = views.color {
            attributes.append(JSONMember("COLOR_0", .int(accessor(stream, 5126, mesh.vertexCount, "VEC4"))))
        }
        var primitives: [JSONValue] = []
        for (i, p) in mesh.primitives.enumerated() {
            let indices = accessor(views.indices[i], p.shortIndices ? 5123 : 5125, p.indexCount, "SCALAR")
            primitives.append(
                .members([
                    JSONMember("attributes", .members(attributes)),
                    JSONMember("indices", .int(indices)),
                    JSONMember("material", .int(material(p.material))),
                ]))
        }
        var o = JSONObjectBuilder()
        if !mesh.name.isEmpty { o.set("name", .string(mesh.name)) }
        o.set("primitives", .array(primitives))
        return o.value
    }
}
