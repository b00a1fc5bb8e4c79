import USDParse
import WorkerCore

extension Digest {
    /// SHA-256 of a byte view (no copy).
    public static func sha256(_ view: ByteView) -> [UInt8] {
        (try? view.withBytes(0, view.count) { sha256($0) }) ?? sha256([])
    }
}
