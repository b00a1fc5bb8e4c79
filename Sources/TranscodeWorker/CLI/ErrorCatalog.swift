import ObjectStorage
import PGQueue
import WorkerHTTP
import WorkerRuntime

/// Every stable error code of the worker in one place: the module that raises it, whether the
/// same operation can succeed when tried again, and what it means. `docs/errors.md` is generated
/// from it (`transcode-worker errors --markdown`), and a test keeps the two equal and checks that
/// every code the sources raise is listed here.
///
/// A version's row and events carry a failure *reason* (`reasons`); the detailed *code* leads the
/// row's message (`codes`), and `PipelineError.wrap` / `FailureReason.pipeline` map one to the other.
///
/// The daemon links no feature module, so the codes of USDParse, Layering, GLBWriter, Manifest,
/// Thumbnailer and FloorPlan are written out here; `ErrorCatalogTests` compares them with each
/// module's `Code.allCases` (Thumbnailer's texture codes are warnings of a conversion, not listed).
public enum ErrorCatalog {
    public struct Entry: Sendable, Equatable {
        public var code: String
        /// The target that raises it.
        public var module: String
        /// `yes`, `no`, or a sentence when it depends.
        public var retryable: String
        public var meaning: String
    }

    static func entry(_ code: String, _ module: String, _ retryable: Bool, _ meaning: String) -> Entry {
        Entry(code: code, module: module, retryable: retryable ? "yes" : "no", meaning: meaning)
    }

    /// The failure reasons of `transcode-done`, the rows and the `failed` events.
    public static let reasons: [Entry] = [
        entry(FailureReason.sourceNotFound, "WorkerRuntime", false, "a source (or a recorded redacted texture) is missing from storage"),
        entry(FailureReason.sourceKeyRefused, "WorkerRuntime", false,
              "a source, JSON or redacted-texture key lies outside the version's own prefix, or the row's `source_bucket` is not the worker's"),
        entry(FailureReason.fileTooLarge, "WorkerRuntime", false, "a source is larger than `TRANSCODE_MAX_SOURCE_BYTES`"),
        Entry(code: FailureReason.sourceDownloadFailed, module: "WorkerRuntime", retryable: "yes, unless storage refused the credentials (403)",
              meaning: "storage could not be read"),
        entry(FailureReason.usdzParseError, "WorkerRuntime", false, "the USD / USDZ is invalid (`USD_*` codes)"),
        entry(FailureReason.roomPlanJSONInvalid, "WorkerRuntime", false, "the CapturedRoom JSON is invalid (`ROOMPLAN_*` codes)"),
        entry(FailureReason.redactionInvalid, "WorkerRuntime", false,
              "a replacement texture matches no texture or several, one texture has two different replacements, or the redactions exceed their limits"),
        entry(FailureReason.layeringFailed, "WorkerRuntime", false, "layering, the `.glb` or the manifest could not be built (`GLB_*`, `MANIFEST_*`)"),
        entry(FailureReason.previewFailed, "WorkerRuntime", false, "the card or hero image could not be rendered (`THUMB_*`, `PREVIEW_MISSING`)"),
        entry(FailureReason.outputUploadFailed, "WorkerRuntime", true, "an output could not be stored"),
        entry(FailureReason.timeout, "WorkerRuntime", true, "the attempt ran past `TRANSCODE_ATTEMPT_TIMEOUT_SECONDS`"),
        entry(FailureReason.cancelled, "WorkerRuntime", false, "an operator cancelled the version"),
        entry(FailureReason.uploadExpired, "WorkerRuntime", false,
              "the version stayed `uploading` past `TRANSCODE_UPLOAD_EXPIRE_SECONDS` without its sources (set by the upload sweep)"),
        entry("LEASE_EXPIRED", "PGQueue", true, "the worker holding the version stopped heartbeating; the rescuer queued it again"),
        entry(FailureReason.completionRejected, "WorkerRuntime", true, "`transcode-done` refused the report with a 4xx other than 409"),
        entry(FailureReason.internal, "WorkerRuntime", true, "the child process died or broke its protocol, or another worker fault"),
    ]

