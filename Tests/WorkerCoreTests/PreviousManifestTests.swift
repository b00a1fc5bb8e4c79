import Testing

@testable import WorkerCore

/// The previous revision's manifest, as a re-transcode reads it: typed where it is of the
/// expected kinds, absent where it is not, never trusted further.
struct PreviousManifestTests {
    static let manifest = """
        {"schema_version":10,"glb":{"path":"model.glb","bytes":10,"sha256":"aa"},
         "thumbnails":[{"path":"thumbs/hero.webp","kind":"hero","width":1320,"height":990,"bytes":5,"sha256":"bb",
                        "camera":{"position":[1,2,3],"target":[0,0,0],"up":[0,1,0],"fov_degrees":50}},
                       {"path":"thumbs/plan.webp","kind":"plan","width":1024,"height":1024,"bytes":6,"sha256":"cc",
                        "camera":{"position":[0,20,0],"target":[0,0,0],"up":[0,0,-1],"ortho_half_extent":4,"fov_degrees":50}},
                       {"kind":"card"}],
         "plan":{"files":[{"path":"plan.svg","bytes":7,"sha256":"dd"},{"path":"plan.pdf","bytes":"8"}]},
         "artifacts":{"model":{"key":"k1","files":["model.glb"]},
                      "thumbnails":{"key":"k2","files":["thumbs/hero.webp"],"warnings":[{"code":"THUMB_X","message":"m"},{"code":1}]},
                      "plan":{"key":"k3","files":["plan.svg",4]}}}
        """

    @Test func whatReuseNeedsIsReadTyped() throws {
        let m = try #require(PreviousManifest(Array(Self.manifest.utf8)))
        #expect(m.schemaVersion == 10)
        #expect(m.model == .init(path: "model.glb", bytes: 10, sha256: "aa"))
        // A thumbnail without a path is no record; a camera of both kinds is no camera.
        #expect(m.thumbnails.map(\.file.path) == ["thumbs/hero.webp", "thumbs/plan.webp"])
        #expect(m.thumbnails[0].camera?.fovDegrees == 50 && m.thumbnails[0].camera?.position == SIMD3(1, 2, 3))
        #expect(m.thumbnails[1].camera == nil && m.thumbnails[1].width == 1024)
        // A size written as text is no size.
        #expect(m.planFiles.map(\.path) == ["plan.svg", "plan.pdf"] && m.planFiles[1].bytes == nil)
        #expect(m.groups?["model"]?.key == "k1" && m.groups?["model"]?.files == ["model.glb"])
        #expect(m.groups?["thumbnails"]?.warnings == [.init(code: "THUMB_X", message: "m", primPath: nil)])
        // A group whose file list holds anything but paths offers no files.
        #expect(m.groups?["plan"]?.key == "k3" && m.groups?["plan"]?.files == nil)
        #expect(m.fileNames == ["model.glb", "thumbs/hero.webp", "thumbs/plan.webp", "plan.svg", "plan.pdf"])
    }

    @Test func aManifestOfAnotherShapeOffersNothing() throws {
        #expect(PreviousManifest(Array("not json".utf8)) == nil)
        let bare = try #require(PreviousManifest(Array("{\"artifacts\":[],\"thumbnails\":{},\"glb\":7}".utf8)))
        #expect(bare.groups == nil && bare.thumbnails.isEmpty && bare.model == nil && bare.fileNames.isEmpty)
        // One plan file without a path: the plan is made again, none of its files is offered.
        let planless = try #require(PreviousManifest(Array("{\"plan\":{\"files\":[{\"path\":\"plan.svg\"},{\"bytes\":1}]}}".utf8)))
        #expect(planless.planFiles.isEmpty)
    }
}
