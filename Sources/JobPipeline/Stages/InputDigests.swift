import WorkerCore

/// The inputs' SHA-256 (lowercase hexadecimal), computed once: the output keys and the manifest's
/// `inputs` both use them.
struct InputDigests {
    /// The USD inputs' digest for the keys: one file's SHA-256, or for several rooms' files the
    /// SHA-256 of their digests, one a line, in input order. Nil without a USD.
    var usd: String?
    /// Each USD input's own SHA-256, in input order (the main file first).
    var usdFiles: [String] = []
    /// The RoomPlan JSON's SHA-256; nil without one.
    var json: String?

    init(_ input: PipelineInput) {
        let sources = [input.usd].compactMap { $0 } + (input.usd == nil ? [] : input.moreUSD)
        usdFiles = sources.map { Digest.hex(Digest.sha256($0.bytes)) }
        if !usdFiles.isEmpty {
            usd = usdFiles.count == 1
                ? usdFiles[0] : Digest.hex(Digest.sha256(Array(usdFiles.joined(separator: "\n").utf8)))
        }
        json = input.roomPlanJSON.map { Digest.hex(Digest.sha256($0.bytes)) }
    }
}
