/// `transcode-worker enqueue` (being written).
struct EnqueueCommand {
    static let help = "USAGE: transcode-worker enqueue"
    init(_ args: [String]) throws {}
    func run() -> Int32 {
        printError("enqueue: not available in this build")
        return ExitStatus.internalError
    }
}
