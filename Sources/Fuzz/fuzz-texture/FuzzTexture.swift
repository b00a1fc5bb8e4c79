import FuzzHarness

/// `fuzz-texture`: the texture fuzz target. A libFuzzer binary when built by `scripts/fuzz` (`-D FUZZING`);
/// otherwise `fuzz-texture FILE|DIR...` runs the target's body on files and prints each outcome.
@main
enum FuzzTexture {
    static func main() { FuzzMain.run(.texture) }
}
