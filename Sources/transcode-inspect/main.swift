// `transcode-inspect FILE …`: the `inspect` command as a program of its own, which `transcode-worker
// inspect` runs (the worker links no parser). It links the USD reader
// alone, so it loads none of the libraries of the pipeline (cairo, libwebp, meshoptimizer) or of the
// daemon (libpq, libcurl and their TLS, Kerberos and LDAP dependencies, libcrypto) and starts in a
// quarter of `transcode-worker`'s time. Like every command, it makes itself non-dumpable first.
import CommandCore
import USDInspect

#if canImport(Glibc)
import Glibc
#endif

do {
    try ProcessGuard.makeNonDumpable()
} catch {
    CommandRun.printError("error: \(error)")
    exit(ExitStatus.internalError)
}
// `transcode-worker inspect` runs this program named `InspectCommand.workerProgram`: the usage
// line then names the command that was typed.
let program = CommandLine.arguments.first == InspectCommand.workerProgram ? InspectCommand.workerProgram : "transcode-inspect"
exit(InspectCommand.main(Array(CommandLine.arguments.dropFirst()), program: program))
