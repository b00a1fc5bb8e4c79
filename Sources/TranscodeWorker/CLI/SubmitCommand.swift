/// `transcode-worker submit` (being written).
struct SubmitCommand {
    static let help = "USAGE: transcode-worker submit"
    init(_ args: [String]) throws {}
    func run() -> Int32 {
        printError("submit: not available in this build")
        return ExitStatus.internalError
    }
}
