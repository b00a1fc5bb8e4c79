/// `transcode-worker show` (being written).
struct ShowCommand {
    static let help = "USAGE: transcode-worker show"
    init(_ args: [String]) throws {}
    func run() -> Int32 {
        printError("show: not available in this build")
        return ExitStatus.internalError
    }
}
