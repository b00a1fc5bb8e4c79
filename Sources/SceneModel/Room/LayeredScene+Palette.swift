extension LayeredScene {
    /// Gives a room-like scene's untextured materials the colour of their element's category
    /// (`CategoryPalette`, the thumbnails' colours), so the editor's first view matches the card
    /// image. A scene is room-like when it has a wall; other scenes are left as they are.
    ///
    /// Per element with a palette colour, every primitive of every mesh below the element node
    /// whose material has no base colour texture (or that has no material) draws a copy of its
    /// material with that colour (alpha, roughness and the rest kept). A mesh drawn by elements of
    /// several categories is copied once per further category. Returns the colour of each layer
    /// that has one (sRGB hex); a scene that is not room-like is unchanged and gets none.
    public mutating func applyCategoryPalette() -> [LayerID: UInt32] {
        guard elements.contains(where: { $0.category == .wall }) else { return [:] }
        var scene = self.scene
        let children = scene.childrenByNode()
        var meshOwner: [Int: ElementCategory] = [:]  // mesh → the category that recoloured it
        var paletteMaterial: [String: MaterialIndex] = [:]  // "<material or -1>/<category>" → index
        for element in elements {
            guard let colour = CategoryPalette.surface(element.category), element.node.rawValue >= 0,
                element.node.rawValue < scene.nodes.count
            else { continue }
            let rgb = CategoryPalette.linear(colour)
            var stack = [element.node.rawValue]
            var visited = 0
            while let n = stack.popLast(), visited <= scene.nodes.count {
                visited += 1
                stack += children[n].map(\.rawValue)
                guard let m = scene.nodes[n].mesh?.rawValue, m < scene.meshes.count else { continue }
                let mesh = scene.meshes[m]
                if let owner = meshOwner[m] {
                    if owner == element.category { continue }  // already coloured for this category
                    // Drawn by another category too: this node gets its own copy.
                    let copy = scene.addMesh(Self.recolored(mesh, element.category, rgb, &scene, &paletteMaterial))
                    scene.nodes[n].mesh = copy
                    meshOwner[copy.rawValue] = element.category
                    continue
                }
                scene.meshes[m] = Self.recolored(mesh, element.category, rgb, &scene, &paletteMaterial)
                meshOwner[m] = element.category
            }
        }
        self.scene = scene
        var colours: [LayerID: UInt32] = [:]
        for layer in layers { if let c = CategoryPalette.layer(layer.id) { colours[layer.id] = c } }
        return colours
    }

    /// `mesh` with its untextured primitives drawing the category's palette material.
    private static func recolored(
        _ mesh: Mesh, _ category: ElementCategory, _ rgb: SIMD3<Float>, _ scene: inout Scene,
        _ cache: inout [String: MaterialIndex]
    ) -> Mesh {
        var out = mesh
        if out.primitives.isEmpty {
            out.primitives = [Mesh.Primitive(indexStart: 0, indexCount: out.indices.count, material: nil)]
        }
        for i in out.primitives.indices {
            let source = out.primitives[i].material
            let base = source.map { scene.materials[$0.rawValue] } ?? Material(name: "default")
            guard base.baseColorTexture == nil else { continue }
            let key = "\(source?.rawValue ?? -1)/\(category.rawValue)"
            if let known = cache[key] {
                out.primitives[i].material = known
                continue
            }
            var m = base
            m.name = "\(base.name) \(category.rawValue)"
            m.baseColor = SIMD4(rgb, base.baseColor.w)
            let index = scene.addMaterial(m)
            cache[key] = index
            out.primitives[i].material = index
        }
        return out
    }
}
