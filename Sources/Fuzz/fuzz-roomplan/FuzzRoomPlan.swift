import FuzzHarness

/// `fuzz-roomplan`: the roomplan fuzz target. A libFuzzer binary when built by `scripts/fuzz` (`-D FUZZING`);
/// otherwise `fuzz-roomplan FILE|DIR...` runs the target's body on files and prints each outcome.
@main
enum FuzzRoomPlan {
    static func main() { FuzzMain.run(.roomplan) }
}
