import CommandCore

extension InspectCommand {
    /// The entry point of `transcode-inspect`: `args` are the arguments after the program's name.
    /// Prints the report, the help (`--help`, status 0), the version (`--version`) or a usage error
    /// with the help (status 2, stderr), and returns the exit status. As `workerProgram`, it is
    /// `transcode-worker inspect`, which has no `--version` of its own.
    public static func main(_ args: [String], program: String = "transcode-inspect") -> Int32 {
        if program != workerProgram, args == ["--version"] || args == ["version"] {
            print(WorkerVersion.string)
            return ExitStatus.ok
        }
        return CommandRun.exitStatus(help: { usage(program: program) }) { try InspectCommand(args).run() }
    }
}
