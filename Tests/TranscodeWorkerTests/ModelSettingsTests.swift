import Foundation
import Testing
@testable import ObjectStorage
@testable import WorkerRuntime
@testable import PGQueue
import TestSupport
@testable import WorkerCore

/// `TRANSCODE_GLB_COMPRESSION` and `TRANSCODE_TEXTURE_FORMAT`: a deployment whose clients cannot
/// decode meshopt (or WebP) turns them off for every model its workers write; and
/// `TRANSCODE_ORBIT_SIZE`, the orbit frames' size.
@Suite("Model settings of a worker", .enabled(if: postgresConfigured))
struct ModelSettingsTests {
    /// The published model and manifest of one job run with `configure` applied.
    func run(_ configure: (inout WorkerConfig) -> Void) throws -> (glb: [String: Any], manifest: [String: Any]) {
        let f = try JobFixture()
        configure(&f.config)
        _ = try f.submitSample()
        let job = try f.claim()
        #expect(f.runner().run(job, control: JobControl()) == .ready(outputPrefix: job.outputPrefix))
        let glb = try f.files.get(job.outputPrefix + "model.glb", maxBytes: 1 << 26)
        let jsonLength = Int(glb[12]) | Int(glb[13]) << 8 | Int(glb[14]) << 16 | Int(glb[15]) << 24
        let document = try JSONSerialization.jsonObject(with: Data(glb[20..<(20 + jsonLength)])) as? [String: Any]
        let manifest = try JSONSerialization.jsonObject(
            with: Data(try f.files.get(job.outputPrefix + "layer_manifest.json", maxBytes: 1 << 24))) as? [String: Any]
        return (try #require(document), try #require(manifest))
    }

    @Test func theDefaultModelIsMeshoptCompressed() throws {
        let (glb, manifest) = try run { _ in }
        let model = manifest["glb"] as? [String: Any]
        #expect(model?["compression"] as? String == "meshopt")
        #expect((glb["extensionsRequired"] as? [String])?.contains("EXT_meshopt_compression") == true)
    }

    @Test func compressionOffWritesAPlainModelAndSaysSo() throws {
        let (glb, manifest) = try run { c in
            c.job.glbCompression = .none
            c.job.textureFormat = .original
        }
        let model = manifest["glb"] as? [String: Any]
        #expect(model?["compression"] as? String == "none")
        #expect((model?["extensions_required"] as? [String]) == [])
        #expect(glb["extensionsRequired"] == nil && (glb["extensionsUsed"] as? [String] ?? []).isEmpty)
    }

    /// `TRANSCODE_ORBIT_SIZE` reaches the job's child: every orbit frame it publishes has that size.
    @Test func theOrbitSizeReachesEveryPublishedOrbitFrame() throws {
        let (_, manifest) = try run { c in c.job.orbitSize = .init(width: 96, height: 72) }
        let thumbnails = try #require(manifest["thumbnails"] as? [[String: Any]])
        let orbit = thumbnails.filter { $0["kind"] as? String == "orbit" }
        #expect(orbit.count == 8)
        #expect(orbit.allSatisfy { $0["width"] as? Int == 96 && $0["height"] as? Int == 72 })
        let hero = thumbnails.first { $0["kind"] as? String == "hero" }
        #expect(hero?["width"] as? Int == 1320 && hero?["height"] as? Int == 990)
    }

    /// `TRANSCODE_CARD_SIZE` reaches the job's child: the card and the hero have that size, the
    /// small card half of it.
    @Test func theCardSizeReachesTheCardsAndTheHero() throws {
        let (_, manifest) = try run { c in c.job.cardSize = .init(width: 120, height: 90) }
        let thumbnails = try #require(manifest["thumbnails"] as? [[String: Any]])
        func size(_ kind: String) -> [Int?] {
            let t = thumbnails.first { $0["kind"] as? String == kind }
            return [t?["width"] as? Int, t?["height"] as? Int]
        }
        #expect(size("card") == [120, 90] && size("hero") == [120, 90] && size("card_small") == [60, 45])
        let orbit = thumbnails.filter { $0["kind"] as? String == "orbit" }
        #expect(orbit.count == 8 && orbit.allSatisfy { $0["width"] as? Int == 1320 })
    }

    @Test func unknownValuesAreRefusedNotDefaulted() throws {
        for (name, value) in [("TRANSCODE_GLB_COMPRESSION", "draco"), ("TRANSCODE_TEXTURE_FORMAT", "ktx2")] {
            #expect(throws: UsageError.self) { try WorkerConfig(environment: [name: value]).validate() }
        }
        let config = WorkerConfig(environment: ["TRANSCODE_GLB_COMPRESSION": "none", "TRANSCODE_TEXTURE_FORMAT": "original"])
        #expect(config.job.glbCompression == .none && config.job.textureFormat == .original)
    }
}

/// `room_versions.plan_units` / `plan_locale` (migration 11) choose the plan's labelling per
/// version; `TRANSCODE_PLAN_UNITS` / `TRANSCODE_PLAN_LOCALE` when they are NULL.
@Suite("Plan options per version", .enabled(if: postgresConfigured))
struct PlanOptionsPerVersionTests {
    static let setOptionsSQL = "UPDATE transcode_private.room_versions SET plan_units = $2, plan_locale = $3 WHERE id = $1::uuid"

