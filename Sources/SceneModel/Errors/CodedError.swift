/// The stable codes of one module's errors: an enum whose raw values are the upper-case codes that
/// scripts, callbacks, metrics and the error catalog key on. Each case says whether the same
/// operation can succeed when tried again, and whether the input is to blame.
public protocol ErrorCode: RawRepresentable<String>, CaseIterable, Hashable, Sendable, CustomStringConvertible {
    /// True when the same operation can succeed later; the input's faults are permanent.
    var isRetryable: Bool { get }
    /// True when the failure is the input's fault (the same bytes fail the same way), false when it
    /// is the worker's own (a scene it built breaks a contract, a fault of its own code).
    var isInputError: Bool { get }
}

extension ErrorCode {
    /// The code itself, as written in messages and logs.
    public var description: String { rawValue }
}

/// The shape every feature module's error shares: a typed stable `code`, a `message` safe to log
/// and show, and whether retrying can help (decided by the code). Each type keeps its own
/// `description`, which may add context such as a JSON path or a byte offset.
public protocol CodedError: Error, Sendable, CustomStringConvertible {
    associatedtype Code: ErrorCode
    /// The stable code.
    var code: Code { get }
    /// What went wrong, safe to log and to send to a client.
    var message: String { get }
    /// True when the same operation can succeed later.
    var isRetryable: Bool { get }
}

extension CodedError {
    /// As the code says.
    public var isRetryable: Bool { code.isRetryable }
}

/// Codes that all describe the input itself: permanent, since the same bytes fail the same way on
/// every attempt, and the input's fault. A module whose codes are all of this kind declares its
/// enum with this protocol instead of `ErrorCode`.
public protocol InputErrorCode: ErrorCode {}

extension InputErrorCode {
    /// Never: retrying the same input gives the same error.
    public var isRetryable: Bool { false }
    /// Always: the input is at fault.
    public var isInputError: Bool { true }
}
