import Foundation
import Testing

@testable import TranscodeWorker
@testable import JSONCore
import TestSupport

/// The `transcode-worker` executable, run as a child process the way scripts run it.
@Suite struct CommandLineToolTests {
    static let packageRoot = TestPaths.packageRoot

    /// The executable built beside the test bundle.
    static let binary: String? = TestPaths.workerBinary

    typealias Run = ProgramRun

    func run(_ args: [String]) throws -> Run {
        try ProgramRun.run(Self.binary!, args)
    }

    func temporaryFile(_ bytes: [UInt8], name: String) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let url = dir.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url.path
    }

    @Test(.enabled(if: binary != nil, "the transcode-worker executable is not built"))
    func inspectJSONReportsTheSampleRoom() throws {
        let r = try run(["inspect", "--json", "samples/room.usdz"])
        #expect(r.exited && r.status == 0, "\(r.stderr)")
        let json = try #require(r.json)
        #expect(json["format"] as? String == "usdz")
        let usd = try #require(json["usd"] as? [String: Any])
        #expect(usd["meshes"] as? Int == 1)
        #expect((usd["prim_types"] as? [String: Int])?["Cube"] == 49)
        let stage = try #require(json["stage"] as? [String: Any])
        #expect(stage["upAxis"] as? String == "Y" && stage["defaultPrim"] as? String == "Room")
        let scene = try #require(json["scene"] as? [String: Any])
        #expect(scene["triangles"] as? Int == 616 && scene["detail"] as? String == "structure")
        #expect(scene["vertices"] == nil)
        // --full-scene builds the vertex streams as convert does: same counts, plus vertices and validation.
        let full = try #require(try run(["inspect", "--json", "--full-scene", "samples/room.usdz"]).json)
        let fullScene = try #require(full["scene"] as? [String: Any])
        #expect(fullScene["detail"] as? String == "full" && fullScene["validation_errors"] as? Int == 0)
        for key in ["nodes", "meshes", "triangles", "instanced_triangles", "materials", "textures"] {
            #expect(fullScene[key] as? Int == scene[key] as? Int, "\(key)")
        }
        #expect((fullScene["vertices"] as? Int ?? 0) > 0)
        let both = try run(["inspect", "--json", "--full-scene", "--no-scene", "samples/room.usdz"])
        #expect(both.exited && both.status == 2)
    }

    @Test(.enabled(if: binary != nil, "the transcode-worker executable is not built"))
    func invalidInputsExitWithStatus3AndATypedError() throws {
        let cases: [([UInt8], String, String)] = [
            (Array("hello, not usd".utf8), "x.usd", "USD_UNRECOGNIZED_FORMAT"),
            (Array("#usda 1.0\ndef Xform \"A\" {".utf8), "x.usda", "USD_SYNTAX"),
            (Array((try Data(contentsOf: Self.packageRoot.appendingPathComponent("samples/room.usdz"))).prefix(5000)),
             "cut.usdz", "USD_ZIP_INVALID"),
        ]
        for (bytes, name, code) in cases {
            let path = try temporaryFile(bytes, name: name)
            let r = try run(["inspect", "--json", path])
            #expect(r.exited && r.status == 3, "\(name): \(r.status) \(r.stderr)")
            let error = r.json?["error"] as? [String: Any]
            #expect(error?["code"] as? String == code, "\(name): \(r.stdout)")
        }
        let missing = try run(["inspect", "--json", "/nonexistent/room.usdz"])
        #expect(missing.status == 3)
        #expect((missing.json?["error"] as? [String: Any])?["code"] as? String == "IO_NOT_FOUND")
    }

    @Test(.enabled(if: binary != nil, "the transcode-worker executable is not built"))
    func usageErrorsExitWithStatus2AndHelpExplains() throws {
        #expect(try run([]).status == 2)
        #expect(try run(["frobnicate"]).status == 2)
        #expect(try run(["inspect"]).status == 2)
        #expect(try run(["inspect", "--bogus", "x"]).status == 2)
        let help = try run(["inspect", "--help"])
        #expect(help.status == 0 && help.stdout.contains("USAGE: transcode-worker inspect"))
        let top = try run(["--help"])
        #expect(top.status == 0 && top.stdout.contains("inspect"))
    }

    @Test func jsonValueSerialisationIsDeterministicAndEscaped() {
        let v = JSONValue.object(["b": .int(1), "a": .array([.string("q\"\n\u{1}"), .double(0.5), .null, .bool(true)])])
        #expect(v.serialized() == #"{"a":["q\"\n\u0001",0.5,null,true],"b":1}"#)
    }

    /// An output directory that cannot be written (here: below a regular file; in production a
    /// full disk) is an `IO_WRITE_FAILED` error whose message does not repeat the code, since the
    /// worker and `convert --json` show the code beside it.
    @Test(.enabled(if: binary != nil, "the transcode-worker executable is not built"))
    func outputWriteFailuresNameTheirCodeOnce() throws {
        let blocker = try temporaryFile([0x78], name: "not-a-directory")
        let out = blocker + "/out"
        let child = try run(["job-exec", "--out", out, "--usd", "samples/roomplan/parametric_two_sections.usdz",
                             "--roomplan", "samples/roomplan/parametric_two_sections.json",
                             "--version-id", "00000000-0000-0000-0000-000000000001",
                             "--room-id", "00000000-0000-0000-0000-000000000002"])
        let last = try #require(child.stdout.split(separator: "\n").last)
        let error = try #require((try JSONSerialization.jsonObject(with: Data(last.utf8))) as? [String: Any])
        #expect(error["event"] as? String == "error" && error["code"] as? String == "IO_WRITE_FAILED", "\(child.stdout)")
        let message = try #require(error["message"] as? String)
        #expect(!message.contains("IO_WRITE_FAILED"), "\(message)")

        let convert = try run(["convert", "samples/roomplan/parametric_two_sections.usdz", "--out", out, "--json",
                               "--no-thumbnails"])
        let failure = try #require(convert.json?["error"] as? [String: Any], "\(convert.stdout)")
        #expect(failure["code"] as? String == "IO_WRITE_FAILED")
        #expect(!((failure["message"] as? String) ?? "IO_WRITE_FAILED").contains("IO_WRITE_FAILED"))
    }
}

extension ProgramRun {
    /// Standard output as one JSON object, or nil.
    var json: [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(stdout.utf8))) as? [String: Any]
    }
}
