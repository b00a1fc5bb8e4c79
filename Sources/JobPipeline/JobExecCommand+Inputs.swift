import SourceFiles
import USDParse
import Thumbnailer
import WorkerCore

/// Reading the job: its document (or its flags), then its files, into the pipeline's input.
extension JobExecCommand {
    /// An input that could not be read: its `error` line was written; the process exits with `status`.
    struct Unread: Error {
        var status: Int32
    }

    /// The job (`--job`'s document, or the flags) and the pipeline's input made from it: the
    /// files read (each at most the parser's `maxInputBytes`), the redaction rows, the previous
    /// revision's pack, the options applied. A failure is reported on its own `error` line:
    /// `IO_READ_FAILED` (retryable; also for a job document that does not decode, which is the
    /// worker's fault), `IO_TOO_LARGE` (permanent), the RoomPlan JSON's own codes (permanent).
    func readInput() -> Result<(JobInput, PipelineInput), Unread> {
        let limits = ParseLimits.default
        var job = self.job
        do {
            if let jobFile {
                let bytes = try FileReader.read(jobFile, maxBytes: JobInput.maxDocumentBytes)
                do {
                    job = try JobInput(document: bytes)
                    try Self.checkRooms(job)
                } catch {
                    throw FileReader.Failure(code: .readFailed, message: "\(jobFile): \(error.description)")
                }
            }
            var input = PipelineInput(versionId: job.versionId, roomId: job.roomId, limits: limits,
                                      thumbnails: job.thumbnails ? ThumbnailOptions() : nil)
            input.apply(job.options)
            var sources = try RoomInputs.readUSD(job.usd, maxBytes: limits.maxInputBytes)
            if !sources.isEmpty { input.usd = sources.removeFirst() }
            input.moreUSD = sources
            if !job.roomPlan.isEmpty {
                switch try RoomInputs.readJSON(job.roomPlan, maxBytes: limits.maxInputBytes) {
                case .success(let json): input.roomPlanJSON = json
                case .failure(let e):
                    Self.emit(e)
                    return .failure(Unread(status: ExitStatus.invalidInput))
                }
            }
            if let redacted = job.redactedTextures {
                input.redactedTextures = try FileReader.readRedactions(redacted, maxBytes: limits.maxInputBytes)
            }
            input.redactionAreas = job.redactions
            if let previous = job.previous { input.previous = try Self.readPrevious(previous, maxBytes: limits.maxInputBytes) }
            return .success((job, input))
        } catch let f as FileReader.Failure {
            Self.emit(PipelineError(f, phase: .reading))
            return .failure(Unread(status: f.code == .tooLarge ? ExitStatus.invalidInput : ExitStatus.internalError))
        } catch {
            Self.emit(PipelineError(FileReader.Failure(code: .readFailed, message: "\(error)"), phase: .reading))
            return .failure(Unread(status: ExitStatus.internalError))
        }
    }

    /// The previous revision in the worker's pack at `path` (at most `maxBytes`); nil when the
    /// pack is not well formed or holds no manifest (every group is then made again). Throws
    /// `FileReader.Failure` when the file cannot be read.
    static func readPrevious(_ path: String, maxBytes: Int) throws -> PreviousOutputs? {
        let bytes = try FileReader.read(path, maxBytes: maxBytes)
        guard var entries = bytes.withUnsafeBytes({ PreviousPack.decode($0, maxEntryBytes: maxBytes) }),
              let manifest = entries.removeValue(forKey: OutputName.manifest) else { return nil }
        return PreviousOutputs(manifest: manifest, files: entries)
    }
}
