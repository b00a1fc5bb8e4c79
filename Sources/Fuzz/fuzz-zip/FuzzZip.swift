import FuzzHarness

/// `fuzz-zip`: the zip fuzz target. A libFuzzer binary when built by `scripts/fuzz` (`-D FUZZING`);
/// otherwise `fuzz-zip FILE|DIR...` runs the target's body on files and prints each outcome.
@main
enum FuzzZip {
    static func main() { FuzzMain.run(.zip) }
}
