/// How every command line ends: runs `body` and turns what it throws into the exit statuses all
/// commands share. A `UsageError` asking for help prints `help()` on stdout (status 0); another
/// prints the error and `help()` on stderr (status 2); anything else prints the error on stderr
/// (status 4, `ExitStatus.internalError`).
public enum CommandRun {
    public static func exitStatus(help: () -> String, _ body: () throws -> Int32) -> Int32 {
        do {
            return try body()
        } catch let u as UsageError {
            if u.description.isEmpty {
                print(help())
                return ExitStatus.ok
            }
            Self.printError("error: \(u.description)\n\n" + help())
            return ExitStatus.usage
        } catch {
            Self.printError("error: \(error)")
            return ExitStatus.internalError
        }
    }

    /// Writes one line to stderr, unbuffered.
    public static func printError(_ s: String) {
        RawOutput.write(s + "\n", to: 2)
    }
}
