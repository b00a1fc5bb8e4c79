import SceneModel
import JSONCore

/// Builds the whole `.glb` in three steps: measure (node plan, prepared meshes, materials, buffer
/// layout), describe (the JSON document, complete because every size and bound is known), then
/// write once (the file is allocated at its final size and the BIN data written in place).
struct GLTFDocumentBuilder {
    let layered: LayeredScene
    let options: GLBOptions

    func build() throws -> GLBOutput {
        if !options.sceneValidated { try GLBWriter.checkValid(layered.scene) }
        let scene = layered.scene
        var warnings: [SceneWarning] = []

        // Measure.
        let plan = try NodeTreePlanner(layered: layered).plan()
        warnings += plan.warnings
        let sources: [Mesh] = plan.meshes.map { source in
            switch source {
            case .scene(let m): return scene.meshes[m.rawValue]
            case .baked(let mesh, _): return mesh
            }
        }
        var converter = MaterialConverter(scene: scene)
        let materials = converter.convert(sources)
        warnings += materials.warnings
        let defaultMaterial = materials.defaultMaterial ?? 0
        let gltfMaterial: (MaterialIndex?) -> Int = { m in
            m.flatMap { materials.materialIndex[$0.rawValue] } ?? defaultMaterial
        }
        // Identical meshes are written once, compared by the glTF materials they end up with (each
        // instance of a referenced model has its own copy of the model's material, written once);
        // `meshIndex` maps the plan's meshes to written ones.
        let (prepared, meshIndex) = MeshDeduplicator.unique(
            prepare(sources, stretch: plan.meshStretch, material: gltfMaterial), material: gltfMaterial)

        var layout = BinaryLayout()
        let compression = options.compression
        let meshViews = MeshLayout.layout(prepared, in: &layout, compression: compression)
        let imageViews = materials.images.map {
            layout.add(length: scene.textures[$0.texture.rawValue].bytes.count, target: nil)
        }
        guard layout.paddedLength <= GLBContainer.maxBinLength else {
            throw GLBWriterError.tooLarge("binary buffer of \(layout.paddedLength) bytes exceeds the 2 GiB limit")
        }

        // Describe.
        var accessors: [JSONValue] = []
        let meshes = prepared.indices.map { i in
            MeshEncoder.json(
                prepared[i], views: meshViews[i], compression: compression, accessors: &accessors, material: gltfMaterial)
        }
        var doc = JSONObjectBuilder()
        let packs = compression == .meshopt && !prepared.isEmpty
        var required = packs ? compression.extensionsRequired : []
        if materials.usesWebP { required.append("EXT_texture_webp") }
        required.sort()
        setHeader(&doc, required: required, usesTextureTransform: materials.usesTextureTransform, roots: plan.roots)
        setNonEmpty(&doc, "nodes", plan.nodes.map { nodeJSON($0, meshIndex: meshIndex) })
        setNonEmpty(&doc, "meshes", meshes)
        setNonEmpty(&doc, "materials", materials.materials)
        setNonEmpty(&doc, "textures", materials.textures)
        setNonEmpty(&doc, "images", Self.imagesJSON(materials.images, views: imageViews))
        setNonEmpty(&doc, "samplers", materials.samplers)
        setNonEmpty(&doc, "accessors", accessors)

        var repairedPerMesh = [Int](repeating: 0, count: prepared.count)
        func writeLogical(_ bin: BinaryWriter) {
            for i in prepared.indices {
                repairedPerMesh[i] = MeshEncoder.write(
                    prepared[i], views: meshViews[i], layout: layout, compression: compression, into: bin)
            }
            for (i, image) in materials.images.enumerated() {
                bin.put(bytes: scene.textures[image.texture.rawValue].bytes, at: layout.views[imageViews[i]].offset)
            }
            layout.zeroGaps(bin)
        }
        let bytes: [UInt8]
        if packs {
            // Write the logical buffer, then compress it into the BIN chunk.
            var logical = [UInt8](repeating: 0, count: layout.paddedLength)
            logical.withUnsafeMutableBytes { writeLogical(BinaryWriter(base: $0.baseAddress!, count: $0.count)) }
            let packed = MeshoptPacker.pack(logical: &logical, layout: layout, meshes: prepared, meshViews: meshViews)
            setNonEmpty(&doc, "bufferViews", packed.bufferViews)
            doc.set("buffers", .array(packed.buffers))
            bytes = try GLBContainer.assemble(json: GLTFJSON.serialize(doc.value), binLength: packed.bin.count) { bin in
                bin.put(bytes: packed.bin, at: 0)
            }
        } else {
            // Write once, in place.
            setNonEmpty(&doc, "bufferViews", layout.json)
            if layout.paddedLength > 0 {
                doc.set("buffers", .array([.members([JSONMember("byteLength", .int(layout.paddedLength))])]))
            }
            bytes = try GLBContainer.assemble(json: GLTFJSON.serialize(doc.value), binLength: layout.paddedLength) {
                writeLogical($0)
            }
        }
        warnings += Self.repairWarnings(prepared, repaired: repairedPerMesh)

        return GLBOutput(
            bytes: bytes, nodeIndex: plan.nodeIndex, meshCount: prepared.count,
            triangleCount: prepared.reduce(0) { $0 + $1.triangleCount },
            vertexCount: prepared.reduce(0) { $0 + $1.vertexCount },
            materialCount: materials.materials.count, textureCount: materials.textures.count,
            imageCount: materials.images.count, compression: packs ? compression : .none,
            extensionsRequired: required, warnings: warnings)
    }

