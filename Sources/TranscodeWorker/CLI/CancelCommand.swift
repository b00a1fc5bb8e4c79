/// `transcode-worker cancel` (being written).
struct CancelCommand {
    static let help = "USAGE: transcode-worker cancel"
    init(_ args: [String]) throws {}
    func run() -> Int32 {
        printError("cancel: not available in this build")
        return ExitStatus.internalError
    }
}
