import Foundation
#if canImport(Glibc)
import Glibc
import WorkerCore
#endif

/// Where the worker's secrets come from: the environment variable `NAME`, or the file named by
/// `NAME_FILE` (a Kubernetes secret mount or a Docker secret), never the command line, where every
/// local user can read them in `/proc/<pid>/cmdline`.
///
/// A `NAME_FILE` file is read whole (at most `maxFileBytes`), one trailing newline (`\n` or
/// `\r\n`) is removed, and the text must be UTF-8 without NUL bytes and not empty. Setting both
/// `NAME` and `NAME_FILE` is an error, as is a file that cannot be read. All errors are
/// `UsageError`s naming the variable (exit status 2).
public enum SecretEnvironment {
    /// The variables that hold secrets (each also accepted as `NAME_FILE`).
    static let names = [
        "DATABASE_URL", "TRANSCODE_API_TOKEN", "TRANSCODE_DONE_SECRET", "SUPABASE_SERVICE_KEY",
        "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "TRANSCODE_METRICS_TOKEN",
    ]

    /// The largest secret file read, bytes.
    static let maxFileBytes = 64 * 1024

    /// Reads a file's bytes, at most `limit + 1` of them (so an over-long file is detected).
    typealias FileReader = (_ path: String, _ limit: Int) throws -> [UInt8]

    /// `env` with every `NAME_FILE` replaced by `NAME` holding the file's content.
    ///
    /// - Throws: `UsageError` naming the variable when both forms are set, or the file is missing,
    ///   unreadable, larger than `maxFileBytes`, empty, not UTF-8 or contains a NUL byte.
    static func resolve(_ env: [String: String], readFile: FileReader = SecretEnvironment.readFile) throws -> [String: String] {
        var out = env
        for name in names {
            let fileVariable = name + "_FILE"
            guard let path = env[fileVariable], !path.isEmpty else {
                out[fileVariable] = nil
                continue
            }
            if let direct = env[name], !direct.isEmpty {
                throw UsageError("both \(name) and \(fileVariable) are set; set only one")
            }
            out[name] = try value(ofFile: path, variable: fileVariable, readFile: readFile)
            out[fileVariable] = nil
        }
        return out
    }

    /// Resolves `NAME_FILE` variables of this process into `NAME` (and unsets `NAME_FILE`), so
    /// every reader of the environment (S3 credentials, the configuration) sees the value. Call
    /// before any thread starts. Throws like `resolve`.
    public static func installInProcess() throws {
        let env = ProcessEnvironment.current
        guard names.contains(where: { env[$0 + "_FILE"] != nil }) else { return }
        let resolved = try resolve(env)
        for name in names where env[name + "_FILE"] != nil {
            if let v = resolved[name] { setenv(name, v, 1) }
            unsetenv(name + "_FILE")
        }
    }

    /// Takes every secret out of this process's environment: `NAME_FILE` files are read, and each
    /// `NAME` and `NAME_FILE` is removed from the environment (`unsetenv`) while the values live
    /// on in memory for the readers of settings (`ProcessEnvironment.current`). Nothing the
    /// process starts inherits them. What `/proc/<pid>/environ` shows does not change (the kernel
    /// keeps the block the process started with); the process being non-dumpable is what hides
    /// that block from other processes of its uid. Call before any thread starts.
    ///
    /// - Returns: the names withdrawn, sorted.
    /// - Throws: like `resolve`, before anything is removed.
    @discardableResult
    public static func withdrawFromProcess() throws -> [String] {
        let env = ProcessEnvironment.variables()
        let resolved = try resolve(env)
        var secrets: [String: String] = [:]
        for name in names {
            if let v = resolved[name], !v.isEmpty { secrets[name] = v }
        }
        let present = names.flatMap { [$0, $0 + "_FILE"] }.filter { env[$0] != nil }
        ProcessEnvironment.withdraw(secrets, alsoRemove: present)
        return present.sorted()
    }

    /// The secret text of `path`.
    static func value(ofFile path: String, variable: String, readFile: FileReader = SecretEnvironment.readFile) throws -> String {
        let bytes: [UInt8]
        do {
            bytes = try readFile(path, maxFileBytes)
        } catch {
            throw UsageError("\(variable): cannot read \(path): \(error)")
        }
        guard bytes.count <= maxFileBytes else {
            throw UsageError("\(variable): \(path) is larger than \(maxFileBytes) bytes")
        }
        var trimmed = bytes[...]
        if trimmed.last == UInt8(ascii: "\n") {
            trimmed = trimmed.dropLast()
            if trimmed.last == UInt8(ascii: "\r") { trimmed = trimmed.dropLast() }
        }
        guard !trimmed.isEmpty else { throw UsageError("\(variable): \(path) is empty") }
        guard !trimmed.contains(0), let text = String(validating: trimmed, as: UTF8.self) else {
            throw UsageError("\(variable): \(path) is not UTF-8 text")
        }
        return text
    }

    /// Reads up to `limit + 1` bytes of `path` with `open`/`read`.
    static func readFile(_ path: String, _ limit: Int) throws -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw SecretFileError(message: String(cString: strerror(errno))) }
        defer { close(fd) }
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while out.count <= limit {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw SecretFileError(message: String(cString: strerror(errno)))
            }
            if n == 0 { break }
            out.append(contentsOf: buffer[0..<n])
        }
        return out
    }

    /// Why a secret file could not be read (the `strerror` text).
    struct SecretFileError: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }
}
