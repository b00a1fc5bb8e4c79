import FuzzHarness

/// `fuzz-crate`: the crate fuzz target. A libFuzzer binary when built by `scripts/fuzz` (`-D FUZZING`);
/// otherwise `fuzz-crate FILE|DIR...` runs the target's body on files and prints each outcome.
@main
enum FuzzCrate {
    static func main() { FuzzMain.run(.crate) }
}
