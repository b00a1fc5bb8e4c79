import SceneModel

/// Folds repeated scene warnings into counted ones, deterministically (first-occurrence order).
///
/// Warnings are grouped by (code, prim type of the path; empty for stage-level warnings):
/// * the same code on the same prim with a message of the same shape (equal once every run of
///   digits is ignored, so "instance 7 …" and "instance 8 …" match) is one entry, keeping the
///   first message;
/// * a group lists at most `maxListed` distinct prims; occurrences on further prims are added to
///   the count of the group's last listed entry.
///
/// An entry seen `1 + n` times (n > 0) ends its message with ` (and n more like it)`; see
/// `moreSuffix` and `repeatCount(in:)`.
struct WarningAggregator {
    private struct Entry {
        /// False for a reserved position not filled (yet); such entries are not reported.
        var filled = true
        var code: String
        var message: String
        var path: String?
        var extra: Int
    }

    private struct GroupKey: Hashable {
        var code: String
        var kind: String
    }

    private struct EntryKey: Hashable {
        var code: String
        var path: String?
        var shape: String
    }

    private var entries: [Entry] = []
    private var entryByKey: [EntryKey: Int] = [:]
    /// Entries of each group, in first-occurrence order.
    private var groups: [GroupKey: [Int]] = [:]

    /// Adds one occurrence. Returns false when it opens a new entry past `maxEntries` (the caller
    /// counts it as dropped).
    mutating func add(code: String, kind: String, message: String, path: String?, maxListed: Int, maxEntries: Int)
        -> Bool
    {
        let ek = EntryKey(code: code, path: path, shape: Self.shape(of: message))
        if let i = entryByKey[ek] {
            entries[i].extra += 1
            return true
        }
        let gk = GroupKey(code: code, kind: kind)
        let listed = groups[gk, default: []]
        if listed.count >= max(maxListed, 1), let last = listed.last {
            entries[last].extra += 1
            return true
        }
        guard entries.count < maxEntries else { return false }
        entries.append(Entry(code: code, message: message, path: path, extra: 0))
        entryByKey[ek] = entries.count - 1
        groups[gk, default: []].append(entries.count - 1)
        return true
    }

    /// Reserves the position of a warning that will be known later (`fill`); returns its slot.
    /// Reserved positions count towards `maxEntries`.
    mutating func reserve() -> Int {
        entries.append(Entry(filled: false, code: "", message: "", path: nil, extra: 0))
        return entries.count - 1
    }

    /// Records at reserved `slot` the occurrence that would have been added there, with the
    /// aggregation rules of `add` (a repeat or a full group folds into an earlier entry instead).
    mutating func fill(slot: Int, code: String, kind: String, message: String, path: String?, maxListed: Int) {
        let ek = EntryKey(code: code, path: path, shape: Self.shape(of: message))
        if let i = entryByKey[ek] {
            entries[i].extra += 1
            return
        }
        let gk = GroupKey(code: code, kind: kind)
        let listed = groups[gk, default: []]
        if listed.count >= max(maxListed, 1), let last = listed.last {
            entries[last].extra += 1
            return
        }
        entries[slot] = Entry(code: code, message: message, path: path, extra: 0)
        entryByKey[ek] = slot
        groups[gk, default: []].append(slot)
    }

    /// The aggregated warnings in first-occurrence order.
    func warnings() -> [SceneWarning] {
        entries.filter(\.filled).map { e in
            SceneWarning(
                code: e.code, message: e.extra > 0 ? e.message + Self.moreSuffix(e.extra) : e.message, primPath: e.path)
        }
    }

    /// `message` with every run of decimal digits replaced by `#`.
    static func shape(of message: String) -> String {
        var out = ""
        out.reserveCapacity(message.utf8.count)
        var inDigits = false
        for c in message.unicodeScalars {
            if ("0"..."9").contains(c) {
                if !inDigits { out.unicodeScalars.append("#") }
                inDigits = true
            } else {
                out.unicodeScalars.append(c)
                inDigits = false
            }
        }
        return out
    }

    /// The text appended to a warning that stands for `n` further occurrences.
    static func moreSuffix(_ n: Int) -> String { " (and \(n) more like it)" }

    /// How many occurrences a scene warning stands for: 1, plus `n` from a trailing
    /// ` (and n more like it)`.
    static func repeatCount(in message: String) -> Int {
        let tail = " more like it)"
        guard message.hasSuffix(tail) else { return 1 }
        let head = message.dropLast(tail.count)
        let digits = head.reversed().prefix { $0.isNumber }
        guard !digits.isEmpty, head.dropLast(digits.count).hasSuffix(" (and "), let n = Int(String(digits.reversed()))
        else { return 1 }
        return 1 + n
    }
}
