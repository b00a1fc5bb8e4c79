import SceneModel
import JSONCore

/// Builds `layer_manifest.json`: the document that tells the web editor and the apps what is in the
/// layered `.glb` (layers, elements by RoomPlan identifier, glTF node indices, bounds), how the room
/// measures and grades, which thumbnails exist and how they were shot, and which inputs produced it.
///
/// The output is deterministic: the same input gives the same bytes (sorted keys, fixed number
/// policy, no timestamps). Its shape is described by `schemas/layer_manifest.schema.json` and
/// `docs/manifest.md`; every manifest the builder returns conforms to that schema, and input the
/// schema could not describe is refused with a `ManifestError`.
public enum ManifestBuilder {
    /// Version of the manifest's shape, written as `schema_version` and recorded by the worker as
    /// `room_versions.manifest_schema_version`. Bumped on every incompatible change.
    public static let schemaVersion = 10

    /// Text of `units.output`: the frame of the GLB and of every coordinate in the manifest.
    public static let outputUnits = "metres, +Y up"

    /// Warning code added when layer or element nodes have no glTF node index.
    public static let unmappedNodeWarningCode = "MANIFEST_NODE_NOT_IN_GLB"

    /// The manifest as UTF-8 JSON bytes: keys sorted at every level, two-space indentation,
    /// integers as integers, real-valued measurements rounded to 6 decimal places (see
    /// `docs/manifest.md`) and written in shortest round-trip form, no timestamps, one trailing
    /// newline.
    ///
    /// - Throws: `ManifestError` when a value cannot be written as the schema requires (a hash that
    ///   is not 64 hex digits, an unknown thumbnail kind, an index out of range, a non-finite
    ///   transform, a duplicate identifier, …).
    public static func build(_ input: ManifestInput) throws -> [UInt8] {
        try document(input).bytes
    }

    /// The manifest as typed values, every value checked as `build` checks it; its `bytes` are what
    /// `build` returns.
    ///
    /// - Throws: `ManifestError`, as `build`.
    public static func document(_ input: ManifestInput) throws -> ManifestDocument {
        let layered = input.layered
        let geometry = SubtreeGeometry(scene: layered.scene)
        let room = try RoomContent(
            layered: layered, geometry: geometry, glbNodeIndex: input.glbNodeIndex, layerPalette: input.layerPalette)
        let metadata = layered.scene.metadata
        guard metadata.sourceMetersPerUnit.isFinite, metadata.sourceMetersPerUnit > 0 else {
            throw ManifestError.invalidValue(
                field: "units.source_meters_per_unit", value: String(metadata.sourceMetersPerUnit),
                expected: "a finite number > 0")
        }
        var warnings = input.warnings
        if !room.unmappedNodes.isEmpty {
            warnings.append(SceneWarning(
                code: unmappedNodeWarningCode,
                message: "\(room.unmappedNodes.count) layer/element node(s) have no glTF node index "
                    + "(first: \(room.unmappedNodes[0])); their \"node\" is null"))
        }
        let generator = ManifestDocument.Generator(
            name: try FieldChecks.nonEmpty(input.generator, field: "generator.name"),
            version: try FieldChecks.nonEmpty(input.generatorVersion, field: "generator.version"))
        let versionId = try input.versionId.map { try FieldChecks.uuid($0, field: "version_id") }
        let roomId = try input.roomId.map { try FieldChecks.uuid($0, field: "room_id") }
        let inputFiles = try inputs(input.inputs)
        let glb = try checked(input.glb)
        let thumbnails = try thumbnails(input.thumbnails)
        let plan = try PlanContent.checked(input.plan)
        let redactions = try redactions(input.redactions)
        let artifacts = try artifacts(input.artifacts)
        let stats = input.stats
        for (value, field) in [(stats.meshes, "meshes"), (stats.triangles, "triangles"), (stats.vertices, "vertices"),
                               (stats.materials, "materials"), (stats.textures, "textures"), (stats.glbBytes, "glb_bytes")] {
            _ = try FieldChecks.count(value, field: "stats.\(field)")
        }
        return ManifestDocument(
            schemaVersion: schemaVersion, generator: generator, versionId: versionId, roomId: roomId, source: room.source,
            inputs: inputFiles,
            units: ManifestDocument.Units(
                sourceUpAxis: metadata.sourceUpAxis, sourceMetersPerUnit: metadata.sourceMetersPerUnit, output: outputUnits),
            glb: glb, bounds: geometry.sceneBounds, stories: room.stories, layers: room.layers, elements: room.elements,
            sections: layered.sections, metrics: layered.metrics, quality: layered.quality, thumbnails: thumbnails,
            plan: plan, redactions: redactions, artifacts: artifacts, warnings: warnings, stats: stats)
    }

