import FuzzHarness

/// `fuzz-convert`: the convert fuzz target. A libFuzzer binary when built by `scripts/fuzz` (`-D FUZZING`);
/// otherwise `fuzz-convert FILE|DIR...` runs the target's body on files and prints each outcome.
@main
enum FuzzConvert {
    static func main() { FuzzMain.run(.convert) }
}
