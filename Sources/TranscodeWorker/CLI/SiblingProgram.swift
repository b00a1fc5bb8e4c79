import WorkerRuntime

#if canImport(Glibc)
import Glibc
import WorkerCore
#endif

/// The commands `transcode-worker` hands to the programs installed beside it, so that the daemon
/// links none of the parsers: `convert` and `job-exec` are `transcode-job`'s, `inspect` is
/// `transcode-inspect`'s. The program replaces this process (`execv`): what it prints and its exit
/// status are the command's.
enum SiblingProgram {
    /// The program that runs `command`, and the arguments that start it there (after its name).
    static func program(for command: String) -> (name: String, arguments: [String])? {
        switch command {
        case "convert", "job-exec": return ("transcode-job", [command])
        case "inspect": return ("transcode-inspect", [])
        default: return nil
        }
    }

    /// `transcode-inspect` runs under this name (its `argv[0]`, `InspectCommand.workerProgram`),
    /// so that its usage line names the command that was typed.
    static let inspectName = "transcode-worker inspect"

    /// Runs `command` with `arguments` in its program beside this executable. Returns only when
    /// that program cannot be started: status 4 (`ExitStatus.internalError`), after saying which
    /// file was looked for and why it did not start.
    static func exec(_ command: String, _ arguments: [String]) -> Int32 {
        guard let (name, lead) = program(for: command) else { return ExitStatus.usage }
        guard let path = ChildExecutable.besideRunningExecutable(name) else {
            printError("error: \(command) runs \(name) beside transcode-worker, whose folder is unknown (/proc/self/exe)")
            return ExitStatus.internalError
        }
        let argv0 = command == "inspect" ? inspectName : path
        var argv: [UnsafeMutablePointer<CChar>?] = ([argv0] + lead + arguments).map { strdup($0) }
        argv.append(nil)
        execv(path, argv)
        let reason = String(cString: strerror(errno))
        for p in argv { free(p) }
        printError("error: \(command) runs \(name), installed beside transcode-worker: \(path): \(reason)")
        return ExitStatus.internalError
    }
}
