#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Findings made after an archive was opened (lazy CRC checks in `ZipArchive.data(of:)`), shared by
/// every copy of the archive value. Thread-safe: reads of entry data may happen on any thread.
final class ZipDiagnostics: @unchecked Sendable {
    /// Heap-allocated so its address is stable for the pthread calls.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var lateWarnings: [String] = []
    private var checkedEntries: Set<Int> = []

    init() {
        mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    private func locked<R>(_ body: () -> R) -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }

    /// Warnings recorded so far, in the order they were found.
    var warnings: [String] { locked { lateWarnings } }

    /// Marks entry `index` as CRC-checked; returns false when it was checked before.
    func claimCRCCheck(_ index: Int) -> Bool { locked { checkedEntries.insert(index).inserted } }

    func warn(_ message: String) { locked { lateWarnings.append(message) } }
}

/// Lets a `Sendable` archive keep the parse's `MemoryBudget` for lazy decompression.
///
/// `MemoryBudget` is a non-thread-safe class by design (one parse runs on one thread); this wrapper
/// only carries the reference. Reading deflated entries of one archive from several threads at once
/// would race on the budget's counters, so callers keep a parse on one thread.
final class BudgetReference: @unchecked Sendable {
    let budget: MemoryBudget
    init(_ budget: MemoryBudget) { self.budget = budget }
}