    /// The detailed codes, by module.
    public static let codes: [Entry] = usd + layering + writers + composer + storage + database + runtime

    static let usd: [Entry] = [
        entry("USD_TRUNCATED", "USDParse", false, "a read ran past the end of the file, an entry or a section"),
        entry("USD_UNRECOGNIZED_FORMAT", "USDParse", false, "not a USDZ, USDC or USDA file"),
        entry("USD_UNSUPPORTED_VERSION", "USDParse", false, "crate older than 0.4.0 (or major version ≠ 0)"),
        entry("USD_CORRUPT", "USDParse", false, "structurally inconsistent crate data"),
        entry("USD_DECOMPRESSION_FAILED", "USDParse", false, "LZ4 or deflate data that does not decode to the declared size"),
        entry("USD_LIMIT_EXCEEDED", "USDParse", false, "a `ParseLimits` cap was exceeded"),
        entry("USD_MEMORY_BUDGET_EXCEEDED", "USDParse", false, "the memory budget would be exceeded"),
        entry("USD_SYNTAX", "USDParse", false, "USDA text that does not follow the grammar"),
        entry("USD_ZIP_INVALID", "USDParse", false, "unreadable zip structure (bad records, overlaps, entries past the end)"),
        entry("USD_ZIP_UNSAFE_NAME", "USDParse", false, "absolute, `..` or duplicate entry name"),
        entry("USD_ZIP_UNSUPPORTED", "USDParse", false, "encrypted entries or an unsupported compression method"),
        entry("USD_NO_ROOT_LAYER", "USDParse", false, "a package with no USD layer to open"),
        entry("USD_COMPOSITION_CYCLE", "USDParse", false, "composition arcs that form a cycle"),
        entry("USD_TYPE_MISMATCH", "USDParse", false, "a value of the wrong type where it is used"),
        entry("USD_INVALID_GEOMETRY", "USDParse", false, "geometry that cannot be used"),
    ]

    static let layering: [Entry] = [
        entry("ROOMPLAN_EMPTY_INPUT", "Layering", false, "neither a scene nor CapturedRoom JSON bytes were given"),
        entry("ROOMPLAN_JSON_INVALID", "Layering", false,
              "the bytes are not JSON, or not of the CapturedRoom shape (the JSON path names the value)"),
        entry("ROOMPLAN_JSON_TOO_LARGE", "Layering", false, "the JSON is larger than the decoder's limit"),
        entry("ROOMPLAN_LIMIT_EXCEEDED", "Layering", false, "a named limit was exceeded (nesting, values, elements, polygon corners, nodes)"),
        entry("ROOMPLAN_INPUTS_MISMATCHED", "Layering", false,
              "the inputs do not go together: a USD whose element UUIDs are none of its JSON's, or rooms to merge that repeat one another or are not single rooms"),
    ]

    static let writers: [Entry] = [
        entry("GLB_INVALID_SCENE", "GLBWriter", false, "the layered scene does not validate or breaks the node layout of the layers"),
        entry("GLB_TOO_LARGE", "GLBWriter", false, "the binary buffer would exceed 2 GiB"),
        entry("MANIFEST_INVALID_VALUE", "Manifest", false, "a manifest field has the wrong form (the field is named)"),
        entry("MANIFEST_NON_FINITE", "Manifest", false, "a number that must be finite is NaN or infinite"),
        entry("MANIFEST_INDEX_OUT_OF_RANGE", "Manifest", false, "an index of the layered scene points outside its array"),
        entry("MANIFEST_DUPLICATE", "Manifest", false, "two layers share an id, or two elements an identifier"),
        entry("THUMB_EMPTY_SCENE", "Thumbnailer", false, "nothing drawable: no finite triangles"),
        entry("THUMB_WEBP_FAILED", "Thumbnailer", false, "libwebp refused to encode a frame"),
        entry("THUMB_INVALID_OPTIONS", "Thumbnailer", false, "no view was requested"),
        entry("PLAN_RENDER_FAILED", "FloorPlan", false, "cairo or libwebp could not draw or encode the floor plan"),
    ]

