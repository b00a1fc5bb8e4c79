import Foundation
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The small C programs the sandbox tests compile with `cc` (`Support/hostile`).
enum SandboxPrograms {
    static let support = TestPaths.path("Tests/TranscodeWorkerTests/Support/hostile")

    static func compile(_ source: String, to output: String, _ flags: [String]) throws {
        let r = try ProgramRun.run("/usr/bin/cc", ["-O1", "-o", output, source] + flags)
        try #require(r.status == 0, "cc \(source): \(r.stderr)")
    }

    /// `no_namespaces`, compiled once into a folder every user can read.
    static func noNamespaces() throws -> String {
        let dir = NSTemporaryDirectory() + "sandbox-launcher-\(getpid())"
        let path = dir + "/no_namespaces"
        launcherLock.lock()
        defer { launcherLock.unlock() }
        if FileManager.default.isExecutableFile(atPath: path) { return path }
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        chmod(dir, 0o755)
        try compile(support + "/no_namespaces.c", to: path, ["-lseccomp"])
        return path
    }

    private static let launcherLock = NSLock()
}
