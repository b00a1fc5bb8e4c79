// `transcode-inspect FILE …`: the `inspect` command as a program of its own. It links the USD reader
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
exit(InspectCommand.main(Array(CommandLine.arguments.dropFirst())))
