/// One fuzz target: a name (`zip`, `crate`, …; the `fuzz-<name>` executable runs it) and a body
/// that takes arbitrary bytes and returns. The body calls the code under test with its normal
/// limits; it must never trap, whatever the bytes.
public struct FuzzTarget: Sendable {
    /// Short name: `zip`, `crate`, `usda`, `compose`, `roomplan`, `texture` or `convert`.
    public let name: String
    /// What the target exercises and the shape of its input (for `--help` and `scripts/fuzz --list`).
    public let summary: String
    /// The body: runs the code under test on `bytes`.
    public let run: @Sendable ([UInt8]) -> FuzzOutcome

    public init(name: String, summary: String, run: @escaping @Sendable ([UInt8]) -> FuzzOutcome) {
        self.name = name
        self.summary = summary
        self.run = run
    }

    /// Every target, in the order `scripts/fuzz all` runs them.
    public static let all: [FuzzTarget] = [zip, crate, usda, compose, roomplan, texture, convert]

    /// The target named `name`, or nil.
    public static func named(_ name: String) -> FuzzTarget? { all.first { $0.name == name } }
}
