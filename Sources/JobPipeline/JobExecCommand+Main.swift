import WorkerCore

#if canImport(Glibc)
import Glibc
#endif

extension JobExecCommand {
    /// The `transcode-job` executable's entry: `args` without the program name, `job-exec` first
    /// (as the worker passes it; `--help` alone prints the help). Returns the exit status
    /// (`ExitStatus`): 2 for a usage error, with the help on standard error.
    public static func main(_ args: [String]) -> Int32 {
        nameProcess()
        guard let command = args.first, command == "job-exec" else {
            if let first = args.first, ["--help", "-h", "help"].contains(first) {
                RawOutput.write(help + "\n", to: 1)
                return ExitStatus.ok
            }
            RawOutput.write("error: transcode-job runs job-exec (or convert, for transcode-worker convert)\n\n" + help + "\n", to: 2)
            return ExitStatus.usage
        }
        do {
            return try JobExecCommand(Array(args.dropFirst())).run()
        } catch let usage as UsageError {
            if usage.description.isEmpty {
                RawOutput.write(help + "\n", to: 1)
                return ExitStatus.ok
            }
            RawOutput.write("error: \(usage.description)\n\n" + help + "\n", to: 2)
            return ExitStatus.usage
        } catch {
            RawOutput.write("error: \(error)\n", to: 2)
            return ExitStatus.internalError
        }
    }

    /// The worker runs this file through a descriptor (`/proc/self/fd/N`), which names the
    /// process after the number; `ps` and `top` show `transcode-job` instead.
    static func nameProcess() {
        let fd = open("/proc/self/comm", O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        let name = Array("transcode-job".utf8)
        _ = name.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }
}
