import FoundationEssentials
import FloorPlan
import GLBWriter
import Thumbnailer
import USDParse
import JSONCore
import SourceFiles
#if canImport(Glibc)
import Glibc
import WorkerCore
#endif

/// `transcode-worker job-exec --out DIR [--usd FILE] [--roomplan FILE] [--redacted-textures DIR] …`
///
/// The child process of one job attempt (started by `JobRunner` through the job launcher,
/// `ChildSandbox`, which has already applied the limits, no-new-privileges and, where the kernel
/// allows, user and network namespaces; not meant for people). It limits itself again first
/// (address space, CPU time, no core files: defense in depth, and the same when run by hand), runs `TranscodePipeline` on local files
/// and writes the outputs into `--out`, reporting on standard output one JSON line per event
/// (`ChildMessage`): a line per phase as it starts, then a final `done` or `error` line.
public struct JobExecCommand {
    public static let help = """
        USAGE: transcode-job job-exec --out DIR --job FILE [--memory-mb N] [--cpu-seconds N] [--parent-pid PID]
               transcode-job job-exec --out DIR [--usd FILE] [--roomplan FILE] [--redacted-textures DIR]
                                      [--version-id ID] [--room-id ID] [--memory-mb N] [--cpu-seconds N]
                                      [--parent-pid PID] [--no-thumbnails] [--report] [--previous FILE] [--glb-compression meshopt|none]
                                      [--texture-format webp|original] [--orbit-size SIZE] [--card-size SIZE] [--units metric|imperial]
                                      [--locale en|zh-Hans]

        Runs the conversion of one queued job attempt; the worker starts it as a child process for
        every attempt and reads its standard output. It is not meant to be run by hand.
        `transcode-job` is installed beside `transcode-worker`, which links no parser: the
        worker's `job-exec` and `convert` run `transcode-job job-exec` and `transcode-job convert`.

        The worker's launcher has already confined it (RLIMIT_AS, RLIMIT_CPU, RLIMIT_CORE,
        RLIMIT_FSIZE, RLIMIT_NOFILE, PR_SET_NO_NEW_PRIVS and, where the kernel allows, its own user
        and network namespaces: no network). First the process limits itself again: address space
        to --memory-mb MiB (RLIMIT_AS), CPU time to --cpu-seconds (RLIMIT_CPU; SIGXCPU, then SIGKILL
        5 s later), and no core files (RLIMIT_CORE = 0). Then it converts the inputs like `convert` (thumbnails included) and writes
        DIR/model.glb, the floor plan (DIR/plan.svg, DIR/plan.pdf, DIR/plan.dxf; none when the input is not a room),
        DIR/thumbs/*.webp, DIR/report.html with --report, and DIR/layer_manifest.json (the manifest last).

        OPTIONS:
          --out DIR                 Output directory (created when missing).
          --job FILE                The job as the worker describes it, one JSON document (at most
                                    1 MiB): ids, input files, redaction rows, the previous revision
                                    and the options below ("options": {"glb-compression", …,
                                    "report"}). Given alone: the flags that follow describe the
                                    same things, for a run by hand.
          --usd FILE                The USD source (.usdz, .usdc, .usda, .usd). Repeated: several rooms of
                                    one home in one world frame, merged into one model.
          --roomplan FILE           The RoomPlan CapturedRoom JSON. Repeated: several rooms merged into
                                    one structure (with --usd, one JSON per USD, in the same order).
          --redacted-textures DIR   Face-blurred textures: DIR/<path> replaces the package texture <path>.
          --version-id ID           room_versions.id, recorded in the manifest.
          --room-id ID              rooms.id, recorded in the manifest.
          --memory-mb N             Address-space limit in MiB (0: none; default 0).
          --cpu-seconds N           CPU-time limit in seconds (0: none; default 0).
          --parent-pid PID          Exit when this process is no longer the parent (checked twice a second).
          --no-thumbnails           Render no thumbnails.
          --report                  Also write report.html (the page `convert --report` writes;
                                    TRANSCODE_JOB_REPORT).
          --previous FILE           A reprocess: FILE is the worker's pack of the previous revision's
                                    layer_manifest.json and thumbnail and plan files; output groups
                                    whose key is unchanged are taken from there (checked against the
                                    manifest's sizes and hashes) and not written to DIR (a reused
                                    model, known by its hash only, is): the done line lists them
                                    with their sizes and hashes, and its summary names them as
                                    "reused" (the worker copies them in the output store). A pack
                                    that is not well formed is ignored.
          --glb-compression MODE    meshopt (default) or none, as for convert (the worker passes
                                    TRANSCODE_GLB_COMPRESSION).
          --texture-format FORMAT   webp (default) or original, as for convert (TRANSCODE_TEXTURE_FORMAT).
          --orbit-size SIZE         The orbit frames' size, N or WxH, 16…4096 (default 1320x990), as
                                    for convert (TRANSCODE_ORBIT_SIZE).
          --card-size SIZE          The card's and hero's size, N or WxH, 16…4096 (default 1320x990;
                                    the small card is half of it), as for convert (TRANSCODE_CARD_SIZE).
          --units SYSTEM            metric (default) or imperial: the plan's labels (the version's
                                    plan_units, else TRANSCODE_PLAN_UNITS).
          --locale LANG             en (default) or zh-Hans: the plan's words (the version's
                                    plan_locale, else TRANSCODE_PLAN_LOCALE).

        OUTPUT (one JSON object per line on standard output):
          {"event":"phase","phase":"parsing"}          as each phase starts (parsing, layering, writing,
                                                       plan, preview, manifest, report)
          {"event":"done","files":[{"path","bytes","sha256"}…],"summary":{…}}
          {"event":"error","code","message","phase","retryable"}

        EXIT STATUS: 0 success, 2 usage error, 3 invalid input, 4 internal error (or limits not applied).
        """

