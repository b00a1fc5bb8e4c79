/// `transcode-worker process` (being written).
struct ProcessCommand {
    static let help = "USAGE: transcode-worker process"
    init(_ args: [String]) throws {}
    func run() -> Int32 {
        printError("process: not available in this build")
        return ExitStatus.internalError
    }
}