    func manifest(units: String?, locale: String?, configure: (inout WorkerConfig) -> Void = { _ in }) throws -> [String: Any] {
        let f = try JobFixture()
        configure(&f.config)
        let version = try f.submitSample()
        _ = try f.db.connect().query(Self.setOptionsSQL, [version, units, locale])
        let job = try f.claim()
        #expect(f.runner().run(job, control: JobControl()) == .ready(outputPrefix: job.outputPrefix))
        let keys = try f.files.list(prefix: job.outputPrefix)
        for name in ["plan.svg", "plan.pdf", "plan.dxf"] { #expect(keys.contains(job.outputPrefix + name), "\(name) published") }
        let data = Data(try f.files.get(job.outputPrefix + "layer_manifest.json", maxBytes: 1 << 24))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func theVersionsOwnOptionsWin() throws {
        let m = try manifest(units: "imperial", locale: "zh-Hans")
        let plan = m["plan"] as? [String: Any]
        #expect(plan?["units"] as? String == "imperial" && plan?["locale"] as? String == "zh-Hans")
        #expect((m["rooms"] as? [[String: Any]])?.compactMap { $0["name"] as? String }.sorted() == ["客厅", "餐厅"].sorted())
    }

    @Test func nullTakesTheWorkersDefaults() throws {
        let m = try manifest(units: nil, locale: nil) { c in c.job.planUnits = .imperial }
        let plan = m["plan"] as? [String: Any]
        #expect(plan?["units"] as? String == "imperial" && plan?["locale"] as? String == "en")
    }

    @Test func valuesOutsideTheListAreRefusedByTheDatabase() throws {
        let f = try JobFixture()
        let version = try f.submitSample()
        let c = try f.db.connect()
        for (units, locale) in [("furlongs", "en"), ("metric", "de"), ("metric; DROP TABLE rooms", "en")] {
            #expect(throws: DatabaseError.self) { _ = try c.query(Self.setOptionsSQL, [version, units, locale]) }
        }
        // A value the database would refuse never reaches the child: the worker's default stays.
        let options = WorkerConfig(environment: [:]).job
        #expect(options.applyingRow(planUnits: "furlongs", planLocale: "de") == options)
        #expect(options.applyingRow(planUnits: "imperial", planLocale: nil).planUnits == .imperial)
        #expect(throws: UsageError.self) { try WorkerConfig(environment: ["TRANSCODE_PLAN_LOCALE": "fr"]).validate() }
    }
}
