import Foundation
import TestSupport
import Testing

/// `transcode-inspect`: the `inspect` command as a program of its own. It must print what
/// `transcode-worker inspect` prints, byte for byte, and load none of the pipeline's or the
/// daemon's libraries (the reason it exists: a third of the worker's start-up time).
@Suite("transcode-inspect")
struct InspectProgramTests {
    static let enabled = TestPaths.inspectBinary != nil && TestPaths.workerBinary != nil

    static func run(_ binary: String, _ arguments: [String]) throws -> ProgramRun {
        try ProgramRun.run(binary, arguments)
    }

    @Test("prints what transcode-worker inspect prints, for reports and for typed errors",
          .enabled(if: enabled),
          arguments: [
              ["--json", "samples/room.usdz"],
              ["--json", "--full-scene", "samples/room.usdz"],
              ["--json", "--no-scene", "samples/textured/textured_box.usdz"],
              ["samples/room.usdz", "--max-prims", "5"],
              ["--json", "/nonexistent/room.usdz"],
              ["--json", "Package.swift"],
          ])
    func sameReport(arguments: [String]) throws {
        let alone = try Self.run(TestPaths.inspectBinary!, arguments)
        let worker = try Self.run(TestPaths.workerBinary!, ["inspect"] + arguments)
        #expect(alone == worker)
        #expect(!alone.stdout.isEmpty)
    }

    @Test("the report is the sample room's", .enabled(if: enabled))
    func reportContent() throws {
        let r = try Self.run(TestPaths.inspectBinary!, ["--json", "samples/room.usdz"])
        #expect(r.status == 0)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        #expect(json["format"] as? String == "usdz")
        let usd = try #require(json["usd"] as? [String: Any])
        #expect((usd["meshes"] as? Int ?? 0) > 0)
        #expect(json["scene"] is [String: Any])
        let bad = try Self.run(TestPaths.inspectBinary!, ["--json", "Package.swift"])
        #expect(bad.status == 3)
        #expect(bad.stdout.contains("\"error\""))
    }

    @Test("help, version and usage errors", .enabled(if: enabled))
    func usage() throws {
        let inspect = TestPaths.inspectBinary!
        let help = try Self.run(inspect, ["--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("USAGE: transcode-inspect FILE [--json]"))
        let workerHelp = try Self.run(TestPaths.workerBinary!, ["inspect", "--help"])
        #expect(workerHelp.stdout.contains("USAGE: transcode-worker inspect FILE [--json]"))
        #expect(help.stdout.split(separator: "\n").dropFirst() == workerHelp.stdout.split(separator: "\n").dropFirst())

        let version = try Self.run(inspect, ["--version"])
        #expect(version.status == 0)
        #expect(version.stdout == (try Self.run(TestPaths.workerBinary!, ["--version"])).stdout)

        let none = try Self.run(inspect, [])
        #expect(none.status == 2)
        #expect(none.stderr.hasPrefix("error: inspect needs a FILE"))
        #expect(none.stdout.isEmpty)
        let unknown = try Self.run(inspect, ["--bogus", "samples/room.usdz"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("unknown option --bogus"))
        #expect(try Self.run(inspect, ["a.usdz", "b.usdz"]).status == 2)
        #expect(try Self.run(inspect, ["--full-scene", "--no-scene", "samples/room.usdz"]).status == 2)
    }

    @Test("loads neither the pipeline's nor the daemon's libraries",
          .enabled(if: enabled && TestPaths.jobBinary != nil
                   && FileManager.default.isExecutableFile(atPath: "/usr/bin/ldd")))
    func libraries() throws {
        let inspect = try Self.libraries(TestPaths.inspectBinary!)
        let job = try Self.libraries(TestPaths.jobBinary!)
        #expect(job.contains { $0.hasPrefix("libcairo.so") })   // the check below can fail
        #expect(inspect.contains { $0.hasPrefix("liblz4.so") })  // the reader's own libraries are there
        let notLoaded = [
            "libpq.so", "libcurl.so", "libmicrohttpd.so", "libFoundationNetworking.so",   // the daemon's
            "libcairo.so", "libwebp.so", "libpng16.so", "libjpeg.so", "libmeshoptimizer.so",  // the pipeline's
            "libcrypto.so",   // the job child's and the daemon's digests (WorkerCore)
            "libFoundation.so", "libFoundationInternationalization.so", "lib_FoundationICU.so",
        ]
        for name in notLoaded {
            #expect(!inspect.contains { $0.hasPrefix(name) }, "transcode-inspect loads \(name)")
        }
        #expect(inspect.count < job.count)
    }

    /// What `ldd` says `binary` loads, one library name per entry.
    static func libraries(_ binary: String) throws -> [String] {
        let out = try run("/usr/bin/ldd", [binary]).stdout
        return out.split(separator: "\n").compactMap {
            $0.split(whereSeparator: { $0 == " " || $0 == "\t" }).first.map(String.init)
        }
    }
}
