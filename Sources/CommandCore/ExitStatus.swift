/// Exit statuses shared by every command.
public enum ExitStatus {
    public static let ok: Int32 = 0
    /// Bad arguments.
    public static let usage: Int32 = 2
    /// The input is invalid or cannot be read (a typed error with a stable code was printed).
    public static let invalidInput: Int32 = 3
    /// A failure that is not the input's fault.
    public static let internalError: Int32 = 4
}

/// A command-line usage problem (exit status 2).
public struct UsageError: Error, CustomStringConvertible {
    public var description: String
    public init(_ d: String) { description = d }
    public static let helpRequested = UsageError("")
}

/// The worker's version, reported by `--version`, in `transcode-done` bodies and in `/metrics`.
public enum WorkerVersion {
    public static let string = "0.1.0"
}