    /// The model's record checked, its hash lowercase and its extensions sorted.
    private static func checked(_ glb: Artifact) throws -> Artifact {
        var out = glb
        out.path = try FieldChecks.relativePath(glb.path, field: "glb.path")
        _ = try FieldChecks.count(glb.bytes, field: "glb.bytes")
        out.sha256 = try FieldChecks.sha256(glb.sha256, field: "glb.sha256")
        out.compression = try FieldChecks.oneOf(glb.compression, ["meshopt", "none"], field: "glb.compression")
        out.extensionsRequired = try glb.extensionsRequired.sorted().map {
            try FieldChecks.nonEmpty($0, field: "glb.extensions_required")
        }
        return out
    }

    /// Inputs checked, sorted by role (`InputFile.roles` order), then name, then hash.
    private static func inputs(_ files: [InputFile]) throws -> [InputFile] {
        var rows: [(role: Int, file: InputFile)] = []
        for (i, f) in files.enumerated() {
            let field = "inputs[\(i)]"
            var file = f
            let role = try FieldChecks.oneOf(f.role, InputFile.roles, field: "\(field).role")
            file.sha256 = try FieldChecks.sha256(f.sha256, field: "\(field).sha256")
            _ = try FieldChecks.nonEmpty(f.name, field: "\(field).name")
            _ = try FieldChecks.nonEmpty(f.format, field: "\(field).format")
            _ = try FieldChecks.count(f.bytes, field: "\(field).bytes")
            rows.append((InputFile.roles.firstIndex(of: role)!, file))
        }
        return rows.sorted {
            if $0.role != $1.role { return $0.role < $1.role }
            if $0.file.name != $1.file.name { return precedes($0.file.name, $1.file.name) }
            return $0.file.sha256 < $1.file.sha256
        }.map(\.file)
    }

    /// Thumbnails checked, sorted by kind (`Thumbnail.kinds` order), then path.
    private static func thumbnails(_ thumbs: [Thumbnail]) throws -> [Thumbnail] {
        var rows: [(kind: Int, thumbnail: Thumbnail)] = []
        for (i, t) in thumbs.enumerated() {
            let field = "thumbnails[\(i)]"
            var thumbnail = t
            let kind = try FieldChecks.oneOf(t.kind, Thumbnail.kinds, field: "\(field).kind")
            _ = try FieldChecks.relativePath(t.path, field: "\(field).path")
            _ = try FieldChecks.positive(t.width, field: "\(field).width")
            _ = try FieldChecks.positive(t.height, field: "\(field).height")
            _ = try FieldChecks.count(t.bytes, field: "\(field).bytes")
            thumbnail.sha256 = try t.sha256.map { try FieldChecks.sha256($0, field: "\(field).sha256") }
            try check(t.camera, field: "\(field).camera")
            _ = try roomOfThumbnail(t, kind: kind, field: "\(field).room")
            rows.append((Thumbnail.kinds.firstIndex(of: kind)!, thumbnail))
        }
        return rows.sorted {
            $0.kind != $1.kind ? $0.kind < $1.kind : precedes($0.thumbnail.path, $1.thumbnail.path)
        }.map(\.thumbnail)
    }

