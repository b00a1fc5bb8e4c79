/// Counts bytes of decoded data against `ParseLimits.memoryBudgetBytes` and decompressed bytes
/// against `ParseLimits.maxUncompressedBytes`. Charge *before* allocating. One budget is shared by
/// every layer of one parse; it is not thread-safe (a parse runs on one thread).
public final class MemoryBudget {
    public let limit: Int
    public let decompressionLimit: Int
    public private(set) var used: Int = 0
    public private(set) var decompressed: Int = 0

    public init(limits: ParseLimits) {
        self.limit = limits.memoryBudgetBytes
        self.decompressionLimit = limits.maxUncompressedBytes
    }

    /// Charges `bytes` of decoded data; throws `USD_MEMORY_BUDGET_EXCEEDED` when over budget.
    public func charge(_ bytes: Int, _ what: @autoclosure () -> String) throws(USDParseError) {
        guard bytes >= 0 else { return }
        let (sum, overflow) = used.addingReportingOverflow(bytes)
        if overflow || sum > limit {
            throw USDParseError(
                .memoryBudgetExceeded, "\(what()) needs \(bytes) bytes; budget \(limit) bytes, \(used) already used")
        }
        used = sum
    }

    /// Charges `bytes` of decompressed output; throws `USD_LIMIT_EXCEEDED` (maxUncompressedBytes).
    public func chargeDecompressed(_ bytes: Int, _ what: @autoclosure () -> String) throws(USDParseError) {
        guard bytes >= 0 else { return }
        let (sum, overflow) = decompressed.addingReportingOverflow(bytes)
        if overflow || sum > decompressionLimit {
            throw USDParseError(
                .limitExceeded,
                "\(what()) would decompress to \(bytes) bytes; maxUncompressedBytes is \(decompressionLimit)")
        }
        decompressed = sum
    }
}
