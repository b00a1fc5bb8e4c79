import Layering
import SceneModel
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
    /// True when the failure is the input's fault (exit status 3) rather than ours (4): set from the
    /// module's typed code, false for an internal error.
    public var isInputError: Bool
    /// Where: format, section, offset, prim, layer, line, column, json path (when known).
    public var context: [String: String]

    public init(
        code: String, message: String, phase: JobPhase, isRetryable: Bool = false, isInputError: Bool = true,
        context: [String: String] = [:]
    ) {
        self.code = code
        self.message = message
        self.phase = phase
        self.isRetryable = isRetryable
        self.isInputError = isInputError
        self.context = context
    }

    /// A feature module's code: its text, and whether it is retried and the input's fault, as the
    /// code says.
    public init(code: some ErrorCode, message: String, phase: JobPhase, context: [String: String] = [:]) {
        self.init(code: code.rawValue, message: message, phase: phase, isRetryable: code.isRetryable,
                  isInputError: code.isInputError, context: context)
    }

    /// True when this is a feature module's error with that code.
    public func has(_ code: some ErrorCode) -> Bool { self.code == code.rawValue }

    public var description: String {
        let ctx = context.keys.sorted().map { "\($0)=\(context[$0]!)" }.joined(separator: ", ")
        return "\(code): \(message)" + (ctx.isEmpty ? "" : " (\(ctx))")
    }

    /// Converts any error thrown by a pipeline phase: the one place where each module's error
    /// (`CodedError`: `USD_*`, `ROOMPLAN_*`, `GLB_*`, `MANIFEST_*`, `THUMB_*`, `PLAN_*`) becomes a
    /// pipeline error with its code, message and classification, plus the context the parser and
    /// layering give. Anything unexpected is an internal error (`INTERNAL_ERROR`, not retryable:
    /// the same input would fail the same way).
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
            return PipelineError(code: e.code, message: e.message, phase: phase, context: ctx)
        case let e as LayeringError:
            return PipelineError(code: e.code, message: e.message, phase: phase, context: e.jsonPath.map { ["json_path": $0] } ?? [:])
        case let e as any CodedError:
            return PipelineError(code: e.code, message: e.message, phase: phase)
        default:
            return PipelineError(code: "INTERNAL_ERROR", message: "\(error)", phase: phase, isInputError: false)
        }
    }
}