    var out = ""
    var memoryMB = 0
    var cpuSeconds = 0
    var parentPid: Int32?
    /// The job, from `--job FILE` (read by `run`) or from the flags.
    var job = JobInput()
    var jobFile: String?

    /// Parses `job-exec`'s options (without the command name); throws `UsageError` (an empty one
    /// for `--help`).
    public init(_ args: [String]) throws {
        var it = args.makeIterator()
        func value(_ flag: String) throws -> String {
            guard let v = it.next(), !v.hasPrefix("--") else { throw UsageError("\(flag) needs a value") }
            return v
        }
        func number(_ flag: String) throws -> Int {
            guard let n = Int(try value(flag)), n >= 0 else { throw UsageError("\(flag) needs an integer ≥ 0") }
            return n
        }
        var described: [String] = []
        while let a = it.next() {
            switch a {
            case "--out": out = try value(a)
            case "--job": jobFile = try value(a)
            case "--memory-mb": memoryMB = try number(a)
            case "--cpu-seconds": cpuSeconds = try number(a)
            case "--parent-pid": parentPid = Int32(try number(a))
            case "-h", "--help": throw UsageError.helpRequested
            default:
                guard try describeJob(a, value: { try value(a) }) else { throw UsageError("unknown argument \(a)") }
                described.append(a)
            }
        }
        if out.isEmpty { throw UsageError("job-exec needs --out DIR") }
        if jobFile != nil {
            if let flag = described.first { throw UsageError("\(flag) is part of the job: give it in the --job document") }
        } else {
            try Self.checkRooms(job)
        }
    }

    /// Takes one flag that describes the job into `job`; false when `flag` is none of them.
    private mutating func describeJob(_ flag: String, value: () throws -> String) throws -> Bool {
        switch flag {
        case "--usd", "--roomplan":
            // Repeated: several rooms of one home, each file once (never silently replaced).
            let path = try value()
            guard !(job.usd + job.roomPlan).contains(path) else { throw UsageError("\(path) is given twice") }
            guard job.usd.count + job.roomPlan.count < 2 * RoomInputs.maxRooms else {
                throw UsageError("more than \(RoomInputs.maxRooms) rooms")
            }
            if flag == "--usd" { job.usd.append(path) } else { job.roomPlan.append(path) }
        case "--redacted-textures": job.redactedTextures = try value()
        case "--version-id": job.versionId = try value()
        case "--room-id": job.roomId = try value()
        case "--no-thumbnails": job.thumbnails = false
        case "--previous": job.previous = try value()
        default: return try job.options.parseFlag(flag, value: value)
        }
        return true
    }

    /// The rules for a job's input files: at least one, and one JSON per USD when both are given.
    static func checkRooms(_ job: JobInput) throws(UsageError) {
        if job.usd.isEmpty && job.roomPlan.isEmpty { throw UsageError("job-exec needs --usd FILE, --roomplan FILE or both") }
        if !job.usd.isEmpty && !job.roomPlan.isEmpty && job.usd.count != job.roomPlan.count {
            throw UsageError("\(job.usd.count) --usd and \(job.roomPlan.count) --roomplan files: each room's USD goes with its own JSON")
        }
    }

