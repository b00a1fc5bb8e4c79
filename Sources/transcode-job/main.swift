// The job child: `transcode-job job-exec …` converts one queued job attempt inside the sandbox the
// worker's launcher set up (see `JobExecCommand`). It links the pipeline without the daemon's
// modules, so it loads none of the daemon's libraries (libpq, libcurl, libmicrohttpd and what
// they pull in). `transcode-job convert …` is the `convert` command, which `transcode-worker
// convert` runs here: like every command, it makes itself non-dumpable first.
import JobPipeline
import WorkerCore

#if canImport(Glibc)
import Glibc
#endif

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "convert" {
    do {
        try ProcessGuard.makeNonDumpable()
    } catch {
        CommandRun.printError("error: \(error)")
        exit(ExitStatus.internalError)
    }
    exit(ConvertCommand.main(Array(arguments.dropFirst())))
}
exit(JobExecCommand.main(arguments))
