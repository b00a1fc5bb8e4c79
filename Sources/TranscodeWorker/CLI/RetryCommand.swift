/// `transcode-worker retry` (being written).
struct RetryCommand {
    static let help = "USAGE: transcode-worker retry"
    init(_ args: [String]) throws {}
    func run() -> Int32 {
        printError("retry: not available in this build")
        return ExitStatus.internalError
    }
}
