// The job child: `transcode-job job-exec …` converts one queued job attempt inside the sandbox the
// worker's launcher set up (see `JobExecCommand`). It links the pipeline without the daemon's
// modules, so it loads none of the daemon's libraries (libpq, libcurl, libmicrohttpd and what
// they pull in).
import JobPipeline
import WorkerCore

#if canImport(Glibc)
import Glibc
#endif

exit(JobExecCommand.main(Array(CommandLine.arguments.dropFirst())))
