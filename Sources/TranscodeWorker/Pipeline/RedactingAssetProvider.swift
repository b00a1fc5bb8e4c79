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

    /// Matches offers against `entries` (package paths). Returns entry → offer and the offers that
    /// matched nothing.
    static func match(_ offers: [Offer], entries: [String]) -> (matched: [String: Offer], unmatched: [Offer]) {
        let layerExtensions = [".usda", ".usdc", ".usd", ".usdz"]
        let candidates = entries.filter { e in !layerExtensions.contains { e.lowercased().hasSuffix($0) } }
        let byPath = Set(candidates)
        var byName: [String: [String]] = [:]
        for e in candidates { byName[String(e.split(separator: "/").last ?? ""), default: []].append(e) }
        var matched: [String: Offer] = [:]
        var unmatched: [Offer] = []
        for offer in offers.sorted(by: { $0.relativePath < $1.relativePath }) {
            if byPath.contains(offer.relativePath) {
                matched[offer.relativePath] = offer
            } else if let same = byName[String(offer.relativePath.split(separator: "/").last ?? "")], same.count == 1,
                      matched[same[0]] == nil {
                matched[same[0]] = offer
            } else {
                unmatched.append(offer)
            }
        }
        return (matched, unmatched)
    }
}
