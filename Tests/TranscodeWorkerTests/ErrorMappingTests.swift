import FloorPlan
import GLBWriter
import Layering
import Manifest
import SceneModel
import Testing
import Thumbnailer
import USDParse

@testable import TranscodeWorker
@testable import WorkerRuntime
import WorkerCore
@testable import JobPipeline

/// Each module's error type becomes its own stable code in one place (`PipelineError.wrap`), and
/// each code becomes the failure reason the apps see (`FailureReason.pipeline`).
@Suite struct ErrorMappingTests {
    @Test func manifestErrorsKeepTheirCodesAndFailLayeringPermanently() {
        let cases: [(ManifestError, ManifestError.Code)] = [
            (.invalidValue(field: "inputs[0].sha256", value: "zz", expected: "64 hex digits"), .invalidValue),
            (.nonFinite(field: "elements[A].transform"), .nonFinite),
            (.indexOutOfRange(field: "layers[0].nodes[2]", index: 9, count: 3), .indexOutOfRange),
            (.duplicate(field: "layers", value: "walls"), .duplicate),
        ]
        for (error, code) in cases {
            #expect(error.code == code && !error.isRetryable)
            let wrapped = PipelineError.wrap(error, phase: .manifest)
            #expect(wrapped.code == code.rawValue, "\(error) became \(wrapped.code)")
            #expect(wrapped.isInputError && !wrapped.isRetryable)
            #expect(wrapped.message == error.description)
            let failure = FailureReason.pipeline(code: wrapped.code, message: wrapped.message, phase: wrapped.phase,
                                                 retryable: wrapped.isRetryable, errorClass: wrapped.errorClass)
            #expect(failure.reason == FailureReason.layeringFailed && !failure.isRetryable)
            #expect(failure.message.hasPrefix(code.rawValue + ": "))
        }
    }

    @Test func everyModuleErrorKeepsItsCode() {
        let usd = PipelineError.wrap(USDParseError(.truncated, "short read"), phase: .parsing)
        #expect(usd.code == USDParseError.Code.truncated.rawValue)
        let layering = PipelineError.wrap(LayeringError(code: .jsonInvalid, message: "x", jsonPath: "walls[0]"),
                                          phase: .layering)
        #expect(layering.code == LayeringError.Code.jsonInvalid.rawValue && layering.context["json_path"] == "walls[0]")
        let glb = PipelineError.wrap(GLBWriterError(code: .tooLarge, message: "x"), phase: .writing)
        #expect(glb.code == GLBWriterError.Code.tooLarge.rawValue)
        #expect(FailureReason.pipeline(code: glb.code, message: "x", phase: .writing, retryable: false, errorClass: glb.errorClass)
                    .reason == FailureReason.layeringFailed)
        struct Unknown: Error {}
        let other = PipelineError.wrap(Unknown(), phase: .writing)
        #expect(other.code == "INTERNAL_ERROR" && !other.isInputError)
    }

    /// Every module's code keeps its text, classification and exit status through `wrap`: the
    /// input's fault except an invalid scene, which the worker built itself.
    @Test func everyCodeIsClassifiedByItsType() {
        var errors: [any Error] = USDParseError.Code.allCases.map { USDParseError($0, "x") }
        errors += LayeringError.Code.allCases.map { LayeringError(code: $0, message: "x") }
        errors += GLBWriterError.Code.allCases.map { GLBWriterError(code: $0, message: "x") }
        errors += ThumbnailerError.Code.allCases.map { ThumbnailerError(code: $0, message: "x") }
        errors += FloorPlanError.Code.allCases.map { FloorPlanError(code: $0, message: "x") }
        errors += [ManifestError.nonFinite(field: "f")]
        for error in errors {
            let coded = error as! any CodedError
            let wrapped = PipelineError.wrap(error, phase: .writing)
            #expect(wrapped.code == coded.code.rawValue && wrapped.message == coded.message && !wrapped.isRetryable)
            // The classification the code text gave before the codes were typed.
            #expect(wrapped.isInputError == !wrapped.code.hasPrefix("GLB_INVALID"), "\(wrapped.code)")
            // The failure reason the kind gives is the one the code's family gave when the daemon
            // read it from the spelling, in every phase the code can happen in (a plan error only
            // in the plan phase, where it counted as a preview).
            for phase in error is FloorPlanError ? [JobPhase.plan] : [.parsing, .writing, .plan] {
                let wrappedThere = PipelineError.wrap(error, phase: phase)
                let reason = FailureReason.pipeline(code: wrappedThere.code, message: "x", phase: phase, retryable: false,
                                                    errorClass: wrappedThere.errorClass).reason
                #expect(reason == Self.reasonBySpelling(wrappedThere.code, phase), "\(wrappedThere.code) in \(phase)")
            }
        }
        #expect(errors.count == 31)
        for own in PipelineError.Code.allCases {
            let phase: JobPhase = own == .reportManifestInvalid ? .report : .parsing
            let e = PipelineError(code: own, message: "x", phase: phase)
            let reason = FailureReason.pipeline(code: e.code, message: "x", phase: phase, retryable: false,
                                                errorClass: e.errorClass).reason
            #expect(reason == Self.reasonBySpelling(e.code, phase), "\(own)")
        }
    }

    /// The reasons the daemon once derived from a code's spelling and phase, kept here to check
    /// that the typed kinds give the same.
    static func reasonBySpelling(_ code: String, _ phase: JobPhase) -> String {
        if code.hasPrefix("USD_") { return FailureReason.usdzParseError }
        if code.hasPrefix("ROOMPLAN_") { return FailureReason.roomPlanJSONInvalid }
        if code.hasPrefix("MANIFEST_") || code.hasPrefix("GLB_") { return FailureReason.layeringFailed }
        if code.hasPrefix("THUMB_") { return FailureReason.previewFailed }
        switch code {
        case "REDACTION_INVALID": return FailureReason.redactionInvalid
        case "IO_TOO_LARGE": return FailureReason.fileTooLarge
        case "INPUT_MISSING": return FailureReason.sourceNotFound
        case "INTERNAL_ERROR", "IO_NOT_FOUND", "IO_READ_FAILED", "IO_WRITE_FAILED", "CHILD_SETUP_FAILED": return FailureReason.`internal`
        default:
            switch JobStep(phase) {
            case .parsing: return FailureReason.usdzParseError
            case .preview: return FailureReason.previewFailed
            default: return FailureReason.layeringFailed
            }
        }
    }

    @Test func stepsAreTheContractsNamesAndPipelinePhasesFoldOntoThem() {
        #expect(JobStep.allCases.map(\.rawValue)
                == ["downloading", "parsing", "layering", "preview", "uploading_outputs", "completing", "rescue"])
        let folded: [(JobPhase, JobStep)] = [(.reading, .parsing), (.parsing, .parsing), (.layering, .layering),
                                             (.writing, .layering), (.plan, .preview), (.preview, .preview),
                                             (.manifest, .preview), (.report, .preview)]
        #expect(folded.map(\.0) == JobPhase.allCases)
        for (phase, step) in folded {
            #expect(JobStep(phase) == step, "\(phase)")
        }
        let f = FailureReason.pipeline(code: "THUMB_WEBP_FAILED", message: "x", phase: .manifest, retryable: false, errorClass: .preview)
        #expect(f.step == .preview && f.phase == "preview")
    }
}
