/// Several scenes in one world frame as one scene (rooms of one home, each exported on its own).
extension Scene {
    /// The scenes' nodes, meshes, materials and textures appended in order, every index moved by
    /// the counts before it; each scene's roots stay roots. Metadata is the first scene's (an
    /// empty list gives an empty scene); warnings are kept in order.
    public static func merging(_ scenes: [Scene]) -> Scene {
        guard let first = scenes.first else { return Scene() }
        var out = Scene(metadata: first.metadata)
        for s in scenes {
            let nodeBase = out.nodes.count, meshBase = out.meshes.count
            let materialBase = out.materials.count, textureBase = out.textures.count
            func moved(_ ref: TextureRef?) -> TextureRef? {
                guard var r = ref else { return nil }
                r.texture = TextureIndex(r.texture.rawValue + textureBase)
                return r
            }
            out.textures += s.textures
            for var m in s.materials {
                m.baseColorTexture = moved(m.baseColorTexture)
                m.metallicRoughnessTexture = moved(m.metallicRoughnessTexture)
                m.emissiveTexture = moved(m.emissiveTexture)
                m.normalTexture = moved(m.normalTexture)
                m.occlusionTexture = moved(m.occlusionTexture)
                out.materials.append(m)
            }
            for var mesh in s.meshes {
                mesh.primitives = mesh.primitives.map {
                    Mesh.Primitive(indexStart: $0.indexStart, indexCount: $0.indexCount,
                                   material: $0.material.map { MaterialIndex($0.rawValue + materialBase) })
                }
                out.meshes.append(mesh)
            }
            for var n in s.nodes {
                n.parent = n.parent.map { NodeIndex($0.rawValue + nodeBase) }
                n.mesh = n.mesh.map { MeshIndex($0.rawValue + meshBase) }
                out.nodes.append(n)
            }
            out.warnings += s.warnings
        }
        return out
    }
}
