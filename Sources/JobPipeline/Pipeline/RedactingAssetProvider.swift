import USDParse

/// Serves face-blurred replacement textures in place of package entries. A replacement file at
/// `<dir>/<rel>` replaces the entry whose path is `<rel>`; when no entry has that path, the one
/// entry whose file name equals the replacement's file name. Layer files are never replaced.
/// The original bytes of a replaced entry are never returned.
struct RedactingAssetProvider: AssetProvider {
    let base: any AssetProvider
    /// Entry path → replacement bytes.
    let replacements: [String: [UInt8]]

    func resolve(_ assetPath: String, anchor: String) -> String? { base.resolve(assetPath, anchor: anchor) }

    func data(at path: String) throws -> ByteView {
        if let r = replacements[path] { return ByteView(r) }
        return try base.data(at: path)
    }

    /// A replacement file offered by the client.
    struct Offer: Sendable {
        var relativePath: String
        var bytes: [UInt8]
    }

    /// Matches offers against `entries` (package paths). Returns entry → offer, and the offers
    /// that cannot be applied: those that match nothing, and those whose file name is shared by
    /// several entries (ambiguous) or whose entry another offer already replaces.
    static func match(_ offers: [Offer], entries: [String]) -> (matched: [String: Offer], unmatched: [Offer], ambiguous: [Offer]) {
        let layerExtensions = [".usda", ".usdc", ".usd", ".usdz"]
        let candidates = entries.filter { e in !layerExtensions.contains { e.lowercased().hasSuffix($0) } }
        let byPath = Set(candidates)
        var byName: [String: [String]] = [:]
        for e in candidates { byName[String(e.split(separator: "/").last ?? ""), default: []].append(e) }
        var matched: [String: Offer] = [:]
        var unmatched: [Offer] = [], ambiguous: [Offer] = []
        // Exact paths first, so a same-named offer elsewhere never takes an entry an exact one names.
        let ordered = offers.sorted { (byPath.contains($0.relativePath) ? 0 : 1, $0.relativePath) < (byPath.contains($1.relativePath) ? 0 : 1, $1.relativePath) }
        for offer in ordered {
            if byPath.contains(offer.relativePath) {
                matched[offer.relativePath] = offer
                continue
            }
            let same = byName[String(offer.relativePath.split(separator: "/").last ?? "")] ?? []
            if same.isEmpty {
                unmatched.append(offer)
            } else if same.count > 1 || matched[same[0]] != nil {
                ambiguous.append(offer)
            } else {
                matched[same[0]] = offer
            }
        }
        return (matched, unmatched, ambiguous)
    }
}
