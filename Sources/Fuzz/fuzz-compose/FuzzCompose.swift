import FuzzHarness

/// `fuzz-compose`: the compose fuzz target. A libFuzzer binary when built by `scripts/fuzz` (`-D FUZZING`);
/// otherwise `fuzz-compose FILE|DIR...` runs the target's body on files and prints each outcome.
@main
enum FuzzCompose {
    static func main() { FuzzMain.run(.compose) }
}
