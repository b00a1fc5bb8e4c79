import GLBWriter
import Layering
import Manifest
import USDParse
import WorkerCore

/// A pipeline failure with a stable `code`, the phase it happened in, and whether retrying the
/// same job can help. `message` is safe to log and to send to clients.
public struct PipelineError: Error, Sendable, CustomStringConvertible {
    public var code: String
    public var message: String
    /// The phase it happened in.
    public var phase: JobPhase
    public var isRetryable: Bool
    /// Where: format, section, offset, prim, layer, line, column, json path (when known).
    public var context: [String: String]

    public init(code: String, message: String, phase: JobPhase, isRetryable: Bool = false, context: [String: String] = [:]) {
        self.code = code
        self.message = message
        self.phase = phase
        self.isRetryable = isRetryable
        self.context = context
    }

    public var description: String {
        let ctx = context.keys.sorted().map { "\($0)=\(context[$0]!)" }.joined(separator: ", ")
        return "\(code): \(message)" + (ctx.isEmpty ? "" : " (\(ctx))")
    }

    /// Converts any error thrown by a pipeline phase: the one place where each module's error type
    /// becomes a code (`USD_*`, `ROOMPLAN_*`, `GLB_*`, `MANIFEST_*`; `THUMB_*` arrive as
    /// `PipelineError` already). Input errors are permanent; anything
    /// unexpected is an internal error (`INTERNAL_ERROR`, not retryable: the same input would fail
    /// the same way).
    static func wrap(_ error: any Error, phase: JobPhase) -> PipelineError {
        switch error {
        case let e as PipelineError:
            return e
        case let e as USDParseError:
            var ctx: [String: String] = ["format": e.format.rawValue]
            if let s = e.section { ctx["section"] = s }
            if let o = e.byteOffset { ctx["offset"] = String(o) }
            if let p = e.primPath { ctx["prim"] = p }
            if let l = e.layer { ctx["layer"] = l }
            if let l = e.line { ctx["line"] = String(l) }
            if let c = e.column { ctx["column"] = String(c) }
            return PipelineError(code: e.code.rawValue, message: e.message, phase: phase,
                                 isRetryable: e.code.isRetryable, context: ctx)
        case let e as LayeringError:
            var ctx: [String: String] = [:]
            if let p = e.jsonPath { ctx["json_path"] = p }
            return PipelineError(code: e.code, message: e.message, phase: phase, isRetryable: e.isRetryable, context: ctx)
        case let e as GLBWriterError:
            return PipelineError(code: e.code, message: e.message, phase: phase)
        case let e as ManifestError:
            return PipelineError(code: e.code, message: e.description, phase: phase)
        default:
            return PipelineError(code: "INTERNAL_ERROR", message: "\(error)", phase: phase)
        }
    }

    /// True when the failure is the input's fault (exit status 3) rather than ours (4).
    public var isInputError: Bool { code != "INTERNAL_ERROR" && !code.hasPrefix("GLB_INVALID") }
}
