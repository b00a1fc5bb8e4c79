#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An object storage failure with a stable `code`. `message` is safe to log and to send to
/// clients: it names the key and the operation, never credentials.
///
/// Codes and whether retrying the same operation can help:
///
/// | code | retryable | meaning |
/// |---|---|---|
/// | `STORAGE_NOT_FOUND` | no | the key does not exist |
/// | `STORAGE_TOO_LARGE` | no | the object is larger than the caller's `maxBytes` |
/// | `STORAGE_INVALID_KEY` | no | the key breaks the key rules (`ObjectKey`) or clashes with a prefix |
/// | `STORAGE_UNAVAILABLE` | yes | the store could not be read or reached (IO error, network, 5xx) |
/// | `STORAGE_WRITE_FAILED` | yes | a write, rename or flush failed |
/// | `STORAGE_NO_SPACE` | no | the device or quota is full (`ENOSPC`, `EDQUOT`) |
/// | `STORAGE_URL_INVALID` | no | the storage URL is malformed or names an unsupported scheme |
/// | `STORAGE_FORBIDDEN` | no | the store refused the credentials or the operation (S3 403: wrong key or secret, bad signature, no permission) |
public struct StorageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The stable codes (see the table above).
    public enum Code: String, Sendable, CaseIterable, CustomStringConvertible {
        /// The key does not exist; permanent.
        case notFound = "STORAGE_NOT_FOUND"
        /// The object is larger than the caller's `maxBytes`; permanent.
        case tooLarge = "STORAGE_TOO_LARGE"
        /// The key breaks the key rules (`ObjectKey`) or clashes with a prefix; permanent.
        case invalidKey = "STORAGE_INVALID_KEY"
        /// The store could not be read or reached (IO error, network, 5xx); retryable.
        case unavailable = "STORAGE_UNAVAILABLE"
        /// A write, rename or flush failed; retryable.
        case writeFailed = "STORAGE_WRITE_FAILED"
        /// The device or quota is full; permanent.
        case noSpace = "STORAGE_NO_SPACE"
        /// The storage URL is malformed or names an unsupported scheme; permanent.
        case urlInvalid = "STORAGE_URL_INVALID"
        /// The store refused the credentials or the operation (S3 403); permanent.
        case forbidden = "STORAGE_FORBIDDEN"

        /// Whether a failure with this code is retryable unless the backend knows better.
        public var isRetryable: Bool { self == .unavailable || self == .writeFailed }
        /// The code itself, as written in messages and logs.
        public var description: String { rawValue }
    }

    /// One of the codes above.
    public var code: Code
    public var message: String
    /// The object key involved, when there is one.
    public var key: String?
    /// True when the same operation may succeed later.
    public var isRetryable: Bool

    /// `isRetryable` defaults to the code's.
    public init(code: Code, message: String, key: String? = nil, isRetryable: Bool? = nil) {
        self.code = code
        self.message = message
        self.key = key
        self.isRetryable = isRetryable ?? code.isRetryable
    }

    public var description: String {
        "\(code.rawValue): \(message)" + (key.map { " (key \($0))" } ?? "")
    }

    /// Maps an `errno` from a failed system call. `ENOSPC` / `EDQUOT` are `STORAGE_NO_SPACE`;
    /// otherwise writes fail with `STORAGE_WRITE_FAILED` and reads with `STORAGE_UNAVAILABLE`.
    static func system(_ err: Int32, _ what: String, key: String?, writing: Bool) -> StorageError {
        let reason = String(cString: strerror(err))
        if err == ENOSPC || err == EDQUOT {
            return StorageError(code: .noSpace, message: "\(what): \(reason)", key: key)
        }
        return StorageError(code: writing ? .writeFailed : .unavailable, message: "\(what): \(reason)", key: key)
    }
}
