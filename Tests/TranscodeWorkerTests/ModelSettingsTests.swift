import Foundation
import Testing
@testable import ObjectStorage
@testable import WorkerRuntime
import TestSupport

/// `TRANSCODE_GLB_COMPRESSION` and `TRANSCODE_TEXTURE_FORMAT`: a deployment whose clients cannot
/// decode meshopt (or WebP) turns them off for every model its workers write.
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
            c.glbCompression = "none"
            c.textureFormat = "original"
        }
        let model = manifest["glb"] as? [String: Any]
        #expect(model?["compression"] as? String == "none")
        #expect((model?["extensions_required"] as? [String]) == [])
        #expect(glb["extensionsRequired"] == nil && (glb["extensionsUsed"] as? [String] ?? []).isEmpty)
    }

    @Test func unknownValuesAreRefusedNotDefaulted() throws {
        for (name, value) in [("TRANSCODE_GLB_COMPRESSION", "draco"), ("TRANSCODE_TEXTURE_FORMAT", "ktx2")] {
            #expect(throws: UsageError.self) { try WorkerConfig(environment: [name: value]).validate() }
        }
        let config = WorkerConfig(environment: ["TRANSCODE_GLB_COMPRESSION": "none", "TRANSCODE_TEXTURE_FORMAT": "original"])
        #expect(config.glbCompression == "none" && config.textureFormat == "original")
    }
}
