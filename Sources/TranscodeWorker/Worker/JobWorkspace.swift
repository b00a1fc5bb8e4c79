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
/// The owner calls `remove()` when the attempt ends (also after a failure). The directory is
/// named `transcode-job-<pid>-XXXXXX`, so directories left behind by a worker that was killed can
/// be recognised and removed later (`removeStale`).
final class JobWorkspace {
    static let namePrefix = "transcode-job-"

    /// The absolute root directory.
    let root: String

    var inputDirectory: String { root + "/in" }
    var redactedDirectory: String { root + "/redacted" }
    var outputDirectory: String { root + "/out" }

    /// Creates a new directory. Throws `FailureReason` `INTERNAL` (retryable) when it cannot.
    init() throws(FailureReason) {
        var template = Array((Self.baseDirectory + "/" + Self.namePrefix + "\(getpid())-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        guard made != nil else {
            throw FailureReason.internalFault("WORKSPACE_FAILED: cannot create a work directory: \(String(cString: strerror(errno)))",
                                              phase: "downloading")
        }
        root = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
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

    /// `$TMPDIR` (without a trailing `/`) or `/tmp`.
    static var baseDirectory: String {
        var base = ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        while base.count > 1 && base.hasSuffix("/") { base.removeLast() }
        return base
    }

    /// Removes the work directories of processes that no longer exist (a worker killed in the
    /// middle of a job cannot clean up after itself). Returns how many were removed.
    @discardableResult
    static func removeStale() -> Int {
        let base = baseDirectory
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: base) else { return 0 }
        var removed = 0
        for name in names where name.hasPrefix(namePrefix) {
            let rest = name.dropFirst(namePrefix.count)
            guard let dash = rest.firstIndex(of: "-"), let pid = pid_t(rest[..<dash]), pid > 0, pid != getpid() else { continue }
            guard kill(pid, 0) != 0 && errno == ESRCH else { continue }
            if (try? FileManager.default.removeItem(atPath: base + "/" + name)) != nil { removed += 1 }
        }
        return removed
    }

    /// Deletes the directory and everything in it (idempotent, best effort).
    func remove() {
        try? FileManager.default.removeItem(atPath: root)
    }
}