    /// Converts the job; returns the exit status (`ExitStatus`).
    public func run() -> Int32 {
        if let parentPid { Self.watchParent(parentPid) }
        if let problem = applyLimits() {
            Self.emit(.error(code: "CHILD_SETUP_FAILED", message: problem, phase: .reading, retryable: true, errorClass: .workFiles))
            return ExitStatus.internalError
        }

        let job: JobInput, input: PipelineInput
        switch readInput() {
        case .success(let read): (job, input) = read
        case .failure(let exit): return exit.status
        }

        var result: PipelineResult
        do {
            result = try TranscodePipeline.run(input, progress: { Self.emit(.phase($0)) })
            if job.options.report {
                Self.emit(.phase(.report))
                try ReportBuilder.add(to: &result)
            }
        } catch {
            Self.emit(error)
            return error.isInputError ? ExitStatus.invalidInput : ExitStatus.internalError
        }
        do {
            // Files reused from the pack are the worker's own bytes: it copies them, so they are not
            // written again (the model is reused by its hash alone and is always written).
            let packed = input.previous.map { Set($0.files.keys) } ?? []
            try OutputDirectory.write(result.files.filter { !(result.reused.contains($0.path) && packed.contains($0.path)) },
                                      into: out, durable: false)
        } catch {
            // The worker puts the code in front of the message: send the message alone.
            let message = (error as? FileReader.Failure)?.message ?? "\(error)"
            Self.emit(PipelineError(FileReader.Failure(code: .writeFailed, message: message), phase: .manifest))
            return ExitStatus.internalError
        }
        let files = result.files.map { f in
            ChildMessage.File(path: f.path, bytes: f.bytes.count,
                              sha256: result.digests[f.path] ?? Digest.hex(Digest.sha256(f.bytes)))
        }
        Self.emit(.done(files: files, summary: JobSummary(result)))
        return ExitStatus.ok
    }

    /// Applies the resource limits; returns a message when one could not be applied.
    private func applyLimits() -> String? {
        func limit(_ resource: __rlimit_resource, _ soft: UInt64, hard: UInt64, _ name: String) -> String? {
            var current = rlimit()
            guard getrlimit(__rlimit_resource_t(resource.rawValue), &current) == 0 else {
                return "getrlimit(\(name)): \(String(cString: strerror(errno)))"
            }
            // A process may lower its hard limit but never raise it.
            let maxHard = current.rlim_max
            var wanted = rlimit(rlim_cur: rlim_t(min(soft, UInt64(maxHard))), rlim_max: rlim_t(min(hard, UInt64(maxHard))))
            guard setrlimit(__rlimit_resource_t(resource.rawValue), &wanted) == 0 else {
                return "setrlimit(\(name)): \(String(cString: strerror(errno)))"
            }
            return nil
        }
        if let e = limit(RLIMIT_CORE, 0, hard: 0, "RLIMIT_CORE") { return e }
        if cpuSeconds > 0, let e = limit(RLIMIT_CPU, UInt64(cpuSeconds), hard: UInt64(cpuSeconds) + 5, "RLIMIT_CPU") { return e }
        if memoryMB > 0 {
            let bytes = UInt64(memoryMB) << 20
            if let e = limit(RLIMIT_AS, bytes, hard: bytes, "RLIMIT_AS") { return e }
        }
        return nil
    }

    /// Exits (status 4) once `parent` is no longer this process's parent: the worker died, and
    /// nobody will read the result.
    private static func watchParent(_ parent: Int32) {
        // PID 1 of a PID namespace of its own (the worker's launcher gives it one where it can):
        // the parent is outside the namespace, so getppid() answers 0 whether it lives or not;
        // the parent-death signal the launcher set stands in for this watch.
        if getppid() == 0 && getpid() == 1 { return }
        guard getppid() == parent else { _exit(ExitStatus.internalError) }
        watchedParent = parent
        var thread = pthread_t()
        let started = pthread_create(&thread, nil, { _ in
            while true {
                usleep(500_000)
                if getppid() != JobExecCommand.watchedParent { _exit(ExitStatus.internalError) }
            }
        }, nil)
        if started == 0 { pthread_detach(thread) }
    }

    /// The worker's pid, set once before the watching thread starts.
    nonisolated(unsafe) private static var watchedParent: Int32 = 0

    /// Writes one protocol line to standard output with a single `write` per chunk, unbuffered,
    /// so the parent sees each phase as it starts.
    static func emit(_ message: ChildMessage) {
        RawOutput.write(message.line + "\n", to: 1)
    }

    /// The `error` line of `error`: its code, message, phase, whether to retry, and its kind.
    static func emit(_ error: PipelineError) {
        emit(.error(code: error.code, message: error.message, phase: error.phase, retryable: error.isRetryable,
                    errorClass: error.errorClass))
    }
}
