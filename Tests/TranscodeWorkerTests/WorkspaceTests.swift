import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import TranscodeWorker
@testable import WorkerRuntime

/// Work directories: per-start naming, the owner lock, and which leftovers count as stale.
@Suite("Job workspaces")
struct WorkspaceTests {
    /// A private stand-in for `$TMPDIR`.
    final class Base {
        let path = NSTemporaryDirectory() + "workspace-tests-" + UUID().uuidString
        init() throws { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
        deinit { try? FileManager.default.removeItem(atPath: path) }

        func exists(_ name: String) -> Bool {
            var info = stat()
            return lstat(path + "/" + name, &info) == 0
        }

        /// A leftover work directory with a file in it.
        @discardableResult
        func directory(_ name: String) throws -> String {
            try FileManager.default.createDirectory(atPath: path + "/" + name + "/out", withIntermediateDirectories: true)
            _ = FileManager.default.createFile(atPath: path + "/" + name + "/out/model.glb", contents: Data([1, 2, 3]))
            return name
        }

        /// The lock file of start `id`, locked (as its live worker holds it) when `held`.
        /// Returns the descriptor to close (-1 when not held).
        func lock(_ id: String, held: Bool) -> Int32 {
            let fd = open(path + "/" + JobWorkspace.ownerPrefix + id + ".lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            guard held else { close(fd); return -1 }
            #expect(flock(fd, LOCK_EX | LOCK_NB) == 0)
            return fd
        }
    }

    static func otherId() -> String {
        var g = SystemRandomNumberGenerator()
        var id = String(format: "%016llx", g.next() as UInt64)
        while id == JobWorkspace.startId { id = String(format: "%016llx", g.next() as UInt64) }
        return id
    }

    @Test("a new workspace carries this start's id and pid, under this start's held lock")
    func naming() throws {
        let ws = try JobWorkspace()
        defer { ws.remove() }
        let name = (ws.root as NSString).lastPathComponent
        #expect(name.hasPrefix("transcode-job-\(JobWorkspace.startId)-\(getpid())-"))
        let lock = JobWorkspace.baseDirectory + "/transcode-owner-\(JobWorkspace.startId).lock"
        let fd = open(lock, O_RDONLY | O_CLOEXEC)
        try #require(fd >= 0)
        defer { close(fd) }
        // Held by this process through another open file description: a second lock fails.
        #expect(flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK)
        // A sweep of the shared directory (which may remove what other, ended starts left behind:
        // how many is not this test's to know) keeps this start's workspace and its lock, held.
        JobWorkspace.removeStale(in: JobWorkspace.baseDirectory)
        #expect(FileManager.default.fileExists(atPath: ws.root))
        #expect(FileManager.default.fileExists(atPath: lock), "the owner lock file is kept")
        #expect(flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK, "and still held")
    }

    @Test("PID 1 style: the same pid with another start id is stale, lock file or not")
    func samePidOtherStart() throws {
        let base = try Base()
        let withLock = Self.otherId(), withoutLock = Self.otherId()
        _ = base.lock(withLock, held: false)
        let a = try base.directory("transcode-job-\(withLock)-\(getpid())-aaaaaa")
        let b = try base.directory("transcode-job-\(withoutLock)-\(getpid())-bbbbbb")
        let own = try base.directory("transcode-job-\(JobWorkspace.startId)-\(getpid())-cccccc")
        #expect(JobWorkspace.removeStale(in: base.path) == 2)
        #expect(!base.exists(a))
        #expect(!base.exists(b))
        #expect(base.exists(own))
        #expect(!base.exists(JobWorkspace.ownerPrefix + withLock + ".lock"))
    }

    @Test("a live worker's directories (its lock held) are kept, whatever its pid")
    func liveOtherWorker() throws {
        let base = try Base()
        let live = Self.otherId()
        let fd = base.lock(live, held: true)
        defer { close(fd) }
        let samePid = try base.directory("transcode-job-\(live)-\(getpid())-dddddd")
        let deadPid = try base.directory("transcode-job-\(live)-999999-eeeeee")
        #expect(JobWorkspace.removeStale(in: base.path) == 0)
        #expect(base.exists(samePid))
        #expect(base.exists(deadPid))
        #expect(base.exists(JobWorkspace.ownerPrefix + live + ".lock"))

        // Once it is gone (its descriptor closed, as at its exit), the next sweep removes them.
        close(fd)
        #expect(JobWorkspace.removeStale(in: base.path) == 2)
        #expect(!base.exists(samePid))
        #expect(!base.exists(JobWorkspace.ownerPrefix + live + ".lock"))
    }

    @Test("older names: this pid or a dead pid is stale, a live pid is kept; links and strangers are left")
    func olderNamesAndStrangers() throws {
        let base = try Base()
        let mine = try base.directory("transcode-job-\(getpid())-ffffff")
        let alive = try base.directory("transcode-job-1-gggggg")   // pid 1 always exists
        let stranger = try base.directory("transcode-jobless")
        let target = try base.directory("elsewhere")
        let link = "transcode-job-\(Self.otherId())-\(getpid())-hhhhhh"
        #expect(symlink(base.path + "/" + target, base.path + "/" + link) == 0)
        #expect(JobWorkspace.removeStale(in: base.path) == (getpid() == 1 ? 0 : 1))
        #expect(base.exists(mine) == (getpid() == 1))
        #expect(base.exists(alive))
        #expect(base.exists(stranger))
        #expect(base.exists(link))
        #expect(FileManager.default.fileExists(atPath: base.path + "/" + target + "/out/model.glb"))
    }
}