    static let composer: [Entry] = [
        entry("INPUT_MISSING", "TranscodeWorker", false, "neither a USD file nor a RoomPlan JSON was given"),
        entry("INPUT_UNREADABLE", "TranscodeWorker", false, "`submit` could not read a file it was given"),
        entry("REDACTION_LIMIT_EXCEEDED", "WorkerRuntime", false, "more redacted textures, or more bytes of them, than the limits allow"),
        entry("PREVIEW_MISSING", "WorkerRuntime", false, "the conversion made no card or hero image: the scan has nothing to draw"),
        entry("SOURCE_MISSING", "WorkerRuntime", false, "the version names no source file"),
        entry("SOURCE_EXPIRED", "WorkerRuntime", false, "retention deleted the version's sources (TRANSCODE_SOURCE_RETENTION_DAYS): it cannot be made again"),
        entry("SOURCE_ROOMS_INVALID", "WorkerRuntime", false, "the version's source_rooms names fewer than 2 or more than 16 rooms, or a USDZ for some rooms only"),
        entry("REDACTIONS_ERASED", "WorkerRuntime", false, "retention deleted the version's redactions (TRANSCODE_REDACTION_RETENTION_DAYS): the blur cannot be made again"),
        entry("INVALID_PATH", "WorkerRuntime", false, "a redacted texture's path inside the package cannot be used as a file name"),
        entry("IO_NOT_FOUND", "TranscodeWorker", false, "an input file does not exist"),
        entry("IO_READ_FAILED", "TranscodeWorker", true, "an input file could not be read"),
        entry("IO_TOO_LARGE", "TranscodeWorker", false, "an input file is larger than its limit"),
        entry("IO_WRITE_FAILED", "TranscodeWorker", true, "an output file could not be written"),
        entry("REPORT_MANIFEST_INVALID", "TranscodeWorker", false, "the report was asked of a result without its typed manifest"),
        entry("INTERNAL_ERROR", "TranscodeWorker", false, "an unexpected error inside the pipeline"),
        entry("PROCESS_NOT_HARDENED", "CommandCore", false,
              "a command could not make itself non-dumpable (`prctl(PR_SET_DUMPABLE, 0)` failed): it exits with status 4 before anything else"),
        entry("VERSION_NOT_FOUND", "TranscodeWorker", false, "an operator command named a version that does not exist"),
        entry("VERSION_EXISTS", "TranscodeWorker", false, "`submit` was given a version id that is taken"),
        entry("INVALID_STATE", "TranscodeWorker", false, "an operator command does not apply to the version's status"),
    ]

    static let storage: [Entry] = StorageError.Code.allCases.map { code in
        entry(code.rawValue, "ObjectStorage", code.isRetryable, storageMeaning[code] ?? "")
    }
        + [
            entry(HTTPClientError.Code.timeout.rawValue, "ObjectStorage", true, "no complete response within the request's timeout"),
            entry(HTTPClientError.Code.connectFailed.rawValue, "ObjectStorage", true, "the host could not be resolved or reached, or refused the connection"),
            entry(HTTPClientError.Code.transportFailed.rawValue, "ObjectStorage", true, "the connection broke or the response was malformed"),
            entry(HTTPClientError.Code.responseTooLarge.rawValue, "ObjectStorage", false, "the response body is larger than the client's limit"),
            entry(HTTPClientError.Code.invalidURL.rawValue, "ObjectStorage", false, "the URL is not an absolute http(s) URL with a host"),
            entry(HTTPClientError.Code.invalidRequest.rawValue, "ObjectStorage", false, "a bad method or header, or a timeout ≤ 0"),
        ]

    static let storageMeaning: [StorageError.Code: String] = [
        .notFound: "the key does not exist",
        .tooLarge: "the object is larger than the caller's limit",
        .invalidKey: "the key breaks the key rules or clashes with a prefix",
        .unavailable: "the store could not be read or reached (IO error, network, 5xx)",
        .writeFailed: "a write, rename or flush failed",
        .noSpace: "the device or quota is full",
        .urlInvalid: "the storage URL is malformed or names an unsupported scheme",
        .forbidden: "the store refused the credentials or the operation (S3 403)",
    ]

