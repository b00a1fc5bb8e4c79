/// `transcode-worker status` (being written).
struct StatusCommand {
    static let help = "USAGE: transcode-worker status"
    init(_ args: [String]) throws {}
    func run() -> Int32 {
        printError("status: not available in this build")
        return ExitStatus.internalError
    }
}
