import Foundation
import Testing
@testable import TranscodeWorker
@testable import ObjectStorage
@testable import WorkerRuntime
import TestSupport
@testable import WorkerCore
@testable import JobPipeline
import SourceFiles

/// The pack in which the worker hands a reprocess's child the previous revision
/// (`PreviousPack`): what is written is read back, and a pack that breaks a rule is refused whole.
@Suite struct PreviousPackTests {
    static let entries: [(name: String, bytes: [UInt8])] = [
        ("layer_manifest.json", Array(#"{"schema_version":5}"#.utf8)),
        ("thumbs/hero.webp", Array("RIFF....WEBP".utf8)),
        ("plan.svg", []),
        ("plan.dxf", Array(repeating: 0x41, count: 300)),
    ]

    static func decode(_ pack: [UInt8], maxEntryBytes: Int = 1 << 20) -> [String: [UInt8]]? {
        pack.withUnsafeBytes { PreviousPack.decode($0, maxEntryBytes: maxEntryBytes) }
    }

    /// A pack with one entry written by hand: `count`, name bytes, declared length, data.
    static func raw(count: UInt32 = 1, name: [UInt8], length: UInt64? = nil, data: [UInt8] = [1, 2]) -> [UInt8] {
        var out = Array("CRPACK1\n".utf8)
        for i in 0..<4 { out.append(UInt8(truncatingIfNeeded: count >> (8 * UInt32(i)))) }
        for i in 0..<2 { out.append(UInt8(truncatingIfNeeded: name.count >> (8 * i))) }
        out += name
        let n = length ?? UInt64(data.count)
        for i in 0..<8 { out.append(UInt8(truncatingIfNeeded: n >> (8 * UInt64(i)))) }
        return out + data
    }

    @Test func whatIsWrittenIsReadBack() throws {
        let pack = try #require(PreviousPack.encode(Self.entries))
        let back = try #require(Self.decode(pack))
        #expect(back.count == Self.entries.count)
        for e in Self.entries { #expect(back[e.name] == e.bytes, "\(e.name)") }
        #expect(Self.decode(try #require(PreviousPack.encode([]))) == [:])
        // Deterministic: the same entries give the same bytes.
        #expect(PreviousPack.encode(Self.entries) == pack)
    }

    @Test func everyCutPackIsRefused() throws {
        let pack = try #require(PreviousPack.encode(Self.entries))
        for n in 0..<pack.count { #expect(Self.decode(Array(pack.prefix(n))) == nil, "a pack cut at \(n) was accepted") }
        #expect(Self.decode(pack + [0]) == nil, "a byte after the last entry was accepted")
    }

    @Test func hostilePacksAreRefused() throws {
        var pack = try #require(PreviousPack.encode(Self.entries))
        pack[0] = UInt8(ascii: "X")
        #expect(Self.decode(pack) == nil, "another magic")
        #expect(Self.decode(Self.raw(name: Array("plan.svg".utf8))) != nil, "the hand-written pack itself is good")
        #expect(Self.decode(Self.raw(count: UInt32(PreviousPack.maxEntries + 1), name: Array("plan.svg".utf8))) == nil)
        #expect(Self.decode(Self.raw(count: .max, name: Array("plan.svg".utf8))) == nil)
        for name in ["", "../secret", "/etc/passwd", "thumbs//a.webp", "thumbs/./a.webp", "a/", "a\u{0}b",
                     String(repeating: "n", count: PreviousPack.maxNameBytes + 1)] {
            #expect(Self.decode(Self.raw(name: Array(name.utf8))) == nil, "the name '\(name.prefix(40))' was accepted")
        }
        #expect(Self.decode(Self.raw(name: [0x70, 0xFF, 0xFE])) == nil, "a name that is not UTF-8")
        // A length beyond the end, beyond the entry cap, or near 2^64.
        #expect(Self.decode(Self.raw(name: Array("a".utf8), length: 3)) == nil)
        #expect(Self.decode(Self.raw(name: Array("a".utf8), length: .max)) == nil)
        #expect(Self.decode(Self.raw(name: Array("a".utf8), data: [1, 2, 3]), maxEntryBytes: 2) == nil)
        // The same name twice.
        var twice = Self.raw(count: 2, name: Array("a".utf8))
        twice += Array(Self.raw(name: Array("a".utf8)).dropFirst(12))
        #expect(Self.decode(twice) == nil)
        // The writer refuses what the reader would.
        #expect(PreviousPack.encode([("a", []), ("a", [])]) == nil)
        #expect(PreviousPack.encode([("../a", [])]) == nil)
        #expect(PreviousPack.encode((0...PreviousPack.maxEntries).map { ("f\($0)", []) }) == nil)
    }
}

/// A reprocess's child with a pack: the files it takes from it are reported, not written; what
/// the worker accepts of a child that claims reuse.
@Suite struct PreviousPackChildTests {
    typealias Outputs = JobAttempt.ChildOutputs
    static let cli = CommandLineToolTests()

    /// Runs `job-exec` on the sample into `out`; returns its done line's files and reused paths.
    static func jobExec(out: String, previous: String? = nil) throws -> (files: [ChildMessage.File], reused: [String]) {
        var args = ["job-exec", "--out", out, "--usd", "samples/roomplan/parametric_two_sections.usdz",
                    "--roomplan", "samples/roomplan/parametric_two_sections.json",
                    "--version-id", "00000000-0000-0000-0000-000000000001", "--room-id", "00000000-0000-0000-0000-000000000002"]
        if let previous { args += ["--previous", previous] }
        let run = try cli.run(args)
        #expect(run.status == 0, "\(run.stdout) \(run.stderr)")
        let last = try #require(run.stdout.split(separator: "\n").last.map(String.init))
        guard case .done(let files, let summary)? = ChildMessage(line: last) else {
            Issue.record("no done line: \(last)")
            return ([], [])
        }
        return (files, summary?.reused ?? [])
    }

    /// Every file below `dir`, relative.
    static func written(_ dir: String) -> Set<String> {
        Set((FileManager.default.enumerator(atPath: dir)?.allObjects as? [String] ?? []).filter { name in
            var isDir: ObjCBool = false
            return FileManager.default.fileExists(atPath: dir + "/" + name, isDirectory: &isDir) && !isDir.boolValue
        })
    }

    @Test(.enabled(if: CommandLineToolTests.binary != nil, "the transcode-worker executable is not built"))
    func filesTakenFromThePackAreReportedButNotWritten() throws {
        let root = NSTemporaryDirectory() + "pack-child-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: root) }
        let first = try Self.jobExec(out: root + "/first")
        #expect(Self.written(root + "/first") == Set(first.files.map(\.path)))
        // The pack the worker writes: the manifest, the thumbnails and the plan files, not the model.
        let entries = try first.files.filter { $0.path != "model.glb" }.map { f in
            (name: f.path, bytes: try FileReader.read(root + "/first/" + f.path, maxBytes: 1 << 26))
        }
        let pack = root + "/previous.pack"
        try Data(try #require(PreviousPack.encode(entries))).write(to: URL(fileURLWithPath: pack))

        let again = try Self.jobExec(out: root + "/again", previous: pack)
        #expect(again.files == first.files, "the reported files differ from a full run's")
        #expect(Set(again.reused) == Set(first.files.map(\.path)).subtracting(["layer_manifest.json"]))
        // Only the manifest and the model (reused by its hash alone) are written.
        #expect(Self.written(root + "/again") == ["layer_manifest.json", "model.glb"])

        // A cut pack is ignored: nothing reused, everything written.
        let bytes = try FileReader.read(pack, maxBytes: 1 << 26)
        try Data(bytes.prefix(bytes.count - 1)).write(to: URL(fileURLWithPath: pack))
        let cut = try Self.jobExec(out: root + "/cut", previous: pack)
        #expect(cut.reused.isEmpty)
        #expect(cut.files == first.files)
        #expect(Self.written(root + "/cut") == Set(first.files.map(\.path)))
    }

    @Test func aChildClaimingReuseOfBytesTheWorkerDidNotFetchIsRefused() throws {
        let ws = try JobWorkspace()
        defer { ws.remove() }
        let manifest = OutputSamples.manifest(), hero = OutputSamples.webp()
        _ = try ws.write(manifest, to: "layer_manifest.json", in: ws.outputDirectory)
        let heroFile = ChildMessage.File(path: "thumbs/hero.webp", bytes: hero.count, sha256: Digest.hex(Digest.sha256(hero)))
        let files = [heroFile, ChildMessage.File(path: "layer_manifest.json", bytes: manifest.count,
                                                 sha256: Digest.hex(Digest.sha256(manifest)))]
        let previous = JobAttempt.Previous(pack: nil, prefix: "p/", sha256: [heroFile.path: heroFile.sha256],
                                           bytes: [heroFile.path: heroFile.bytes])
        func refusal(_ files: [ChildMessage.File], reused: Set<String>) -> FailureReason? {
            do {
                let o = try Outputs(ws, maxFileBytes: 1 << 20, maxTotalBytes: 2 << 20, phase: .preview)
                defer { o.close() }
                try o.validate(files, copied: JobAttempt.copiedFromPrevious(files, reused: reused, previous: previous), phase: .preview)
                return nil
            } catch {
                return error
            }
        }
        // The hero as the worker fetched it: copied from there, so out/ need not hold it.
        #expect(refusal(files, reused: ["thumbs/hero.webp"]) == nil)
        // Claimed as reused with another hash or size, or not claimed at all: it must be in out/, and is not.
        for lie in [ChildMessage.File(path: heroFile.path, bytes: heroFile.bytes, sha256: String(repeating: "0", count: 64)),
                    ChildMessage.File(path: heroFile.path, bytes: heroFile.bytes + 1, sha256: heroFile.sha256)] {
            let f = refusal([lie, files[1]], reused: ["thumbs/hero.webp"])
            #expect(f?.message.hasPrefix("CHILD_PROTOCOL: ") == true, "\(String(describing: f))")
        }
        #expect(refusal(files, reused: []) != nil)
        // A copied file still counts against the limits and must have a pipeline name.
        let huge = ChildMessage.File(path: heroFile.path, bytes: 3 << 20, sha256: heroFile.sha256)
        let bigPrevious = JobAttempt.Previous(pack: nil, prefix: "p/", sha256: previous.sha256, bytes: [heroFile.path: 3 << 20])
        do {
            let o = try Outputs(ws, maxFileBytes: 1 << 20, maxTotalBytes: 2 << 20, phase: .preview)
            defer { o.close() }
            #expect(throws: FailureReason.self) {
                try o.validate([huge], copied: JobAttempt.copiedFromPrevious([huge], reused: [huge.path], previous: bigPrevious),
                               phase: .preview)
            }
            #expect(throws: FailureReason.self) {
                try o.validate([ChildMessage.File(path: "../x", bytes: 1, sha256: "")], copied: ["../x"], phase: .preview)
            }
        }
    }
}
