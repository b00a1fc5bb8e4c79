import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import ObjectStorage
@testable import WorkerRuntime
@testable import WorkerCore

/// The worker reads each output of a job's child once, into a copy only it can reach, and checks
/// and uploads that copy: a file swapped in `out/` after the check is never published, every kind
/// it publishes has its structure checked, and the copies are counted against a budget.
@Suite("Output intake")
struct OutputIntakeTests {
    typealias Fixture = ChildOutputValidationTests.Fixture

    /// The held bytes of `path`.
    static func held(_ intake: OutputIntake, _ path: String) throws -> [UInt8] {
        try #require(intake.bytes(path, maxBytes: 1 << 20))
    }

    @Test("a file swapped in out/ after the check is not what is uploaded")
    func swapAfterTheCheck() throws {
        let f = try Fixture()
        let o = try f.outputs()
        defer { o.close() }
        let intake = try o.validate(f.files, phase: .preview)
        let checked = OutputSamples.glb()
        // The attack: the child (or anything else that can write out/) replaces the checked model
        // with another of the same size, by rename and in place.
        var evil = checked
        evil[evil.count - 1] = 0x41
        try Data(evil).write(to: URL(fileURLWithPath: f.out + "/model.glb.new"))
        #expect(rename(f.out + "/model.glb.new", f.out + "/model.glb") == 0)
        #expect(try Self.held(intake, "model.glb") == checked)
        #expect(intake.source("model.glb")?.sha256 == Digest.hex(Digest.sha256(checked)))

        // What an upload sends is the held copy: a file store given the source writes those bytes.
        let root = NSTemporaryDirectory() + "intake-store-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: root) }
        let store = try FileObjectStore(root: root)
        try store.put("out/model.glb", source: try #require(intake.source("model.glb")), contentType: "model/gltf-binary",
                      cacheControl: nil)
        #expect(try store.get("out/model.glb", maxBytes: 1 << 20) == checked)
    }

    @Test("the held copies live in no file the child could name, and close with the intake")
    func heldCopiesAreUnnamed() throws {
        let f = try Fixture()
        let o = try f.outputs()
        defer { o.close() }
        let intake = try o.validate(f.files, phase: .preview)
        let source = try #require(intake.source("thumbs/hero.webp"))
        var info = stat()
        #expect(fstat(source.fd, &info) == 0)
        #expect(info.st_nlink == 0, "the held copy has a name")
        #expect(info.st_mode & 0o077 == 0)
        let names = try FileManager.default.contentsOfDirectory(atPath: f.ws.root)
        #expect(!names.contains { $0.hasPrefix(".intake") })
        intake.close()
        #expect(fcntl(source.fd, F_GETFD) == -1, "a held descriptor stayed open")
    }

    @Test("a report whose hash is not the file's is refused")
    func falseHash() throws {
        let f = try Fixture()
        let lying = f.files.map { $0.path == "model.glb" ? ChildMessage.File(path: $0.path, bytes: $0.bytes, sha256: String(repeating: "0", count: 64)) : $0 }
        let refusal = f.refusal(lying)
        #expect(ChildOutputValidationTests.isViolation(refusal))
        #expect(refusal?.message.contains("SHA-256") == true)
    }

