/// `transcode-worker job-exec` (being written).
struct JobExecCommand {
    static let help = "USAGE: transcode-worker job-exec"
    init(_ args: [String]) throws {}
    func run() -> Int32 {
        printError("job-exec: not available in this build")
        return ExitStatus.internalError
    }
}
