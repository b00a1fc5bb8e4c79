import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import TranscodeWorker
@testable import ObjectStorage
@testable import WorkerRuntime
@testable import WorkerCore
@testable import JobPipeline
import Thumbnailer

/// What the worker accepts from a job child's `done` report: a hostile child's tricks are refused
/// with `CHILD_PROTOCOL` (permanent) before anything is read for upload.
@Suite("Child output validation")
struct ChildOutputValidationTests {
    typealias Outputs = JobAttempt.ChildOutputs

    /// A workspace whose `out/` holds a valid set of outputs.
    final class Fixture {
        let ws: JobWorkspace
        let outside: String
        var files: [ChildMessage.File] = []

        init() throws {
            ws = try JobWorkspace()
            outside = NSTemporaryDirectory() + "outside-" + UUID().uuidString
            try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
            _ = FileManager.default.createFile(atPath: outside + "/secret", contents: Data("top secret".utf8))
            try put("model.glb", OutputSamples.glb())
            try put("thumbs/hero.webp", OutputSamples.webp())
            try put("layer_manifest.json", OutputSamples.manifest())
        }

        deinit {
            ws.remove()
            try? FileManager.default.removeItem(atPath: outside)
        }

        var out: String { ws.outputDirectory }

        func put(_ path: String, _ bytes: [UInt8]) throws {
            let full = out + "/" + path
            try FileManager.default.createDirectory(atPath: (full as NSString).deletingLastPathComponent,
                                                    withIntermediateDirectories: true)
            try Data(bytes).write(to: URL(fileURLWithPath: full))
            files.removeAll { $0.path == path }
            files.append(ChildMessage.File(path: path, bytes: bytes.count, sha256: Digest.hex(Digest.sha256(bytes))))
        }

        /// The reader with per-file and total caps.
        func outputs(file: Int = 1 << 20, total: Int = 2 << 20) throws(FailureReason) -> Outputs {
            try Outputs(ws, maxFileBytes: file, maxTotalBytes: total, phase: .preview)
        }

        /// Validates the reported files; returns the failure (nil when accepted).
        func refusal(_ files: [ChildMessage.File]? = nil, file: Int = 1 << 20, total: Int = 2 << 20) -> FailureReason? {
            do {
                let o = try outputs(file: file, total: total)
                defer { o.close() }
                try o.validate(files ?? self.files, phase: .preview)
                return nil
            } catch {
                return error
            }
        }
    }

    /// A refusal with the stable code, permanent.
    static func isViolation(_ f: FailureReason?) -> Bool {
        guard let f else { return false }
        return f.reason == FailureReason.internal && f.message.hasPrefix("CHILD_PROTOCOL: ") && !f.isRetryable
    }

    @Test("a valid set is accepted and read back")
    func validSet() throws {
        let f = try Fixture()
        #expect(f.refusal() == nil)
        let o = try f.outputs()
        defer { o.close() }
        #expect(try o.read("thumbs/hero.webp", phase: .uploadingOutputs) == OutputSamples.webp())
    }

    @Test("a symbolic link in out/ pointing outside is refused, as a file or a directory")
    func symlinks() throws {
        let f = try Fixture()
        unlink(f.out + "/model.glb")
        #expect(symlink(f.outside + "/secret", f.out + "/model.glb") == 0)
        #expect(Self.isViolation(f.refusal()))

        let g = try Fixture()
        try FileManager.default.removeItem(atPath: g.out + "/thumbs")
        _ = FileManager.default.createFile(atPath: g.outside + "/hero.webp", contents: Data("RIFF-webp".utf8))
        #expect(symlink(g.outside, g.out + "/thumbs") == 0)
        let refusal = g.refusal()
        #expect(Self.isViolation(refusal))
        #expect(refusal?.message.contains("symbolic link") == true)
        // Reading for upload refuses it the same way.
        let o = try g.outputs()
        defer { o.close() }
        #expect(throws: FailureReason.self) { try o.read("thumbs/hero.webp", phase: .uploadingOutputs) }
    }

    @Test("out/ itself replaced by a link is refused")
    func replacedOutputDirectory() throws {
        let f = try Fixture()
        try FileManager.default.removeItem(atPath: f.out)
        #expect(symlink(f.outside, f.out) == 0)
        #expect(Self.isViolation(f.refusal()))
    }

    @Test("paths that leave out/ are refused: ../x, absolute, empty components")
    func escapingPaths() throws {
        let f = try Fixture()
        for path in ["../x", "thumbs/../../secret", "/etc/passwd", "thumbs//hero.webp", "./model.glb", "", "model.glb\u{0}x"] {
            let files = f.files + [ChildMessage.File(path: path, bytes: 1, sha256: "00")]
            let refusal = f.refusal(files)
            #expect(Self.isViolation(refusal), "\(path) was not refused")
        }
    }

