/// `transcode-worker run` (being written).
struct RunCommand {
    static let help = "USAGE: transcode-worker run"
    init(_ args: [String]) throws {}
    func run() -> Int32 {
        printError("run: not available in this build")
        return ExitStatus.internalError
    }
}
