import Foundation
import SourceFiles
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `FileReader.read` and `FileReader.map`: whole regular files up to a size, and a typed code for
/// everything else.
@Suite struct FileReaderTests {
    /// Both ways in: the bytes read, or the failure's code.
    static func outcomes(_ path: String, maxBytes: Int) -> [Result<[UInt8], FileReader.Failure>] {
        [
            Result { try FileReader.read(path, maxBytes: maxBytes) }.mapError { $0 as! FileReader.Failure },
            Result { try FileReader.map(path, maxBytes: maxBytes).array }.mapError { $0 as! FileReader.Failure },
        ]
    }

    static func codes(_ path: String, maxBytes: Int = 1 << 20) -> [FileReader.Failure.Code?] {
        outcomes(path, maxBytes: maxBytes).map { if case .failure(let f) = $0 { f.code } else { nil } }
    }

    @Test func aFileUpToTheLimitIsReadWhole() throws {
        let t = try TempFolder()
        let bytes = try t.file(t.root + "/a.bin", bytes: 10_000)
        for outcome in Self.outcomes(t.root + "/a.bin", maxBytes: 10_000) {
            #expect(try outcome.get() == bytes)
        }
        try t.file(t.root + "/empty", bytes: 0)
        for outcome in Self.outcomes(t.root + "/empty", maxBytes: 0) {
            #expect(try outcome.get() == [])
        }
    }

    @Test func aFileOneBytePastTheLimitIsTooLarge() throws {
        let t = try TempFolder()
        try t.file(t.root + "/a.bin", bytes: 10_001)
        for outcome in Self.outcomes(t.root + "/a.bin", maxBytes: 10_000) {
            guard case .failure(let f) = outcome else {
                Issue.record("read past the limit")
                continue
            }
            #expect(f.code == .tooLarge)
            #expect(f.message.contains("10001 bytes") && f.message.contains("10000 bytes"), "\(f.message)")
            #expect(f.description == "IO_TOO_LARGE: " + f.message)
        }
    }

    @Test func aMissingFileIsNotFound() throws {
        let t = try TempFolder()
        #expect(Self.codes(t.root + "/nothing") == [.notFound, .notFound])
        try t.link(t.root + "/dangling", to: t.root + "/nothing")
        #expect(Self.codes(t.root + "/dangling") == [.notFound, .notFound])
    }

    /// The failures' messages, one per way in (nil for a read that succeeded).
    static func messages(_ path: String) -> [String?] {
        outcomes(path, maxBytes: 1 << 20).map { if case .failure(let f) = $0 { f.message } else { nil } }
    }

    @Test func aFolderIsNotARegularFile() throws {
        let t = try TempFolder()
        #expect(Self.codes(t.root) == [.readFailed, .readFailed])
        // Refused for what it is, before any read or map is tried.
        #expect(Self.messages(t.root).allSatisfy { $0?.hasSuffix("is not a readable regular file") == true })
    }

    @Test func aDeviceIsNotARegularFile() {
        // /dev/zero never ends, and a size limit taken from its size (0) would not hold it.
        #expect(Self.codes("/dev/zero") == [.readFailed, .readFailed])
        #expect(Self.messages("/dev/zero").allSatisfy { $0?.hasSuffix("is not a readable regular file") == true })
    }

    /// A FIFO with no writer would hold an open for reading forever: it is refused at once. The
    /// read runs on a thread of its own; should it block, the test opens the FIFO for writing
    /// after a minute, so it fails instead of hanging.
    @Test func aFIFOIsRefusedWithoutWaitingForAWriter() throws {
        let t = try TempFolder()
        let fifo = t.root + "/pipe.usda"
        try #require(mkfifo(fifo, 0o600) == 0)
        for useMap in [false, true] {
            let box = CodeBox()
            let done = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                do {
                    if useMap { _ = try FileReader.map(fifo, maxBytes: 1 << 20) } else { _ = try FileReader.read(fifo, maxBytes: 1 << 20) }
                } catch let f as FileReader.Failure {
                    box.code = f.code.rawValue
                } catch {}
                done.signal()
            }
            if done.wait(timeout: .now() + 60) == .timedOut {
                Issue.record("opening the FIFO waited for a writer (map: \(useMap))")
                let writer = open(fifo, O_RDWR | O_CLOEXEC)
                done.wait()
                close(writer)
            }
            #expect(box.code == FileReader.Failure.Code.readFailed.rawValue, "map: \(useMap)")
        }
    }

    @Test func aSymbolicLinkIsFollowedByTheReaderItself() throws {
        // Confinement is the asset provider's work (DirectoryAssetProviderTests); the reader reads
        // the file a link names, wherever it is, within the size limit.
        let t = try TempFolder()
        let bytes = try t.file(t.outside + "/x.png")
        try t.link(t.root + "/x.png", to: t.outside + "/x.png")
        #expect(try FileReader.read(t.root + "/x.png", maxBytes: 16) == bytes)
        #expect(Self.codes(t.root + "/x.png", maxBytes: 15) == [.tooLarge, .tooLarge])
    }
}

final class CodeBox: @unchecked Sendable {
    private let lock = NSLock()
    private var value: String?
    var code: String? {
        get { lock.withLock { value } }
        set { lock.withLock { value = newValue } }
    }
}