    /// The room a room card names (a non-empty name); nil for the other kinds, which name none.
    private static func roomOfThumbnail(_ t: Thumbnail, kind: String, field: String) throws -> String? {
        guard kind == "room_card" else {
            guard t.room == nil else {
                throw ManifestError.invalidValue(field: field, value: t.room ?? "", expected: "null for a \(kind) thumbnail")
            }
            return nil
        }
        return try FieldChecks.nonEmpty(t.room ?? "", field: field)
    }

    /// A camera: perspective (`fov_degrees` in (0, 180), `ortho_half_extent` null) or orthographic
    /// (`ortho_half_extent` > 0, `fov_degrees` null), as written (rounded).
    private static func check(_ c: Camera, field: String) throws {
        switch (ManifestDocument.written(c.fovDegrees), ManifestDocument.written(c.orthoHalfExtent)) {
        case (.some(let f), nil) where f > 0 && f < 180: break
        case (nil, .some(let h)) where h > 0: break
        default:
            throw ManifestError.invalidValue(
                field: field, value: "fov_degrees \(String(describing: c.fovDegrees)), "
                    + "ortho_half_extent \(String(describing: c.orthoHalfExtent))",
                expected: "either a field of view in (0, 180) degrees or an orthographic half extent > 0")
        }
        _ = try FieldChecks.vector(c.position, field: "\(field).position")
        _ = try FieldChecks.vector(c.target, field: "\(field).target")
        _ = try FieldChecks.vector(c.up, field: "\(field).up")
    }

    /// The output groups checked (a known name, once each), keys lowercase.
    private static func artifacts(_ records: [ArtifactRecord]) throws -> [ArtifactRecord] {
        var seen = Set<String>()
        return try records.map { r in
            let field = "artifacts.\(r.name)"
            let name = try FieldChecks.oneOf(r.name, ArtifactRecord.names, field: "\(field)")
            guard seen.insert(name).inserted else {
                throw ManifestError.invalidValue(field: field, value: name, expected: "one record per group")
            }
            var out = r
            out.key = try FieldChecks.sha256(r.key, field: "\(field).key")
            _ = try FieldChecks.positive(r.stageVersion, field: "\(field).stage_version")
            out.files = try r.files.sorted().map { try FieldChecks.relativePath($0, field: "\(field).files") }
            return out
        }
    }

    /// Redactions checked, sorted by texture path, then replacement name; each one's `applied` by
    /// redaction id.
    private static func redactions(_ subs: [TextureSubstitution]) throws -> [TextureSubstitution] {
        var rows: [TextureSubstitution] = []
        for (i, r) in subs.enumerated() {
            let field = "redactions[\(i)]"
            var row = r
            row.applied = r.applied.sorted { precedes($0.redactionId, $1.redactionId) }
            for a in row.applied { _ = try FieldChecks.uuid(a.redactionId, field: "\(field).applied.redaction_id") }
            _ = try FieldChecks.nonEmpty(r.texturePath, field: "\(field).texture_path")
            if let name = r.replacementName { _ = try FieldChecks.nonEmpty(name, field: "\(field).replacement_name") }
            row.replacementSHA256 = try r.replacementSHA256.map { try FieldChecks.sha256($0, field: "\(field).replacement_sha256") }
            _ = try FieldChecks.count(r.regions, field: "\(field).regions")
            rows.append(row)
        }
        return rows.sorted {
            $0.texturePath != $1.texturePath
                ? precedes($0.texturePath, $1.texturePath) : precedes($0.replacementName ?? "", $1.replacementName ?? "")
        }
    }

    /// Code-point order, independent of Unicode normalisation and locale.
    static func precedes(_ a: String, _ b: String) -> Bool {
        a.unicodeScalars.lexicographicallyPrecedes(b.unicodeScalars)
    }
}
