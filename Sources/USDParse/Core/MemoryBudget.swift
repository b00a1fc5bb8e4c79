import Synchronization

/// Counts bytes of decoded data against `ParseLimits.memoryBudgetBytes` and decompressed bytes
/// against `ParseLimits.maxUncompressedBytes`. Charge *before* allocating. One budget is shared by
/// every layer of one parse and is safe to charge from several threads (deferred arrays may be
/// decoded in parallel).
public final class MemoryBudget: Sendable {
    public let limit: Int
    public let decompressionLimit: Int
    private let counters = Mutex<(used: Int, decompressed: Int)>((0, 0))
    /// Bytes of decoded data charged so far.
    public var used: Int { counters.withLock { $0.used } }
    /// Bytes of decompressed output charged so far.
    public var decompressed: Int { counters.withLock { $0.decompressed } }

    public init(limits: ParseLimits) {
        self.limit = limits.memoryBudgetBytes
        self.decompressionLimit = limits.maxUncompressedBytes
    }

    /// Charges `bytes` of decoded data; throws `USD_MEMORY_BUDGET_EXCEEDED` when over budget.
    public func charge(_ bytes: Int, _ what: @autoclosure () -> String) throws(USDParseError) {
        guard bytes >= 0 else { return }
        let before: Int? = counters.withLock { c in
            let (sum, overflow) = c.used.addingReportingOverflow(bytes)
            if overflow || sum > limit { return c.used }
            c.used = sum
            return nil
        }
        if let before {
            throw USDParseError(
                .memoryBudgetExceeded, "\(what()) needs \(bytes) bytes; budget \(limit) bytes, \(before) already used")
        }
    }

    /// Charges `bytes` of decompressed output; throws `USD_LIMIT_EXCEEDED` (maxUncompressedBytes).
    public func chargeDecompressed(_ bytes: Int, _ what: @autoclosure () -> String) throws(USDParseError) {
        guard bytes >= 0 else { return }
        let ok: Bool = counters.withLock { c in
            let (sum, overflow) = c.decompressed.addingReportingOverflow(bytes)
            if overflow || sum > decompressionLimit { return false }
            c.decompressed = sum
            return true
        }
        if !ok {
            throw USDParseError(
                .limitExceeded,
                "\(what()) would decompress to \(bytes) bytes; maxUncompressedBytes is \(decompressionLimit)")
        }
    }
}