    @Test("outputs over the intake's budget are refused")
    func budget() throws {
        let intake = OutputIntake(directory: NSTemporaryDirectory(), budget: 100)
        let path = NSTemporaryDirectory() + "intake-budget-" + UUID().uuidString
        defer { unlink(path) }
        try Data(repeating: 1, count: 150).write(to: URL(fileURLWithPath: path))
        let fd = open(path, O_RDONLY)
        defer { close(fd) }
        #expect(throws: OutputIntake.Failure.violation("the outputs exceed the job's disk budget of 100 bytes")) {
            try intake.take("model.glb", from: fd, size: 150)
        }
        #expect(intake.used == 0)
    }

    @Test("glb structure: a cut file, false lengths and views past their buffer are refused")
    func glbStructure() throws {
        let good = OutputSamples.glb()
        #expect(Self.glbProblem(good) == nil)
        var wrongLength = good
        wrongLength[8] &+= 4
        var notGLB = good
        notGLB[0] = UInt8(ascii: "x")
        let broken: [(String, [UInt8])] = [
            ("cut", Array(good.dropLast(4))),
            ("header length", wrongLength),
            ("magic", notGLB),
            ("view past its buffer", OutputSamples.glb(binBytes: 16, viewLength: 20)),
            ("buffer past the BIN chunk", Array(String(decoding: good, as: UTF8.self)
                .replacingOccurrences(of: #""byteLength":16}],"bufferViews""#, with: #""byteLength":99}],"bufferViews""#).utf8)),
        ]
        for (what, bytes) in broken { #expect(Self.glbProblem(bytes) != nil, "\(what) accepted") }
        let f = try Fixture()
        try f.put("model.glb", OutputSamples.glb(binBytes: 16, viewLength: 20))
        #expect(ChildOutputValidationTests.isViolation(f.refusal()))
    }

    @Test("WebP structure: the RIFF length, the frame header and the reported size")
    func webpStructure() throws {
        let good = OutputSamples.webp(width: 4, height: 3)
        #expect(Self.webpProblem(good, dimensions: (4, 3)) == nil)
        var riff = good
        riff[4] &+= 2
        var frame = good
        frame[20] = 0
        #expect(Self.webpProblem(riff, dimensions: nil) != nil)
        #expect(Self.webpProblem(frame, dimensions: nil) != nil)
        #expect(Self.webpProblem(Array(good.prefix(12)), dimensions: nil) != nil)
        #expect(Self.webpProblem(good, dimensions: (1320, 990)) != nil)
        // Through the checks, with the size the child's summary states.
        let f = try Fixture()
        let o = try f.outputs()
        defer { o.close() }
        var expected = OutputStructure.Expectations()
        expected.imageSizes["thumbs/hero.webp"] = (8, 8)
        #expect(throws: FailureReason.self) { try o.validate(f.files, expected: expected, phase: .preview) }
    }

    @Test("the manifest: every member the schema requires, and the version the child reported")
    func manifestStructure() throws {
        let schemaURL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("schemas/layer_manifest.schema.json")
        let schema = try JSONSerialization.jsonObject(with: Data(contentsOf: schemaURL)) as? [String: Any]
        #expect(schema?["required"] as? [String] == OutputStructure.manifestRequired)

        let expected = OutputStructure.Expectations(manifestSchemaVersion: 7, versionId: "v", roomId: "r")
        #expect(OutputStructure.manifestProblem(OutputSamples.manifest(), expected: expected) == nil)
        #expect(OutputStructure.manifestProblem(OutputSamples.manifest(schemaVersion: 6), expected: expected) != nil)
        #expect(OutputStructure.manifestProblem(OutputSamples.manifest(versionId: "other"), expected: expected) != nil)
        #expect(OutputStructure.manifestProblem(Array("[1]".utf8), expected: expected) != nil)
        let missing = String(decoding: OutputSamples.manifest(), as: UTF8.self).replacingOccurrences(of: #""stats":null"#, with: #""x":null"#)
        #expect(OutputStructure.manifestProblem(Array(missing.utf8), expected: expected)?.contains("stats") == true)
    }

    static func glbProblem(_ bytes: [UInt8]) -> String? {
        OutputStructure.glbProblem(size: bytes.count) { offset, count in
            offset + count <= bytes.count ? Array(bytes[offset..<(offset + count)]) : nil
        }
    }

    static func webpProblem(_ bytes: [UInt8], dimensions: (Int, Int)?) -> String? {
        OutputStructure.webpProblem(size: bytes.count, dimensions: dimensions) { offset, count in
            offset + count <= bytes.count ? Array(bytes[offset..<(offset + count)]) : nil
        }
    }

    @Test("what the child holds on disk is measured without following links, and bounded")
    func workspaceUsage() throws {
        let ws = try JobWorkspace()
        defer { ws.remove() }
        #expect(WorkspaceUsage.bytes(below: [ws.outputDirectory, ws.tempDirectory]).map { $0 < 4096 * 4 } == true)
        try Data(repeating: 7, count: 3 << 20).write(to: URL(fileURLWithPath: ws.tempDirectory + "/big"))
        #expect(symlink("/usr", ws.outputDirectory + "/usr") == 0)
        let used = try #require(WorkspaceUsage.bytes(below: [ws.outputDirectory, ws.tempDirectory]))
        #expect(used >= 3 << 20 && used < 4 << 20)
        // Deeper than the walk goes: over any budget.
        var path = ws.tempDirectory
        for _ in 0...WorkspaceUsage.maxDepth { path += "/d"; mkdir(path, 0o700) }
        #expect(WorkspaceUsage.bytes(below: [ws.tempDirectory]) == nil)
    }
}
