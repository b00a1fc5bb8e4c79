import Testing
import Manifest
import SceneModel
import TestSupport

/// Input the schema cannot describe is refused with an error naming the field, so a manifest
/// that leaves the builder always validates.
@Suite struct ManifestErrorTests {
    /// Every code is unique, upper case, starts with `MANIFEST_` and reads back as its case.
    @Test func errorCodesAreWellFormed() {
        #expect(errorCodeProblems(ManifestError.Code.self, prefix: "MANIFEST_") == [])
    }

    func expectError(_ expected: ManifestError, _ change: (inout ManifestInput) -> Void,
                     sourceLocation: SourceLocation = #_sourceLocation) {
        var input = SampleRoom.input()
        change(&input)
        #expect(throws: expected, sourceLocation: sourceLocation) { try ManifestBuilder.build(input) }
    }

    func expectFieldError(_ field: String, _ change: (inout ManifestInput) -> Void,
                          sourceLocation: SourceLocation = #_sourceLocation) {
        var input = SampleRoom.input()
        change(&input)
        do {
            let bytes = try ManifestBuilder.build(input)
            Issue.record("built \(bytes.count) bytes", sourceLocation: sourceLocation)
            Issue.record("expected an error for \(field)", sourceLocation: sourceLocation)
        } catch let error as ManifestError {
            #expect(error.field == field, "\(error)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("unexpected error \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test func hashesMustBe64HexDigitsAndAreLowerCased() throws {
        expectError(.invalidValue(field: "glb.sha256", value: "abc", expected: "64 hex digits")) { $0.glb.sha256 = "abc" }
        expectFieldError("inputs[1].sha256") { $0.inputs[1].sha256 = String(repeating: "g", count: 64) }
        expectFieldError("redactions[0].replacement_sha256") { $0.redactions[0].replacementSHA256 = "" }
        expectFieldError("redactions[0].regions") { $0.redactions[0].regions = -1 }
        var input = SampleRoom.input()
        input.glb.sha256 = SampleRoom.glbSHA.uppercased()
        #expect(try ManifestTestSupport.buildValidated(input).bytes == ManifestTestSupport.buildValidated(SampleRoom.input()).bytes)
    }

    @Test func idsMustBeUUIDs() {
        expectFieldError("version_id") { $0.versionId = "not-a-uuid" }
        expectFieldError("room_id") { $0.roomId = "" }
    }

    @Test func closedVocabulariesAreChecked() {
        expectFieldError("inputs[0].role") { $0.inputs[0].role = "source" }
        expectFieldError("thumbnails[0].kind") { $0.thumbnails[0].kind = "overview" }
        expectFieldError("layers[0].kind") { $0.layered.layers[0].kind = LayerKind("wall") }
        expectFieldError("layers[1].id") { $0.layered.layers[1].id = LayerID("door s") }
        expectFieldError("elements[0].confidence") { $0.layered.elements[0].confidence = "certain" }
        expectFieldError("quality.grade") { $0.layered.quality.grade = "D" }
        expectFieldError("quality.closure_grade") { $0.layered.quality.closureGrade = "a" }
        expectFieldError("metrics.floor_area_source") { $0.layered.metrics.floorAreaSource = "polygon" }
        expectFieldError("metrics.counts_per_layer") { $0.layered.metrics.countsPerLayer[LayerID("bogus")] = 1 }
        expectFieldError("elements[0].layer") { $0.layered.elements[0].layer = LayerID("ceilings") }
    }

    @Test func camerasAreEitherPerspectiveOrOrthographic() {
        expectFieldError("thumbnails[0].camera") { $0.thumbnails[0].camera.fovDegrees = 60 }
        expectFieldError("thumbnails[1].camera") { $0.thumbnails[1].camera.fovDegrees = nil }
        expectFieldError("thumbnails[1].camera") { $0.thumbnails[1].camera.fovDegrees = 180 }
        expectFieldError("thumbnails[0].camera") { $0.thumbnails[0].camera.orthoHalfExtent = 0 }
        expectFieldError("thumbnails[1].camera.position") { $0.thumbnails[1].camera.position.x = .nan }
        expectFieldError("thumbnails[0].width") { $0.thumbnails[0].width = 0 }
    }

    @Test func outputPathsMustBeRelative() {
        for bad in ["/model.glb", "../model.glb", "a//b.glb", "thumbs/./x.webp", "a\\b", "", "x/"] {
            expectFieldError("glb.path") { $0.glb.path = bad }
        }
        expectFieldError("thumbnails[0].path") { $0.thumbnails[0].path = "/tmp/plan.webp" }
    }

    @Test func indicesMustBeInRange() {
        expectError(.indexOutOfRange(field: "layers[0].elements[1]", index: 42, count: 8)) {
            $0.layered.layers[0].elements[1] = 42
        }
        expectError(.indexOutOfRange(field: "layers[2].node", index: 500, count: 21)) {
            $0.layered.layers[2].node = NodeIndex(500)
        }
        expectFieldError("elements[4].node") { $0.layered.elements[4].node = NodeIndex(-1) }
        expectFieldError("layers[0].node") { $0.glbNodeIndex[$0.layered.layers[0].node] = -1 }
    }

    @Test func identifiersAndLayerIdsMustBeUnique() {
        expectError(.duplicate(field: "elements[1].identifier", value: SampleRoom.wallBack)) {
            $0.layered.elements[1].identifier = SampleRoom.wallBack
        }
        expectError(.duplicate(field: "layers[1].id", value: "walls")) {
            $0.layered.layers[1].id = LayerID("walls")
        }
        expectFieldError("elements[2].identifier") { $0.layered.elements[2].identifier = "has space" }
        expectFieldError("elements[3].parent") { $0.layered.elements[3].parentIdentifier = "" }
    }

    @Test func requiredNumbersMustBeFinite() {
        expectError(.nonFinite(field: "elements[0].transform")) { $0.layered.elements[0].transform.m[12] = .nan }
        expectError(.nonFinite(field: "elements[4].polygon_corners[2]")) {
            $0.layered.elements[4].polygonCorners[2].y = .infinity
        }
        expectError(.nonFinite(field: "sections[1].center")) { $0.layered.sections[1].center.z = .nan }
        expectError(.nonFinite(field: "elements[5].dimensions")) { $0.layered.elements[5].dimensions?.x = .nan }
        expectFieldError("units.source_meters_per_unit") { $0.layered.scene.metadata.sourceMetersPerUnit = 0 }
        expectFieldError("quality.high_confidence_wall_share") { $0.layered.quality.highConfidenceWallShare = 1.5 }
    }

    @Test func countsMustNotBeNegative() {
        expectFieldError("stats.triangles") { $0.stats.triangles = -1 }
        expectFieldError("glb.bytes") { $0.glb.bytes = -5 }
        expectFieldError("metrics.wall_count") { $0.layered.metrics.wallCount = -1 }
        expectFieldError("generator.version") { $0.generatorVersion = "" }
    }

    @Test func errorsDescribeTheField() {
        #expect(ManifestError.nonFinite(field: "a.b").description == "a.b: not a finite number")
        #expect(ManifestError.indexOutOfRange(field: "x", index: 3, count: 2).description == "x: index 3 out of range 0..<2")
    }
}

extension ManifestError {
    /// The field path the error names.
    var field: String {
        switch self {
        case .invalidValue(let field, _, _), .nonFinite(let field), .indexOutOfRange(let field, _, _),
             .duplicate(let field, _):
            return field
        }
    }
}
