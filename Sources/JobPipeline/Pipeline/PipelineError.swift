import FloorPlan
import GLBWriter
import Layering
import Manifest
import SceneModel
import SourceFiles
import Thumbnailer
import USDParse
import WorkerCore

/// A pipeline failure with a stable `code`, the phase it happened in, and whether retrying the
/// same job can help. `message` is safe to log and to send to clients.
public struct PipelineError: Error, Sendable, CustomStringConvertible {
    /// The pipeline's own codes (the feature modules' come with their errors).
    public enum Code: String, ErrorCode {
        /// Neither a USD file nor a RoomPlan JSON was given; permanent.
        case inputMissing = "INPUT_MISSING"
        /// A replacement texture or a redaction row cannot be applied; permanent.
        case redactionInvalid = "REDACTION_INVALID"
        /// The report found no manifest to show; permanent.
        case reportManifestInvalid = "REPORT_MANIFEST_INVALID"
        /// A fault inside the pipeline; permanent (the same input would fail the same way).
        case internalError = "INTERNAL_ERROR"

        public var isRetryable: Bool { false }
        public var isInputError: Bool { self != .internalError }

        /// The kind of failure the daemon reports it as.
        public var errorClass: JobErrorClass {
            switch self {
            case .inputMissing: return .missingInput
            case .redactionInvalid: return .redaction
            case .reportManifestInvalid: return .preview
            case .internalError: return .internal
            }
        }
    }

    public var code: String
    public var message: String
    /// The phase it happened in.
    public var phase: JobPhase
    public var isRetryable: Bool
    /// True when the failure is the input's fault (exit status 3) rather than ours (4): set from the
    /// module's typed code, false for an internal error.
    public var isInputError: Bool
    /// The kind of failure (`JobErrorClass`), from the type of the code it was made with: what the
    /// job child's `error` line says, so the daemon never reads it out of the code's spelling.
    public var errorClass: JobErrorClass
    /// Where: format, section, offset, prim, layer, line, column, json path (when known).
    public var context: [String: String]

    /// A module's code: its text, and whether it is retried, the input's fault and of which kind,
    /// as the code and its type say.
    public init(code: some ErrorCode, message: String, phase: JobPhase, context: [String: String] = [:]) {
        self.code = code.rawValue
        self.message = message
        self.phase = phase
        self.isRetryable = code.isRetryable
        self.isInputError = code.isInputError
        self.errorClass = Self.errorClass(of: code)
        self.context = context
    }

    /// A file's failure while reading the inputs or writing the outputs: too large is the input's
    /// (permanent), anything else is the job's own work files (worth another attempt).
    public init(_ failure: FileReader.Failure, phase: JobPhase) {
        code = failure.code.rawValue
        message = failure.message
        self.phase = phase
        isRetryable = failure.code != .tooLarge
        isInputError = failure.code == .tooLarge
        errorClass = failure.code == .tooLarge ? .tooLarge : .workFiles
        context = [:]
    }

    /// The kind of failure a code of this type is: by the module that raised it.
    static func errorClass(of code: some ErrorCode) -> JobErrorClass {
        switch code {
        case is USDParseError.Code: return .usd
        case is LayeringError.Code: return .roomPlan
        case is GLBWriterError.Code, is ManifestError.Code: return .model
        case is ThumbnailerError.Code, is FloorPlanError.Code: return .preview
        case let own as Code: return own.errorClass
        default: return .internal
        }
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
            return PipelineError(code: Code.internalError, message: "\(error)", phase: phase)
        }
    }
}
