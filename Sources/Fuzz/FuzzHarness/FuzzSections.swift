/// Splits one fuzz input into named files, so that a single byte string can carry a layer stack
/// or a USD file with its RoomPlan JSON.
///
/// Format: the first file's bytes, then for each further file a separator line
/// `\n@@@ NAME\n` followed by its bytes. The first file is named `root.usdz`, `root.usdc` or
/// `root.usda` after its leading bytes (zip, crate magic, anything else). Names are used as given
/// (the providers' own path rules apply); a repeated name keeps the last file.
public enum FuzzSections {
    /// The separator's first bytes: newline and `@@@ `.
    public static let marker: [UInt8] = Array("\n@@@ ".utf8)

    /// The files in `bytes`, the root first.
    public static func split(_ bytes: [UInt8]) -> [(name: String, bytes: [UInt8])] {
        var files: [(name: String, bytes: [UInt8])] = []
        var name: String? = nil
        var start = 0
        var i = 0
        while i + marker.count <= bytes.count {
            guard bytes[i] == marker[0], bytes[i..<(i + marker.count)].elementsEqual(marker) else {
                i += 1
                continue
            }
            guard let end = bytes[(i + marker.count)...].firstIndex(of: 0x0A) else { break }
            let chunk = Array(bytes[start..<i])
            files.append((name ?? rootName(chunk), chunk))
            name = String(decoding: bytes[(i + marker.count)..<end], as: UTF8.self)
            start = end + 1
            i = start
        }
        let chunk = Array(bytes[start...])
        files.append((name ?? rootName(chunk), chunk))
        return files
    }

    /// Joins files into one input (the inverse of `split`; the first file's name is not stored).
    public static func join(_ files: [(name: String, bytes: [UInt8])]) -> [UInt8] {
        var out: [UInt8] = []
        for (i, f) in files.enumerated() {
            if i > 0 { out += marker + Array(f.name.utf8) + [0x0A] }
            out += f.bytes
        }
        return out
    }

    /// `root.usdz`, `root.usdc` or `root.usda`, after the leading bytes.
    static func rootName(_ bytes: [UInt8]) -> String {
        if bytes.starts(with: [0x50, 0x4B]) { return "root.usdz" }
        if bytes.starts(with: Array("PXR-USDC".utf8)) { return "root.usdc" }
        return "root.usda"
    }
}
