/// Image sizes written as text on command lines and in settings: `N` (a square) or `WxH`, in
/// pixels. The one parser of `convert --thumb-size`, `--orbit-size` and `TRANSCODE_ORBIT_SIZE`.
public enum SizeText {
    /// The sides a thumbnail size may have (pixels).
    public static let thumbnailSides: ClosedRange<Int> = 16...4096

    /// The width and height `text` names, each within `sides`; nil for anything else (signs,
    /// spaces, a third part, a side out of range).
    public static func parse(_ text: String, sides: ClosedRange<Int> = thumbnailSides) -> (width: Int, height: Int)? {
        let parts = text.split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 1 || parts.count == 2 else { return nil }
        var sizes: [Int] = []
        for part in parts {
            guard !part.isEmpty, part.count <= 5, part.allSatisfy({ $0.isASCII && $0.isNumber }),
                  let n = Int(part), sides.contains(n) else { return nil }
            sizes.append(n)
        }
        return (sizes[0], sizes.count == 2 ? sizes[1] : sizes[0])
    }
}