    @Test("a FIFO is refused without blocking")
    func fifo() throws {
        let f = try Fixture()
        unlink(f.out + "/thumbs/hero.webp")
        #expect(mkfifo(f.out + "/thumbs/hero.webp", 0o600) == 0)
        let refusal = f.refusal()
        #expect(Self.isViolation(refusal))
        #expect(refusal?.message.contains("not a regular file") == true)
    }

    @Test("a hard link to another file is refused")
    func hardLink() throws {
        let f = try Fixture()
        unlink(f.out + "/model.glb")
        #expect(link(f.outside + "/secret", f.out + "/model.glb") == 0)
        let refusal = f.refusal(f.files.map { $0.path == "model.glb" ? ChildMessage.File(path: $0.path, bytes: 10, sha256: "") : $0 })
        #expect(Self.isViolation(refusal))
        #expect(refusal?.message.contains("links") == true)
    }

    @Test("files over the cap, alone or in total, are refused; so are false sizes")
    func caps() throws {
        let f = try Fixture()
        try f.put("model.glb", OutputSamples.glb(jsonBytes: 4900))
        #expect(Self.isViolation(f.refusal(file: 4096)))
        #expect(Self.isViolation(f.refusal(file: 8192, total: 5010)))
        #expect(f.refusal(file: 8192, total: 1 << 20) == nil)
        // Reported smaller than it is: caught by the size check before any upload.
        let lying = f.files.map { $0.path == "model.glb" ? ChildMessage.File(path: $0.path, bytes: 10, sha256: $0.sha256) : $0 }
        #expect(Self.isViolation(f.refusal(lying)))
        // Read with a cap smaller than the file.
        let o = try f.outputs(file: 4096)
        defer { o.close() }
        #expect(throws: FailureReason.self) { try o.read("model.glb", phase: .uploadingOutputs) }
    }

    @Test("names the pipeline does not write, and duplicates, are refused")
    func unexpectedNames() throws {
        let f = try Fixture()
        try f.put("secrets.txt", Array("x".utf8))
        #expect(Self.isViolation(f.refusal()))
        let g = try Fixture()
        try g.put("thumbs/Hero.webp", Array("x".utf8))
        #expect(Self.isViolation(g.refusal()))
        let h = try Fixture()
        #expect(Self.isViolation(h.refusal(h.files + [h.files[0]])))
        for ok in ["model.glb", "layer_manifest.json", "thumbs/orbit-07.webp", "thumbs/plan.webp", "thumbs/card.webp", "report.html"] {
            #expect(Outputs.isAllowedName(ok))
        }
        for bad in ["thumbs/hero.png", "thumbs/-x.webp", "thumbs/a/b.webp", "report.htm", "reports/report.html", "model.glb.partial-1"] {
            #expect(!Outputs.isAllowedName(bad))
        }
    }

    /// The renderer names its files in Thumbnailer, which cannot see `OutputName`; the daemon
    /// admits them by `OutputName`'s folder and pattern. Every name it writes is admitted, and its
    /// plan thumbnail is the one the plan stage writes.
    @Test("every thumbnail the renderer names is one the daemon admits")
    func rendererNamesAreAdmitted() throws {
        var input = try ConvertTests().input(usd: "samples/roomplan/parametric_two_sections.usdz",
                                             json: "samples/roomplan/parametric_two_sections.json")
        var options = ThumbnailOptions()
        options.sizes.hero = ThumbnailSize(width: 64, height: 48)
        options.sizes.card = ThumbnailSize(width: 64, height: 48)
        options.sizes.cardSmall = ThumbnailSize(width: 32, height: 24)
        options.sizes.orbit = ThumbnailSize(width: 64, height: 48)
        options.sizes.plan = ThumbnailSize(width: 64, height: 64)
        input.thumbnails = options
        input.plan = nil
        let paths = try TranscodePipeline.run(input).files.map(\.path).filter { $0.hasSuffix(".webp") }
        #expect(paths.count == 12)
        #expect(paths.contains(OutputName.planThumbnail))
        let rooms = (0..<16).map(Thumbnailer.roomCardPath)
        for path in paths + rooms {
            #expect(path.hasPrefix(OutputName.thumbnailFolder) && Outputs.isAllowedName(path), "\(path)")
        }
    }

    @Test("a missing file stays a retryable failure with the same code")
    func missingFile() throws {
        let f = try Fixture()
        unlink(f.out + "/model.glb")
        let refusal = try #require(f.refusal())
        #expect(refusal.message.hasPrefix("CHILD_PROTOCOL: cannot read the output model.glb"))
        #expect(refusal.isRetryable)
    }
}
