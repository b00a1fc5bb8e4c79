import GLBWriter
import Layering
import Manifest
import Testing
import USDParse

@testable import TranscodeWorker
@testable import WorkerRuntime
import WorkerCore
@testable import JobPipeline

/// Each module's error type becomes its own stable code in one place (`PipelineError.wrap`), and
/// each code becomes the failure reason the apps see (`FailureReason.pipeline`).
@Suite struct ErrorMappingTests {
    @Test func manifestErrorsKeepTheirCodesAndFailLayeringPermanently() {
        let cases: [(ManifestError, String)] = [
            (.invalidValue(field: "inputs[0].sha256", value: "zz", expected: "64 hex digits"), "MANIFEST_INVALID_VALUE"),
            (.nonFinite(field: "elements[A].transform"), "MANIFEST_NON_FINITE"),
            (.indexOutOfRange(field: "layers[0].nodes[2]", index: 9, count: 3), "MANIFEST_INDEX_OUT_OF_RANGE"),
            (.duplicate(field: "layers", value: "walls"), "MANIFEST_DUPLICATE"),
        ]
        for (error, code) in cases {
            #expect(error.code == code && !error.isRetryable)
            let wrapped = PipelineError.wrap(error, phase: .manifest)
            #expect(wrapped.code == code, "\(error) became \(wrapped.code)")
            #expect(wrapped.isInputError && !wrapped.isRetryable)
            #expect(wrapped.message == error.description)
            let failure = FailureReason.pipeline(code: wrapped.code, message: wrapped.message, phase: wrapped.phase,
                                                 retryable: wrapped.isRetryable)
            #expect(failure.reason == FailureReason.layeringFailed && !failure.isRetryable)
            #expect(failure.message.hasPrefix(code + ": "))
        }
    }

    @Test func everyModuleErrorKeepsItsCode() {
        let usd = PipelineError.wrap(USDParseError(.truncated, "short read"), phase: .parsing)
        #expect(usd.code == "USD_TRUNCATED")
        let layering = PipelineError.wrap(LayeringError(code: LayeringError.jsonInvalid, message: "x", jsonPath: "walls[0]"),
                                          phase: .layering)
        #expect(layering.code == "ROOMPLAN_JSON_INVALID" && layering.context["json_path"] == "walls[0]")
        let glb = PipelineError.wrap(GLBWriterError(code: "GLB_TOO_LARGE", message: "x"), phase: .writing)
        #expect(glb.code == "GLB_TOO_LARGE")
        #expect(FailureReason.pipeline(code: glb.code, message: "x", phase: .writing, retryable: false).reason == FailureReason.layeringFailed)
        struct Unknown: Error {}
        let other = PipelineError.wrap(Unknown(), phase: .writing)
        #expect(other.code == "INTERNAL_ERROR" && !other.isInputError)
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
        let f = FailureReason.pipeline(code: "THUMB_WEBP_FAILED", message: "x", phase: .manifest, retryable: false)
        #expect(f.step == .preview && f.phase == "preview")
    }
}
