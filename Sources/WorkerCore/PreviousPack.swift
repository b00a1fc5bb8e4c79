/// The previous revision's files as the worker hands them to a reprocess's `job-exec` child: one
/// file in the workspace (`in/previous.pack`) instead of one per output, so a manifest-only
/// reprocess creates two dozen fewer files per job.
///
/// Layout (integers little-endian):
///
/// ```
/// "CRPACK1\n"                        8 bytes
/// count                              UInt32, at most `maxEntries`
/// count × { name length   UInt16, 1...`maxNameBytes`
///           name          UTF-8, a plain relative path
///           data length   UInt64
///           data }
/// ```
///
/// Nothing follows the last entry. The worker writes it; the child reads it as it reads every
/// input: each length is checked against what is left before anything is copied, and a file
/// that breaks a rule is refused whole (`nil`), so the child makes every group again.
public enum PreviousPack {
    /// The first 8 bytes.
    public static let magic = Array("CRPACK1\n".utf8)
    /// The most entries one pack holds (the manifest and every output the child may report).
    public static let maxEntries = 65
    /// The longest entry name, bytes.
    public static let maxNameBytes = 256

    /// The pack of `entries`, in the order given (names must be unique, plain and at most
    /// `maxNameBytes` long; at most `maxEntries` of them). Nil when they are not.
    public static func encode(_ entries: [(name: String, bytes: [UInt8])]) -> [UInt8]? {
        guard entries.count <= maxEntries, Set(entries.map(\.name)).count == entries.count,
              entries.allSatisfy({ isPlainName($0.name) }) else { return nil }
        var out = magic
        out.reserveCapacity(12 + entries.reduce(0) { $0 + 10 + $1.name.utf8.count + $1.bytes.count })
        append(UInt64(entries.count), bytes: 4, to: &out)
        for e in entries {
            append(UInt64(e.name.utf8.count), bytes: 2, to: &out)
            out += Array(e.name.utf8)
            append(UInt64(e.bytes.count), bytes: 8, to: &out)
            out += e.bytes
        }
        return out
    }

    /// The entries of `pack`, by name, each copied out; nil when `pack` is not a well-formed
    /// pack (wrong magic, a count, name or length beyond its limit or beyond the end, a name
    /// twice, bytes after the last entry) or an entry is larger than `maxEntryBytes`.
    public static func decode(_ pack: UnsafeRawBufferPointer, maxEntryBytes: Int) -> [String: [UInt8]]? {
        var at = 0
        func take(_ n: Int) -> UnsafeRawBufferPointer? {
            guard n >= 0, n <= pack.count - at else { return nil }
            defer { at += n }
            return UnsafeRawBufferPointer(rebasing: pack[at..<(at + n)])
        }
        func integer(_ n: Int) -> UInt64? {
            guard let b = take(n) else { return nil }
            var v: UInt64 = 0
            for i in (0..<n).reversed() { v = v << 8 | UInt64(b[i]) }
            return v
        }
        guard let head = take(magic.count), head.elementsEqual(magic), let count = integer(4), count <= maxEntries else {
            return nil
        }
        var entries: [String: [UInt8]] = [:]
        for _ in 0..<Int(count) {
            guard let nameLength = integer(2), let nameBytes = take(Int(nameLength)),
                  let length = integer(8), length <= UInt64(maxEntryBytes), let data = take(Int(length)) else { return nil }
            let name = String(decoding: nameBytes, as: UTF8.self)
            guard Array(name.utf8).elementsEqual(nameBytes), isPlainName(name), entries[name] == nil else { return nil }
            entries[name] = Array(data)
        }
        return at == pack.count ? entries : nil
    }

    /// True for a name of 1...`maxNameBytes` bytes made of plain `/`-separated components.
    public static func isPlainName(_ name: String) -> Bool {
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        return (1...maxNameBytes).contains(name.utf8.count) && !name.utf8.contains(0)
            && !parts.contains { $0.isEmpty || $0 == "." || $0 == ".." }
    }

    private static func append(_ value: UInt64, bytes n: Int, to out: inout [UInt8]) {
        for i in 0..<n { out.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(i)))) }
    }
}
