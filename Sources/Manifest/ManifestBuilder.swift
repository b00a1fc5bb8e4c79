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
        ManifestJSON.serialize(try document(input))
    }

    /// The manifest as a JSON tree (the bytes before serialisation).
    static func document(_ input: ManifestInput) throws -> JSONValue {
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
        return .object([
            "schema_version": .int(schemaVersion),
            "generator": .object([
                "name": .string(try FieldChecks.nonEmpty(input.generator, field: "generator.name")),
                "version": .string(try FieldChecks.nonEmpty(input.generatorVersion, field: "generator.version")),
            ]),
            "version_id": .string(try input.versionId.map { try FieldChecks.uuid($0, field: "version_id") }),
            "room_id": .string(try input.roomId.map { try FieldChecks.uuid($0, field: "room_id") }),
            "source": room.source,
            "inputs": .array(try inputs(input.inputs)),
            "units": .object([
                "source_up_axis": .string(metadata.sourceUpAxis.rawValue),
                "source_meters_per_unit": .double(metadata.sourceMetersPerUnit),
                "output": .string(outputUnits),
            ]),
            "glb": .object([
                "path": .string(try FieldChecks.relativePath(input.glb.path, field: "glb.path")),
                "bytes": try FieldChecks.count(input.glb.bytes, field: "glb.bytes"),
                "sha256": .string(try FieldChecks.sha256(input.glb.sha256, field: "glb.sha256")),
                "compression": .string(
                    try FieldChecks.oneOf(input.glb.compression, ["meshopt", "none"], field: "glb.compression")),
                "extensions_required": .array(
                    try input.glb.extensionsRequired.sorted().map {
                        .string(try FieldChecks.nonEmpty($0, field: "glb.extensions_required"))
                    }),
            ]),
            "bounds": ManifestNumbers.bounds(geometry.sceneBounds),
            "stories": room.stories,
            "layers": room.layers,
            "elements": room.elements,
            "sections": room.sections,
            "metrics": room.metrics,
            "quality": room.quality,
            "thumbnails": .array(try thumbnails(input.thumbnails)),
            "plan": try PlanContent.plan(input.plan),
            "rooms": try PlanContent.rooms(input.plan),
            "redactions": .array(try redactions(input.redactions)),
            "artifacts": try artifacts(input.artifacts),
            "warnings": .array(warnings.map { w in
                .object(["code": .string(w.code), "message": .string(w.message), "prim_path": .string(w.primPath)])
            }),
            "stats": .object([
                "meshes": try FieldChecks.count(input.stats.meshes, field: "stats.meshes"),
                "triangles": try FieldChecks.count(input.stats.triangles, field: "stats.triangles"),
                "vertices": try FieldChecks.count(input.stats.vertices, field: "stats.vertices"),
                "materials": try FieldChecks.count(input.stats.materials, field: "stats.materials"),
                "textures": try FieldChecks.count(input.stats.textures, field: "stats.textures"),
                "glb_bytes": try FieldChecks.count(input.stats.glbBytes, field: "stats.glb_bytes"),
            ]),
        ])
    }

    /// Inputs sorted by role (`InputFile.roles` order), then name, then hash.
    private static func inputs(_ files: [InputFile]) throws -> [JSONValue] {
        var rows: [(role: Int, name: String, sha: String, value: JSONValue)] = []
        for (i, f) in files.enumerated() {
            let field = "inputs[\(i)]"
            let role = try FieldChecks.oneOf(f.role, InputFile.roles, field: "\(field).role")
            let sha = try FieldChecks.sha256(f.sha256, field: "\(field).sha256")
            rows.append((InputFile.roles.firstIndex(of: role)!, f.name, sha, .object([
                "role": .string(role),
                "name": .string(try FieldChecks.nonEmpty(f.name, field: "\(field).name")),
                "format": .string(try FieldChecks.nonEmpty(f.format, field: "\(field).format")),
                "bytes": try FieldChecks.count(f.bytes, field: "\(field).bytes"),
                "sha256": .string(sha),
            ])))
        }
        return rows.sorted {
            if $0.role != $1.role { return $0.role < $1.role }
            if $0.name != $1.name { return precedes($0.name, $1.name) }
            return $0.sha < $1.sha
        }.map(\.value)
    }

    /// Thumbnails sorted by kind (`Thumbnail.kinds` order), then path.
    private static func thumbnails(_ thumbs: [Thumbnail]) throws -> [JSONValue] {
        var rows: [(kind: Int, path: String, value: JSONValue)] = []
        for (i, t) in thumbs.enumerated() {
            let field = "thumbnails[\(i)]"
            let kind = try FieldChecks.oneOf(t.kind, Thumbnail.kinds, field: "\(field).kind")
            let path = try FieldChecks.relativePath(t.path, field: "\(field).path")
            rows.append((Thumbnail.kinds.firstIndex(of: kind)!, path, .object([
                "kind": .string(kind),
                "path": .string(path),
                "width": try FieldChecks.positive(t.width, field: "\(field).width"),
                "height": try FieldChecks.positive(t.height, field: "\(field).height"),
                "bytes": try FieldChecks.count(t.bytes, field: "\(field).bytes"),
                "sha256": .string(try t.sha256.map { try FieldChecks.sha256($0, field: "\(field).sha256") }),
                "camera": try camera(t.camera, field: "\(field).camera"),
                "room": .string(try roomOfThumbnail(t, kind: kind, field: "\(field).room")),
            ])))
        }
        return rows.sorted { $0.kind != $1.kind ? $0.kind < $1.kind : precedes($0.path, $1.path) }.map(\.value)
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
    /// (`ortho_half_extent` > 0, `fov_degrees` null).
    private static func camera(_ c: Camera, field: String) throws -> JSONValue {
        let fov = ManifestNumbers.measure(c.fovDegrees)
        let ortho = ManifestNumbers.measure(c.orthoHalfExtent)
        switch (fov, ortho) {
        case (.double(let f), .null) where f > 0 && f < 180: break
        case (.null, .double(let h)) where h > 0: break
        default:
            throw ManifestError.invalidValue(
                field: field, value: "fov_degrees \(String(describing: c.fovDegrees)), "
                    + "ortho_half_extent \(String(describing: c.orthoHalfExtent))",
                expected: "either a field of view in (0, 180) degrees or an orthographic half extent > 0")
        }
        return .object([
            "position": try FieldChecks.vector(c.position, field: "\(field).position"),
            "target": try FieldChecks.vector(c.target, field: "\(field).target"),
            "up": try FieldChecks.vector(c.up, field: "\(field).up"),
            "fov_degrees": fov,
            "ortho_half_extent": ortho,
        ])
    }

    /// The output groups by name, each with its key, stage version, sorted files and warnings;
    /// null for a group that was not made.
    private static func artifacts(_ records: [ArtifactRecord]) throws -> JSONValue {
        var out: [String: JSONValue] = Dictionary(uniqueKeysWithValues: ArtifactRecord.names.map { ($0, JSONValue.null) })
        for r in records {
            let field = "artifacts.\(r.name)"
            let name = try FieldChecks.oneOf(r.name, ArtifactRecord.names, field: "\(field)")
            guard out[name] == .null else {
                throw ManifestError.invalidValue(field: field, value: name, expected: "one record per group")
            }
            out[name] = .object([
                "key": .string(try FieldChecks.sha256(r.key, field: "\(field).key")),
                "stage_version": try FieldChecks.positive(r.stageVersion, field: "\(field).stage_version"),
                "files": .array(try r.files.sorted().map { .string(try FieldChecks.relativePath($0, field: "\(field).files")) }),
                "warnings": .array(r.warnings.map { w in
                    .object(["code": .string(w.code), "message": .string(w.message), "prim_path": .string(w.primPath)])
                }),
            ])
        }
        return .object(out)
    }

    /// Redactions sorted by texture path, then replacement name.
    private static func redactions(_ subs: [TextureSubstitution]) throws -> [JSONValue] {
        var rows: [(path: String, name: String, value: JSONValue)] = []
        for (i, r) in subs.enumerated() {
            let field = "redactions[\(i)]"
            let applied: [JSONValue] = try r.applied.sorted { precedes($0.redactionId, $1.redactionId) }.map { a in
                .object([
                    "redaction_id": .string(try FieldChecks.uuid(a.redactionId, field: "\(field).applied.redaction_id")),
                    "methods": .array(a.methods.map { .string($0.rawValue) }),
                ])
            }
            rows.append((r.texturePath, r.replacementName ?? "", .object([
                "texture_path": .string(try FieldChecks.nonEmpty(r.texturePath, field: "\(field).texture_path")),
                "replacement_name": try r.replacementName.map { .string(try FieldChecks.nonEmpty($0, field: "\(field).replacement_name")) }
                    ?? .null,
                "replacement_sha256": try r.replacementSHA256.map { .string(try FieldChecks.sha256($0, field: "\(field).replacement_sha256")) }
                    ?? .null,
                "regions": try FieldChecks.count(r.regions, field: "\(field).regions"),
                "applied": .array(applied),
            ])))
        }
        return rows.sorted { $0.path != $1.path ? precedes($0.path, $1.path) : precedes($0.name, $1.name) }.map(\.value)
    }

    /// Code-point order, independent of Unicode normalisation and locale.
    private static func precedes(_ a: String, _ b: String) -> Bool {
        a.unicodeScalars.lexicographicallyPrecedes(b.unicodeScalars)
    }
}
