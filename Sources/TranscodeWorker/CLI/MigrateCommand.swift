/// `transcode-worker migrate` (being written).
struct MigrateCommand {
    static let help = "USAGE: transcode-worker migrate"
    init(_ args: [String]) throws {}
    func run() -> Int32 {
        printError("migrate: not available in this build")
        return ExitStatus.internalError
    }
}
