import JSONCore
import ObjectStorage
import WorkerCore

/// Why one attempt of a job failed, in the vocabulary of the `transcode-done` contract: a stable
/// `reason` (what clients and operators see), a safe `message` that starts with the detailed code
/// (`USD_TRUNCATED: …`), the phase it happened in, and whether another attempt can help.
///
/// The reasons are the constants below; whether each is retried and what it means is listed
/// once, in `ErrorCatalog.reasons` (TranscodeWorker), from which `docs/errors.md` is generated.
public struct FailureReason: Error, Sendable, Equatable, CustomStringConvertible {
    public static let sourceNotFound = "SOURCE_NOT_FOUND"
    public static let sourceKeyRefused = "SOURCE_KEY_REFUSED"
    public static let redactionInvalid = "REDACTION_INVALID"
    public static let fileTooLarge = "FILE_TOO_LARGE"
    public static let sourceDownloadFailed = "SOURCE_DOWNLOAD_FAILED"
    public static let usdzParseError = "USDZ_PARSE_ERROR"
    public static let roomPlanJSONInvalid = "ROOMPLAN_JSON_INVALID"
    public static let layeringFailed = "LAYERING_FAILED"
    public static let previewFailed = "PREVIEW_FAILED"
    public static let outputUploadFailed = "OUTPUT_UPLOAD_FAILED"
    public static let timeout = "TIMEOUT"
    public static let cancelled = "CANCELLED"
    public static let uploadExpired = "UPLOAD_EXPIRED"
    public static let completionRejected = "COMPLETION_REJECTED"
    public static let `internal` = "INTERNAL"

    /// Reasons that describe the input rather than the worker (`process` exits with 3 for them).
    public static let inputReasons: Set<String> = [
        sourceNotFound, sourceKeyRefused, fileTooLarge, usdzParseError, roomPlanJSONInvalid, redactionInvalid, layeringFailed,
        previewFailed,
    ]

    /// The longest message sent anywhere (the contract's limit).
    public static let maxMessageCharacters = 500

    /// One of the reasons above.
    public var reason: String
    /// Safe to log and to show: the detailed code first, at most 500 characters, no local paths.
    public var message: String
    /// The step it happened in.
    public var step: JobStep
    /// `step`'s contract name: `downloading`, `parsing`, `layering`, `preview`,
    /// `uploading_outputs`, `completing`.
    public var phase: String { step.rawValue }
    public var isRetryable: Bool

    public init(reason: String, message: String, phase: JobStep, isRetryable: Bool) {
        self.reason = reason
        self.message = Self.clip(message)
        self.step = phase
        self.isRetryable = isRetryable
    }

    public var description: String { "\(reason) (\(phase)): \(message)" }

    /// True when the input is at fault and retrying cannot help.
    public var isInputError: Bool { !isRetryable && Self.inputReasons.contains(reason) }

    /// The `error` object of `transcode_finalize` and of the contract's failure body (without
    /// the attempt counters, which the caller adds where needed).
    var json: JSONValue {
        .object(["reason": .string(reason), "message": .string(message), "phase": .string(phase),
                 "retryable": .bool(isRetryable)])
    }

    // MARK: Classification

    /// Classifies a pipeline error reported by the child process by the kind it names
    /// (`JobErrorClass`, one exhaustive switch); an error line that names none (a broken child)
    /// is classified by the phase it happened in. The detailed code leads the message.
    static func pipeline(code: String, message: String, phase: JobPhase, retryable: Bool,
                         errorClass: JobErrorClass?) -> FailureReason {
        let detail = "\(code): \(message)"
        let step = JobStep(phase)
        func reason(_ reason: String, retryable: Bool) -> FailureReason {
            FailureReason(reason: reason, message: detail, phase: step, isRetryable: retryable)
        }
        guard let errorClass else {
            switch step {
            case .parsing: return reason(usdzParseError, retryable: retryable)
            case .preview: return reason(previewFailed, retryable: retryable)
            default: return reason(layeringFailed, retryable: retryable)
            }
        }
        switch errorClass {
        case .usd: return reason(usdzParseError, retryable: retryable)
        case .roomPlan: return reason(roomPlanJSONInvalid, retryable: retryable)
        case .model: return reason(layeringFailed, retryable: retryable)
        case .preview: return reason(previewFailed, retryable: retryable)
        case .redaction: return reason(redactionInvalid, retryable: false)
        case .tooLarge: return reason(fileTooLarge, retryable: false)
        case .missingInput: return reason(sourceNotFound, retryable: false)
        // An unexpected error inside the pipeline: the pipeline says whether the same input
        // would fail the same way.
        case .internal: return reason(`internal`, retryable: retryable)
        // The child could not read or write its own work files or set itself up: the worker's
        // fault, worth another attempt.
        case .workFiles: return reason(`internal`, retryable: true)
        }
    }

    /// Classifies a failure to download a source or a redacted texture. `SOURCE_DOWNLOAD_FAILED`
    /// is retryable when the storage error is (unreachable, 5xx, IO error), not when storage
    /// refused the request (`STORAGE_FORBIDDEN`: wrong credentials or no permission), which the
    /// same request would meet again on every attempt.
    static func download(_ error: StorageError, what: String) -> FailureReason {
        let detail = "\(error.code): \(what): \(error.message)"
        switch error.code {
        case .notFound, .invalidKey:
            return FailureReason(reason: sourceNotFound, message: detail, phase: .downloading, isRetryable: false)
        case .tooLarge:
            return FailureReason(reason: fileTooLarge, message: detail, phase: .downloading, isRetryable: false)
        default:
            return FailureReason(reason: sourceDownloadFailed, message: detail, phase: .downloading,
                                 isRetryable: error.isRetryable)
        }
    }

    /// Any failure to store an output: always retryable.
    static func upload(_ error: StorageError) -> FailureReason {
        FailureReason(reason: outputUploadFailed, message: "\(error.code): \(error.message)", phase: .uploadingOutputs,
                      isRetryable: true)
    }

    /// A worker-side fault (child died, protocol broken, database refused a statement): retryable.
    static func internalFault(_ message: String, phase: JobStep) -> FailureReason {
        FailureReason(reason: `internal`, message: message, phase: phase, isRetryable: true)
    }

    static func clip(_ text: String) -> String {
        guard text.count > maxMessageCharacters else { return text }
        return String(text.prefix(maxMessageCharacters - 1)) + "…"
    }
}
