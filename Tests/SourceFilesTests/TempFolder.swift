import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A private folder under the system's temporary directory, removed when the value goes: the
/// `root` a provider serves, and `outside`, a sibling folder it must never reach.
final class TempFolder {
    let base: String
    var root: String { base + "/root" }
    var outside: String { base + "/outside" }

    init() throws {
        let parent = (NSTemporaryDirectory() as NSString).appendingPathComponent("source-files-tests-XXXXXX")
        var template = Array(parent.utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        try #require(made != nil)
        base = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: base) }

    /// Writes `count` bytes (0, 1, 2, … modulo 251) at `path` (absolute), creating its folder.
    @discardableResult
    func file(_ path: String, bytes count: Int = 16) throws -> [UInt8] {
        let bytes = (0..<count).map { UInt8($0 % 251) }
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        try #require(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        return bytes
    }

    /// A symbolic link at `link` whose content is `target`, as given (relative or absolute).
    func link(_ link: String, to target: String) throws {
        try #require(symlink(target, link) == 0, "symlink \(link) -> \(target): \(String(cString: strerror(errno)))")
    }
}
