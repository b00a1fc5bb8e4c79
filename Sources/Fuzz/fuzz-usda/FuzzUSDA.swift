import FuzzHarness

/// `fuzz-usda`: the usda fuzz target. A libFuzzer binary when built by `scripts/fuzz` (`-D FUZZING`);
/// otherwise `fuzz-usda FILE|DIR...` runs the target's body on files and prints each outcome.
@main
enum FuzzUSDA {
    static func main() { FuzzMain.run(.usda) }
}
