/// `transcode-worker watch` (being written).
struct WatchCommand {
    static let help = "USAGE: transcode-worker watch"
    init(_ args: [String]) throws {}
    func run() -> Int32 {
        printError("watch: not available in this build")
        return ExitStatus.internalError
    }
}