    static let database: [Entry] = [
        entry(DatabaseError.Code.connectFailed.rawValue, "PGQueue", true, "the database could not be reached"),
        entry(DatabaseError.Code.connectionLost.rawValue, "PGQueue", true, "the connection broke during a statement"),
        Entry(code: DatabaseError.Code.queryFailed.rawValue, module: "PGQueue", retryable: "only for serialization failures, deadlocks and shutdowns (by SQLSTATE)",
              meaning: "the server refused a statement"),
        entry(DatabaseError.Code.timeout.rawValue, "PGQueue", true, "a statement ran past its timeout"),
        entry(DatabaseError.Code.badResult.rawValue, "PGQueue", false, "a result did not have the expected shape"),
        entry(DatabaseError.Code.schemaMismatch.rawValue, "PGQueue", false, "a backend table lacks a column the worker writes, or has it with another type"),
    ]

    static let runtime: [Entry] = [
        entry("CHILD_CRASHED", "WorkerRuntime", true, "the job child died (signal, or exit without a result)"),
        entry("CHILD_PROTOCOL", "WorkerRuntime", true, "the job child broke its protocol: a bad message, file, link, size or hash"),
        entry("CHILD_SPAWN_FAILED", "WorkerRuntime", true, "the job child could not be started"),
        entry("CHILD_SETUP_FAILED", "TranscodeWorker", true, "the job child could not apply its limits or read its inputs"),
        entry("PREVIOUS_CHANGED", "WorkerRuntime", true,
              "a reprocess: a previous revision's file changed in the output store while it was being reused"),
        entry("WORKSPACE_FAILED", "WorkerRuntime", true, "the job's work directory could not be created, locked or opened"),
        entry(RealtimeBroadcastError.Code.rateLimited.rawValue, "WorkerRuntime", true, "Realtime answered 429; the progress event is dropped"),
        entry(RealtimeBroadcastError.Code.rejected.rawValue, "WorkerRuntime", false, "Realtime refused the event with another 4xx"),
        entry(RealtimeBroadcastError.Code.unavailable.rawValue, "WorkerRuntime", true, "Realtime answered 5xx or 3xx, or not at all"),
        entry(HTTPServerError.Code.badAddress.rawValue, "WorkerHTTP", false, "the server address is not HOST:PORT with an IPv4 host"),
        entry(HTTPServerError.Code.bindFailed.rawValue, "WorkerHTTP", false, "the socket could not be created, bound or put in listening mode"),
        entry(HTTPServerError.Code.startFailed.rawValue, "WorkerHTTP", false, "libmicrohttpd refused to start"),
    ]

    /// `docs/errors.md`, whole.
    public static func markdown() -> String {
        func table(_ entries: [Entry]) -> String {
            "| code | raised by | retryable | meaning |\n|---|---|---|---|\n"
                + entries.map { "| `\($0.code)` | \($0.module) | \($0.retryable) | \($0.meaning) |" }.joined(separator: "\n") + "\n"
        }
        return """
            # Errors

            Every stable error code of the worker, for anyone handling a failed conversion or a failed
            version. Generated by `transcode-worker errors --markdown` from `ErrorCatalog`; a test keeps
            this page equal to it. `convert` and `inspect` exit with status 3 for the input's codes and 4
            for the others (see [Exit status](cli.md#exit-status)); the limits behind `USD_LIMIT_EXCEEDED`
            and `USD_MEMORY_BUDGET_EXCEEDED` are under [Limits](usd-support.md#limits).

            ## Failure reasons

            What a version's `failed` event (`reason`), `transcode-done` body and row (`last_error_code`)
            carry; events add the reason's fixed message, the row's `last_error` starts with the detailed
            code below. Retryable reasons are tried again with backoff until `max_attempts`.

            \(table(reasons))
            ## Error codes

            The detailed codes. Parser errors are `USDParseError` with a safe description and context
            (format, section, byte offset, prim path, layer, line:column); every code that describes the
            input is permanent, because retrying the same bytes cannot help.

            \(table(codes))
            """
    }
}
