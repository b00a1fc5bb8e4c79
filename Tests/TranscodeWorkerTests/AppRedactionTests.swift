import Foundation
import Testing
@testable import TranscodeWorker
@testable import ObjectStorage
@testable import PGQueue
@testable import WorkerRuntime
@testable import WorkerCore
@testable import Thumbnailer

/// `redactions` rows as the apps write them (migration 9): `texture_ref`, `kind`, `region`,
/// `method`, with the replacement texture (`redacted_path`) optional. Real Postgres, real child.
@Suite struct AppRedactionTests {
    static let sampleRoot = JobFixture.packageRoot.appendingPathComponent("samples/textured")
    static let insertSQL = """
        INSERT INTO redactions (room_version_id, texture_ref, kind, region, method, redacted_path)
        VALUES ($1::uuid, $2, $3, $4::jsonb, $5, $6)
        """
    static let face = #"{"x":0.25,"y":0.1,"w":0.2,"h":0.3}"#

    /// A queued version of the textured sample; `blurred`: also store the face-blurred albedo at
    /// `<prefix>blurred/albedo.png` (not under `redacted/`, so only a row can name it).
    private func version(_ f: JobFixture, blurred: Bool) throws -> (id: String, dir: String) {
        let version = UUID().uuidString.lowercased()
        let dir = "rooms/\(f.roomId)/versions/\(version)/"
        let usdz = [UInt8](try Data(contentsOf: Self.sampleRoot.appendingPathComponent("textured_box.usdz")))
        try f.files.put(dir + "scan.usdz", bytes: usdz, contentType: "model/vnd.usdz+zip")
        if blurred {
            let png = [UInt8](try Data(contentsOf: Self.sampleRoot.appendingPathComponent("redacted/textures/albedo.png")))
            try f.files.put(dir + "blurred/albedo.png", bytes: png, contentType: "image/png")
            try f.files.put(dir + "blurred/other.png", bytes: png + [0], contentType: "image/png")
        }
        try f.store.submit(versionId: version, roomId: f.roomId, roomName: nil, usdzKey: dir + "scan.usdz", jsonKey: nil)
        return (version, dir)
    }

    private func insert(_ f: JobFixture, _ version: String, texture: String = "textures/albedo.png",
                        kind: String? = "face", region: String? = face, method: String? = "gaussian",
                        redacted: String?) throws {
        try f.store.connection.query(Self.insertSQL, [version, texture, kind, region, method, redacted])
    }

