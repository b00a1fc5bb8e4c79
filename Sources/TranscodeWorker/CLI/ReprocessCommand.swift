/// `transcode-worker reprocess` (being written).
struct ReprocessCommand {
    static let help = "USAGE: transcode-worker reprocess"
    init(_ args: [String]) throws {}
    func run() -> Int32 {
        printError("reprocess: not available in this build")
        return ExitStatus.internalError
    }
}
