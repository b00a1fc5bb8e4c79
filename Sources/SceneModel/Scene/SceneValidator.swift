/// Checks a `Scene` after it was built (the parse-then-validate split): index ranges, stream
/// lengths, finite values, hierarchy cycles. Writers may assume a scene without `.error` issues.
public enum SceneValidator {
    /// A finding with a stable code. `.error` issues make the scene unusable for writers.
    public struct Issue: Hashable, Sendable, CustomStringConvertible {
        public enum Severity: String, Hashable, Sendable { case error, warning }
        public var severity: Severity
        public var code: String
        public var message: String

        public var description: String { "\(severity.rawValue) \(code): \(message)" }
    }

    /// Validates `scene`; cost is linear in the size of all streams.
    public static func validate(_ scene: Scene) -> [Issue] {
        var issues: [Issue] = []
        func error(_ code: String, _ msg: String) { issues.append(Issue(severity: .error, code: code, message: msg)) }
        func warn(_ code: String, _ msg: String) { issues.append(Issue(severity: .warning, code: code, message: msg)) }

        for (i, node) in scene.nodes.enumerated() {
            if let p = node.parent, p.rawValue < 0 || p.rawValue >= scene.nodes.count || p.rawValue == i {
                error("SCENE_NODE_PARENT_RANGE", "node \(i) has parent \(p.rawValue) out of range")
            }
            if let m = node.mesh, m.rawValue < 0 || m.rawValue >= scene.meshes.count {
                error("SCENE_NODE_MESH_RANGE", "node \(i) references mesh \(m.rawValue) out of range")
            }
            if node.localTransform.m.count != 16 || !node.localTransform.m.allSatisfy({ $0.isFinite }) {
                error("SCENE_NODE_TRANSFORM_NONFINITE", "node \(i) (\(node.sourcePath)) has a non-finite transform")
            }
        }
        // Cycle check: walk up from every node with a step cap.
        for i in scene.nodes.indices {
            var cur = scene.nodes[i].parent
            var steps = 0
            while let c = cur, c.rawValue >= 0, c.rawValue < scene.nodes.count {
                steps += 1
                if steps > scene.nodes.count {
                    error("SCENE_NODE_CYCLE", "node \(i) is part of a parent cycle")
                    break
                }
                cur = scene.nodes[c.rawValue].parent
            }
        }
        for (i, mesh) in scene.meshes.enumerated() {
            let v = mesh.positions.count / 3
            if mesh.positions.count % 3 != 0 { error("SCENE_MESH_POSITIONS_LENGTH", "mesh \(i) positions not a multiple of 3") }
            if !mesh.normals.isEmpty && mesh.normals.count != v * 3 {
                error("SCENE_MESH_NORMALS_LENGTH", "mesh \(i) has \(mesh.normals.count / 3) normals for \(v) vertices")
            }
            if !mesh.uv0.isEmpty && mesh.uv0.count != v * 2 {
                error("SCENE_MESH_UV_LENGTH", "mesh \(i) has \(mesh.uv0.count / 2) uvs for \(v) vertices")
            }
            if !mesh.colors.isEmpty && mesh.colors.count != v * 4 {
                error("SCENE_MESH_COLORS_LENGTH", "mesh \(i) has \(mesh.colors.count / 4) colours for \(v) vertices")
            }
            if mesh.indices.count % 3 != 0 { error("SCENE_MESH_INDICES_LENGTH", "mesh \(i) index count not a multiple of 3") }
            if let bad = mesh.indices.first(where: { Int($0) >= v }) {
                error("SCENE_MESH_INDEX_RANGE", "mesh \(i) index \(bad) >= vertex count \(v)")
            }
            if !mesh.positions.allSatisfy({ $0.isFinite }) { error("SCENE_MESH_NONFINITE", "mesh \(i) has non-finite positions") }
            if mesh.indices.isEmpty { warn("SCENE_MESH_EMPTY", "mesh \(i) (\(mesh.sourcePath)) has no triangles") }
            var covered = 0
            for p in mesh.primitives {
                if p.indexStart != covered || p.indexCount < 0 || p.indexStart + p.indexCount > mesh.indices.count {
                    error("SCENE_MESH_PRIMITIVE_RANGE", "mesh \(i) primitive ranges do not tile the index buffer")
                    break
                }
                covered += p.indexCount
                if let m = p.material, m.rawValue < 0 || m.rawValue >= scene.materials.count {
                    error("SCENE_MESH_MATERIAL_RANGE", "mesh \(i) references material \(m.rawValue) out of range")
                }
            }
            if covered != mesh.indices.count && !mesh.primitives.isEmpty {
                error("SCENE_MESH_PRIMITIVE_RANGE", "mesh \(i) primitives cover \(covered) of \(mesh.indices.count) indices")
            }
        }
        for (i, mat) in scene.materials.enumerated() {
            for ref in [mat.baseColorTexture, mat.metallicRoughnessTexture, mat.emissiveTexture, mat.normalTexture,
                        mat.occlusionTexture].compactMap({ $0 })
            where ref.texture.rawValue < 0 || ref.texture.rawValue >= scene.textures.count {
                error("SCENE_MATERIAL_TEXTURE_RANGE", "material \(i) references texture \(ref.texture.rawValue) out of range")
            }
        }
        for (i, tex) in scene.textures.enumerated() where tex.bytes.isEmpty {
            warn("SCENE_TEXTURE_EMPTY", "texture \(i) (\(tex.sourcePath)) has no bytes")
        }
        return issues
    }
}