    private func manifest(_ f: JobFixture, _ job: ClaimedJob) throws -> [String: Any] {
        let bytes = try f.files.get(job.outputPrefix + "layer_manifest.json", maxBytes: 1 << 24)
        return try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    @Test func appRowWithReplacementIsApplied() throws {
        let f = try JobFixture()
        let v = try version(f, blurred: true)
        // Two regions on the same texture, both naming the same replacement: applied once.
        try insert(f, v.id, redacted: v.dir + "blurred/albedo.png")
        try insert(f, v.id, kind: "manual", region: #"{"x":0,"y":0,"w":1,"h":0.5}"#, redacted: v.dir + "blurred/albedo.png")
        #expect(try f.store.redactions(versionId: v.id).map(\.texturePath) == ["textures/albedo.png", "textures/albedo.png"])
        let job = try f.claim()
        #expect(f.runner().run(job, control: JobControl()) == .ready(outputPrefix: job.outputPrefix))
        let redactions = try manifest(f, job)["redactions"] as? [[String: Any]] ?? []
        #expect(redactions.map { $0["texture_path"] as? String } == ["textures/albedo.png"])
        #expect(redactions.map { ($0["regions"] as? NSNumber)?.intValue } == [2])
        // A count and how each row was applied: no region, kind or method reaches the manifest.
        #expect(Set(redactions.first?.keys.map { $0 } ?? []) == ["texture_path", "replacement_name", "replacement_sha256", "regions", "applied"])
        let applied = redactions.first?["applied"] as? [[String: Any]] ?? []
        #expect(applied.map { $0["methods"] as? [String] ?? [] } == [["app_replacement", "server_blur"], ["app_replacement", "server_blur"]])
        #expect(redactions.first?["replacement_sha256"] as? String
            == Digest.hex(Digest.sha256([UInt8](try Data(contentsOf: Self.sampleRoot.appendingPathComponent("redacted/textures/albedo.png"))))))
    }

    /// A row without a replacement is blurred by the worker; a row with no area only records one.
    @Test func aRowWithoutReplacementIsBlurredByTheWorker() throws {
        let f = try JobFixture()
        let v = try version(f, blurred: false)
        try insert(f, v.id, redacted: nil)
        try insert(f, v.id, kind: nil, region: nil, method: nil, redacted: nil)
        let rows = try f.store.redactions(versionId: v.id)
        #expect(rows.count == 2)
        #expect(rows.allSatisfy { $0.storageKey == nil })
        let job = try f.claim()
        #expect(f.runner().run(job, control: JobControl()) == .ready(outputPrefix: job.outputPrefix))
        let redactions = try manifest(f, job)["redactions"] as? [[String: Any]] ?? []
        #expect(redactions.map { $0["texture_path"] as? String } == ["textures/albedo.png"])
        #expect(redactions.first?["replacement_name"] is NSNull)
        let applied = redactions.first?["applied"] as? [[String: Any]] ?? []
        #expect(Set(applied.map { $0["methods"] as? [String] ?? [] }) == [["server_blur"], []])
    }

    @Test func recordOnlyRowsAreCountedBesideTheReplacement() throws {
        let f = try JobFixture()
        let v = try version(f, blurred: true)
        try insert(f, v.id, redacted: nil)
        try insert(f, v.id, redacted: v.dir + "blurred/albedo.png")
        try insert(f, v.id, kind: "manual", redacted: nil)
        let job = try f.claim()
        #expect(f.runner().run(job, control: JobControl()) == .ready(outputPrefix: job.outputPrefix))
        let redactions = try manifest(f, job)["redactions"] as? [[String: Any]] ?? []
        #expect(redactions.map { $0["texture_path"] as? String } == ["textures/albedo.png"])
        #expect(redactions.map { ($0["regions"] as? NSNumber)?.intValue } == [3])
    }

    /// A row naming a texture the package does not have cannot be applied: the version fails with
    /// the app's code instead of publishing what the row meant to hide.
    @Test func aRowForATextureNotInThePackageFailsTheVersion() throws {
        let f = try JobFixture()
        let v = try version(f, blurred: false)
        try insert(f, v.id, texture: "textures/absent.png", redacted: nil)
        let job = try f.claim()
        #expect(f.runner().run(job, control: JobControl()) == .failed(reason: "REDACTION_INVALID"))
    }

    /// Per-pixel noise (a sharp texture), as lossless WebP.
    static func sharpTexture(side: Int) throws -> [UInt8] {
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        var rgba = [UInt8](repeating: 255, count: side * side * 4)
        for i in 0..<(side * side) {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let v = UInt8(truncatingIfNeeded: state >> 56)
            rgba[i * 4] = v; rgba[i * 4 + 1] = v &+ 91; rgba[i * 4 + 2] = 255 &- v
        }
        return try #require(WebPCodec.encode(rgba: rgba, width: side, height: side, quality: 100, method: 4, lossless: true))
    }

    /// The app's region (Vision: origin bottom left) in one corner: that corner of the published
    /// texture is blurred, the opposite one keeps its detail.
    @Test func theBottomLeftCornerTheAppBoxedIsBlurredInThePublishedTexture() throws {
        let f = try JobFixture()
        let version = UUID().uuidString.lowercased()
        let dir = "rooms/\(f.roomId)/versions/\(version)/"
        let usdz = [UInt8](try Data(contentsOf: Self.sampleRoot.appendingPathComponent("textured_box.usdz")))
        try f.files.put(dir + "scan.usdz", bytes: usdz, contentType: "model/vnd.usdz+zip")
        let sharp = try Self.sharpTexture(side: 256)
        try f.files.put(dir + "blurred/albedo.png", bytes: sharp, contentType: "image/webp")
        try f.store.submit(versionId: version, roomId: f.roomId, roomName: nil, usdzKey: dir + "scan.usdz", jsonKey: nil)
        // Posted as the app encodes a CGRect: [[x, y], [w, h]], bottom-left origin.
        try f.store.connection.query("SELECT transcode_add_redactions($1::uuid, $2::jsonb)", [version,
            #"[{"textureRef":"textures/albedo.png","kind":"manual","region":[[0,0],[0.25,0.25]],"method":"gaussian_blur_r18","redactedPath":"\#(dir)blurred/albedo.png"}]"#])
        let job = try f.claim()
        #expect(f.runner().run(job, control: JobControl()) == .ready(outputPrefix: job.outputPrefix))
        let glb = try f.files.get(job.outputPrefix + "model.glb", maxBytes: 1 << 26)
        let published = try #require(try TextureReencodeTests.embeddedImages(glb).first)
        let corners = [TextureRedactor.Area(x: 0, y: 0, width: 0.25, height: 0.25, fromBottom: true),
                       TextureRedactor.Area(x: 0, y: 0.75, width: 0.25, height: 0.25, fromBottom: true),
                       TextureRedactor.Area(x: 0.75, y: 0.75, width: 0.25, height: 0.25, fromBottom: true)]
        let before = try TextureRedactor.measure(sharp, areas: corners)
        let after = try TextureRedactor.measure(published, areas: corners)
        #expect(before.ratio.allSatisfy { $0 > 0.5 }, "\(before.ratio)")
        #expect(after.ratio[0] < 0.05, "the boxed bottom-left corner keeps detail: \(after.ratio[0])")
        #expect(after.ratio[1] > 0.5 && after.ratio[2] > 0.5, "another corner was blurred: \(after.ratio)")
        let applied = (try manifest(f, job)["redactions"] as? [[String: Any]])?.first?["applied"] as? [[String: Any]]
        #expect(applied?.first?["methods"] as? [String] == ["app_replacement", "server_blur"])
        // The owner's privacy detail: a crop of the published texture beside the upload, never
        // among the public outputs, and what was applied, on the row.
        let row = try #require(try f.store.connection.query("""
            SELECT id::text AS id, array_to_string(applied_methods, ',') AS methods, crop_path FROM redactions WHERE room_version_id = $1::uuid
            """, [version]).first)
        #expect(row["methods"] == "app_replacement,server_blur")
        let crop = try #require(row["crop_path"])
        #expect(crop == dir + "privacy/\(row["id"] ?? "").webp")
        #expect(!crop.hasPrefix(job.outputPrefix))
        let cropBytes = try f.files.get(crop, maxBytes: 1 << 20)
        #expect(Array(cropBytes[8..<12]) == Array("WEBP".utf8))
        #expect(try TextureRedactor.measure(cropBytes, areas: [.init(x: 0.2, y: 0.2, width: 0.6, height: 0.6, fromBottom: false)]).ratio[0] < 0.2,
                "the crop shows the blurred area")
        #expect(try f.files.list(prefix: job.outputPrefix).allSatisfy { !$0.contains("privacy") })
    }

    @Test func legacyRowsStillReadThroughTexturePath() throws {
        let f = try JobFixture()
        let v = try version(f, blurred: true)
        try f.store.connection.query("INSERT INTO redactions (room_version_id, texture_path, redacted_path) VALUES ($1::uuid, $2, $3)",
                                     [v.id, "textures/albedo.png", v.dir + "blurred/albedo.png"])
        let rows = try f.store.redactions(versionId: v.id)
        #expect(rows.map(\.texturePath) == ["textures/albedo.png"])
        #expect(rows.map(\.storageKey) == [v.dir + "blurred/albedo.png"])
        let job = try f.claim()
        #expect(f.runner().run(job, control: JobControl()) == .ready(outputPrefix: job.outputPrefix))
        let redactions = try manifest(f, job)["redactions"] as? [[String: Any]] ?? []
        #expect(redactions.map { ($0["regions"] as? NSNumber)?.intValue } == [1])
    }

    @Test func databaseRefusesBadKindRegionAndUnnamedTexture() throws {
        let f = try JobFixture()
        let v = try version(f, blurred: false)
        func refused(_ body: () throws -> Void) -> String? {
            do { try body(); return nil } catch let e as DatabaseError { return e.sqlState } catch { return "\(error)" }
        }
        // 23514: check_violation.
        #expect(refused { try insert(f, v.id, kind: "blur", redacted: nil) } == "23514")
        #expect(refused { try insert(f, v.id, kind: "Face", redacted: nil) } == "23514")
        #expect(refused { try insert(f, v.id, region: #"{"x":1.5,"y":0,"w":0.6,"h":0.1}"#, redacted: nil) } == "23514")
        #expect(refused { try insert(f, v.id, region: #"[[0.2,0.2],[0,0.1]]"#, redacted: nil) } == "23514")
        #expect(refused { try insert(f, v.id, region: #"{"x":"0.5","y":0,"w":0.1,"h":0.1}"#, redacted: nil) } == "23514")
        #expect(refused { try insert(f, v.id, region: #"{"x":0.5,"y":0,"w":0.1}"#, redacted: nil) } == "23514")
        #expect(refused { try insert(f, v.id, region: #"[0,0,1,1]"#, redacted: nil) } == "23514")
        #expect(refused {
            try f.store.connection.query("INSERT INTO redactions (room_version_id, kind) VALUES ($1::uuid, 'face')", [v.id])
        } == "23514")
        // Allowed: both kinds, and no kind or region at all.
        #expect(refused { try insert(f, v.id, kind: "manual", redacted: nil) } == nil)
        #expect(refused { try insert(f, v.id, kind: nil, region: nil, redacted: nil) } == nil)
        #expect(try f.store.redactions(versionId: v.id).count == 2)
    }

    @Test func twoReplacementsForOneTextureFailPermanently() throws {
        let f = try JobFixture()
        let v = try version(f, blurred: true)
        try insert(f, v.id, redacted: v.dir + "blurred/albedo.png")
        try insert(f, v.id, redacted: v.dir + "blurred/other.png")
        let job = try f.claim()
        #expect(f.runner().run(job, control: JobControl()) == .failed(reason: "REDACTION_INVALID"))
        let row = try f.row(v.id)
        #expect(row["status"] == "failed")
        #expect(row["last_error_code"] == "REDACTION_INVALID")
    }
}