    /// The document's `asset`, `extensionsUsed` (the `required` ones and the texture transform
    /// when used, sorted), `extensionsRequired`, `scene` and `scenes` (one, with the root nodes).
    private func setHeader(
        _ doc: inout JSONObjectBuilder, required: [String], usesTextureTransform: Bool, roots: [Int]
    ) {
        doc.set(
            "asset",
            .members([
                JSONMember("generator", .string(options.generator)),
                JSONMember("version", .string("2.0")),
            ]))
        var extensions = required
        if usesTextureTransform { extensions.append("KHR_texture_transform") }
        if !extensions.isEmpty { doc.set("extensionsUsed", .array(extensions.sorted().map { JSONValue.string($0) })) }
        if !required.isEmpty { doc.set("extensionsRequired", .array(required.map { JSONValue.string($0) })) }
        doc.set("scene", .int(0))
        var sceneObject = JSONObjectBuilder()
        if !roots.isEmpty { sceneObject.set("nodes", .array(roots.map { .int($0) })) }
        doc.set("scenes", .array([sceneObject.value]))
    }

    /// The `images` entries: name, buffer view (`views[i]` for image `i`) and MIME type.
    private static func imagesJSON(_ images: [ImageEntry], views: [Int]) -> [JSONValue] {
        images.indices.map { i in
            var o = JSONObjectBuilder()
            o.set("name", images[i].name.map { .string($0) })
            o.set("bufferView", .int(views[i]))
            o.set("mimeType", .string(images[i].mimeType))
            return o.value
        }
    }

    /// `GLB_VERTEX_DATA_REPAIRED` for each mesh with repaired vertex values.
    private static func repairWarnings(_ prepared: [PreparedMesh], repaired: [Int]) -> [SceneWarning] {
        zip(prepared, repaired).filter { $0.1 > 0 }.map { mesh, count in
            SceneWarning(
                code: "GLB_VERTEX_DATA_REPAIRED",
                message: "mesh \(mesh.name): \(count) vertex value(s) were not finite or zero-length "
                    + "(texture coordinates and colours set to 0, normals to +Y)",
                primPath: mesh.sourcePath.isEmpty ? nil : mesh.sourcePath)
        }
    }

    /// The planned meshes prepared for writing. Copies of one mesh (each instance of a referenced
    /// model composes its own) are prepared once, on the grid of the most stretched copy
    /// (`PositionGrid`).
    private func prepare(_ sources: [Mesh], stretch planned: [Double], material: (MaterialIndex?) -> Int)
        -> [PreparedMesh]
    {
        let first = PositionGrid.firstOfSameContent(sources, material: material)
        var stretch = planned
        for (i, f) in first.enumerated() where f != i { stretch[f] = max(stretch[f], stretch[i]) }
        var out: [PreparedMesh] = []
        out.reserveCapacity(sources.count)
        for (i, mesh) in sources.enumerated() {
            guard first[i] == i else {
                out.append(out[first[i]])
                continue
            }
            let exponent = options.compression == .meshopt
                ? PositionGrid.exponent(mesh.positions, error: options.positionError, stretch: stretch[i]) : 0
            out.append(MeshPreparer.prepare(mesh, materials: layered.scene.materials, options: options, positionExponent: exponent))
        }
        return out
    }

    private func nodeJSON(_ node: PlannedNode, meshIndex: [Int]) -> JSONValue {
        var o = JSONObjectBuilder()
        o.set("name", node.name.map { .string($0) })
        if !node.children.isEmpty { o.set("children", .array(node.children.map { .int($0) })) }
        o.set("matrix", node.matrix.map { .doubles($0.m) })
        o.set("mesh", node.mesh.map { .int(meshIndex[$0]) })
        o.set("extras", node.extras)
        return o.value
    }

    /// glTF arrays must not be empty when present.
    private func setNonEmpty(_ doc: inout JSONObjectBuilder, _ key: String, _ items: [JSONValue]) {
        if !items.isEmpty { doc.set(key, .array(items)) }
    }
}
