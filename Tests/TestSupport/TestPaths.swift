import Foundation

/// Where the test suites find the repository's files and the built binaries: one definition for
/// every test target, found through this file's own path (so tests run from any directory).
public enum TestPaths {
    /// The package root (the directory holding `Package.swift`).
    public static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// `packageRoot` + `relative`, as a path.
    public static func path(_ relative: String) -> String { packageRoot.appendingPathComponent(relative).path }

    /// `Tests/Fixtures`, the fixtures our scripts generate.
    public static let fixtures = packageRoot.appendingPathComponent("Tests/Fixtures")

    /// `../shared/corpus` beside the repository: real inputs with usd-core's answers (absent on a
    /// machine without the shared folder; the suites that need it say so).
    public static let sharedCorpus = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus")

    /// `../shared/homes/apple_myhome` beside the repository: six real rooms of one home in one world
    /// frame (a `capturedRoom.json` and `floorplan.usdz` each); absent on a machine without it.
    public static let sharedHome = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/homes/apple_myhome")

    /// The `transcode-worker` executable built beside the test bundle, or nil when it is not built.
    public static let workerBinary: String? = builtExecutable("transcode-worker")

    /// The built `transcode-job` (the job child's executable), found as `workerBinary` is.
    public static let jobBinary: String? = builtExecutable("transcode-job")

    /// The built `transcode-inspect` (the `inspect` command as a program of its own), found as `workerBinary` is.
    public static let inspectBinary: String? = builtExecutable("transcode-inspect")

    /// The executable `name` in the test bundle's build directory or the one or two above it.
    static func builtExecutable(_ name: String) -> String? {
        let dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for candidate in [dir, dir.deletingLastPathComponent(), dir.deletingLastPathComponent().deletingLastPathComponent()] {
            let p = candidate.appendingPathComponent(name).path
            if FileManager.default.isExecutableFile(atPath: p) { return p }
        }
        return nil
    }
}

/// Where test loggers write: nowhere, so the test output shows the tests, unless
/// `TRANSCODE_TEST_LOGS=1` asks for the worker's JSON lines on standard error.
public enum TestOutput {
    public static let logFD: Int32 = {
        if ProcessInfo.processInfo.environment["TRANSCODE_TEST_LOGS"] == "1" { return 2 }
        let fd = open("/dev/null", O_WRONLY | O_CLOEXEC)
        return fd >= 0 ? fd : 2
    }()
}

/// A fixture file the test needs is not there.
public struct MissingTestFile: Error, CustomStringConvertible {
    public var path: String
    public init(_ path: String) { self.path = path }
    public var description: String { "missing test file: \(path)" }
}
