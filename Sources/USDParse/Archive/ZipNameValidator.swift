/// Checks zip entry names before anything else uses them.
///
/// A name is accepted when it is valid UTF-8 and is a relative, `/`-separated path that cannot leave
/// the package: no NUL byte, no leading `/`, no `\` (a Windows separator that other readers would
/// interpret), no drive letter (`C:`), and no `..` segment. Names are never used to create files, but
/// rejecting these keeps the package-path namespace (usd-format.md 12.4) unambiguous and matches the
/// "never extract with untrusted names" rule of hazard 16.
enum ZipNameValidator {
    /// The decoded name, or a `USD_ZIP_UNSAFE_NAME` error.
    static func validate(_ bytes: [UInt8], offset: Int) throws(USDParseError) -> String {
        let name = String(decoding: bytes, as: UTF8.self)
        // `String(decoding:)` repairs invalid sequences; a round trip that changes the bytes means
        // the stored name was not valid UTF-8.
        guard name.utf8.elementsEqual(bytes) else {
            throw .zip(.zipUnsafeName, "entry name is not valid UTF-8", entry: printable(name), offset: offset)
        }
        if let reason = problem(in: bytes) {
            throw .zip(.zipUnsafeName, "unsafe entry name: \(reason)", entry: printable(name), offset: offset)
        }
        return name
    }

    /// Why `bytes` is unsafe as an entry name, or nil when it is acceptable.
    static func problem(in bytes: [UInt8]) -> String? {
        if bytes.isEmpty { return "empty name" }
        if bytes.contains(0) { return "contains a NUL byte" }
        if bytes.contains(UInt8(ascii: "\\")) { return "contains a backslash" }
        if bytes[0] == UInt8(ascii: "/") { return "absolute path" }
        if bytes.count >= 2, bytes[1] == UInt8(ascii: ":"), isASCIILetter(bytes[0]) { return "drive letter" }
        for segment in bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        where segment.elementsEqual([UInt8(ascii: "."), UInt8(ascii: ".")]) {
            return "'..' segment"
        }
        return nil
    }

    /// A name safe to put into an error message (control characters replaced, length capped).
    static func printable(_ name: String) -> String {
        var out = ""
        for scalar in name.unicodeScalars.prefix(200) {
            out.unicodeScalars.append(scalar.value < 0x20 || scalar.value == 0x7F ? "?" : scalar)
        }
        return out
    }

    private static func isASCIILetter(_ b: UInt8) -> Bool {
        (b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z")) || (b >= UInt8(ascii: "a") && b <= UInt8(ascii: "z"))
    }
}
