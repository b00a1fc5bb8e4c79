import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A private temporary directory for one job attempt (mode 0700, under `$TMPDIR` or `/tmp`):
///
/// ```
/// ROOT/in/usd/<source file name>     the downloaded USD source
/// ROOT/in/json/<source file name>    the downloaded RoomPlan JSON
/// ROOT/redacted/<texture path>       face-blurred replacement textures
/// ROOT/out/                          what the child process writes
/// ```
///
/// The owner calls `remove()` when the attempt ends (also after a failure).
final class JobWorkspace {
    /// The absolute root directory.
    let root: String

    var inputDirectory: String { root + "/in" }
    var redactedDirectory: String { root + "/redacted" }
    var outputDirectory: String { root + "/out" }

    /// Creates a new directory. Throws `FailureReason` `INTERNAL` (retryable) when it cannot.
    init() throws(FailureReason) {
        var base = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        while base.count > 1 && base.hasSuffix("/") { base.removeLast() }
        var template = Array((base + "/transcode-job-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        guard made != nil else {
            throw FailureReason.internalFault("WORKSPACE_FAILED: cannot create a work directory: \(String(cString: strerror(errno)))",
                                              phase: "downloading")
        }
        root = String(cString: template)
        for dir in [inputDirectory, inputDirectory + "/usd", inputDirectory + "/json", redactedDirectory, outputDirectory] {
            guard mkdir(dir, 0o700) == 0 || errno == EEXIST else {
                let e = errno
                remove()
                throw FailureReason.internalFault("WORKSPACE_FAILED: cannot create a work directory: \(String(cString: strerror(e)))",
                                                  phase: "downloading")
            }
        }
    }

    /// Writes `bytes` at `relative` below `directory`, creating parent directories. Throws
    /// `FailureReason` `INTERNAL` (retryable) on an IO failure, `SOURCE_NOT_FOUND` for a path
    /// that would leave the directory.
    func write(_ bytes: [UInt8], to relative: String, in directory: String) throws(FailureReason) -> String {
        let parts = relative.split(separator: "/", omittingEmptySubsequences: false)
        guard !relative.isEmpty, !relative.hasPrefix("/"), !parts.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }),
              !relative.utf8.contains(0) else {
            throw FailureReason(reason: FailureReason.sourceNotFound, message: "INVALID_PATH: unusable file path '\(relative)'",
                                phase: "downloading", isRetryable: false)
        }
        var current = directory
        for part in parts.dropLast() {
            current += "/" + part
            guard mkdir(current, 0o700) == 0 || errno == EEXIST else {
                throw FailureReason.internalFault("WORKSPACE_FAILED: cannot create a work directory: \(String(cString: strerror(errno)))",
                                                  phase: "downloading")
            }
        }
        let path = directory + "/" + relative
        do {
            try Data(bytes).write(to: URL(fileURLWithPath: path))
        } catch {
            throw FailureReason.internalFault("WORKSPACE_FAILED: cannot write a work file", phase: "downloading")
        }
        return path
    }

    /// Removes `text`'s mentions of the work directory, so messages never carry local paths.
    func scrub(_ text: String) -> String {
        text.replacingOccurrences(of: root + "/", with: "").replacingOccurrences(of: root, with: "")
    }

    /// Deletes the directory and everything in it (idempotent, best effort).
    func remove() {
        try? FileManager.default.removeItem(atPath: root)
    }
}
