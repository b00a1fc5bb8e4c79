import WorkerCore

extension ConvertCommand {
    /// `transcode-job convert …`: `args` are the arguments after `convert`. Prints the summary, the
    /// help (`--help`, status 0) or a usage error with the help (status 2, stderr) as every command
    /// does (`CommandRun`), and returns the exit status.
    public static func main(_ args: [String]) -> Int32 {
        CommandRun.exitStatus(help: { help }) { try ConvertCommand(args).run() }
    }
}
