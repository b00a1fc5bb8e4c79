/// One source file the worker read for a job, recorded in the manifest's `inputs` with its hash so
/// a manifest can be traced back to exact bytes.
public struct InputFile: Hashable, Sendable {
    /// `usd` (the scan package or layer), `roomplan_json` (the CapturedRoom JSON) or
    /// `redacted_texture` (a replacement texture applied by the redaction step).
    public var role: String
    /// File name as stored (e.g. `source.usdz`), without directories of the worker's machine.
    public var name: String
    /// Format of the bytes: `usdz`, `usdc`, `usda`, `json`, `png`, `jpeg`, …
    public var format: String
    /// Size in bytes.
    public var bytes: Int
    /// SHA-256 of the bytes, 64 hex digits (upper case is accepted and written in lower case).
    public var sha256: String

    /// A source file record; `InputFile.roles` lists the accepted roles.
    public init(role: String, name: String, format: String, bytes: Int, sha256: String) {
        self.role = role
        self.name = name
        self.format = format
        self.bytes = bytes
        self.sha256 = sha256
    }

    /// The accepted roles, in the order the manifest lists inputs.
    public static let roles = ["usd", "roomplan_json", "redacted_texture"]
}
