import Layering
import Thumbnailer
import USDParse
import JobPipeline

/// What one run of a fuzz target gave. Both cases are normal: only a trap, a sanitizer report, a
/// timeout or running out of memory is a finding.
public enum FuzzOutcome: Sendable, Equatable, CustomStringConvertible {
    /// The input was accepted; `summary` says what was read (counts, sizes).
    case accepted(summary: String)
    /// The input was refused with a typed error; `code` is its stable code (`USD_TRUNCATED`,
    /// `ROOMPLAN_…`, `THUMB_…`, …) or `UNTYPED_ERROR` for an error of no known type.
    case refused(code: String, message: String)

    /// The error code, or nil when the input was accepted.
    public var code: String? {
        if case .refused(let code, _) = self { return code }
        return nil
    }

    public var description: String {
        switch self {
        case .accepted(let summary): return "ok: \(summary)"
        case .refused(let code, let message): return "\(code): \(message)"
        }
    }

    /// The outcome of an error thrown by a parser, decoder or the pipeline.
    static func refused(_ error: any Error) -> FuzzOutcome {
        switch error {
        case let e as USDParseError: return .refused(code: e.code.rawValue, message: e.message)
        case let e as LayeringError: return .refused(code: e.code.rawValue, message: e.message)
        case let e as ThumbnailerError: return .refused(code: e.code.rawValue, message: e.message)
        case let e as PipelineError: return .refused(code: e.code, message: e.message)
        default: return .refused(code: "UNTYPED_ERROR", message: "\(type(of: error)): \(error)")
        }
    }
}
