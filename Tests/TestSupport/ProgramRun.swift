import Foundation

/// One run of a built program: how it ended and everything it printed.
public struct ProgramRun: Equatable, Sendable {
    public var status: Int32
    /// True when the program exited (false: a signal ended it).
    public var exited: Bool
    public var stdout: String
    public var stderr: String

    /// Runs `executable` with `arguments` in `directory` (default: the package root), both outputs
    /// captured, and waits for it. Standard output is read to its end first, so the program may
    /// write at most a pipe's worth (64 KiB) to standard error before closing standard output.
    public static func run(_ executable: String, _ arguments: [String],
                           in directory: URL = TestPaths.packageRoot) throws -> ProgramRun {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = arguments
        p.currentDirectoryURL = directory
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return ProgramRun(status: p.terminationStatus, exited: p.terminationReason == .exit,
                          stdout: String(decoding: o, as: UTF8.self), stderr: String(decoding: e, as: UTF8.self))
    }
}
