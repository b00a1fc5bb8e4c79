import CProcessGuard
#if canImport(Glibc)
import Glibc
#endif

/// What every command of `transcode-worker` and `transcode-inspect` does to itself before
/// anything else: it becomes non-dumpable, so that no other process of its uid can read its
/// environment (`/proc/<pid>/environ`), its memory or its maps, or attach to it.
///
/// `/proc/<pid>/environ` shows the environment the process was started with, whatever it later
/// removes from it; only non-dumpability keeps that block from a same-uid reader (the file is
/// then owned by root). `ProcessEnvironment.withdraw` keeps secrets out of what the process
/// itself passes on.
public enum ProcessGuard {
    /// Marks this process non-dumpable (`PR_SET_DUMPABLE` 0).
    ///
    /// - Throws: `ProcessGuardError` `PROCESS_NOT_HARDENED` with the `strerror` text.
    public static func makeNonDumpable() throws(ProcessGuardError) {
        let e = process_guard_set_nondumpable()
        guard e == 0 else {
            throw ProcessGuardError(code: .notHardened,
                                    message: "cannot make the process non-dumpable: \(String(cString: strerror(e)))")
        }
    }

    /// True when this process is dumpable (`PR_GET_DUMPABLE` 1).
    public static var isDumpable: Bool { process_guard_dumpable() == 1 }
}

/// Why the process could not protect itself, with a stable `code`.
public struct ProcessGuardError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The stable codes.
    public enum Code: String, Sendable, CaseIterable, CustomStringConvertible {
        /// `prctl(PR_SET_DUMPABLE, 0)` failed: the command does not start; permanent.
        case notHardened = "PROCESS_NOT_HARDENED"

        /// Never: the same process fails the same way.
        public var isRetryable: Bool { false }
        /// The code itself, as written in messages and logs.
        public var description: String { rawValue }
    }

    public var code: Code
    public var message: String

    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
