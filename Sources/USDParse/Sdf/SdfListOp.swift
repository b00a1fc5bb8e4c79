/// A list-editing operation as authored in one layer (`prepend`, `append`, `delete`, explicit…).
public struct SdfListOp<T: Hashable & Sendable>: Hashable, Sendable {
    public var isExplicit: Bool = false
    public var explicitItems: [T] = []
    public var addedItems: [T] = []
    public var prependedItems: [T] = []
    public var appendedItems: [T] = []
    public var deletedItems: [T] = []
    public var orderedItems: [T] = []

    public init() {}

    /// An explicit list (`rel r = [</a>, </b>]`, `references = @x@`).
    public init(explicit items: [T]) {
        isExplicit = true
        explicitItems = items
    }

    /// An op that prepends `items`.
    public init(prepended items: [T]) { prependedItems = items }

    /// Applies this op on top of `weaker` (the result of weaker opinions), per Sdf list-op rules.
    public func applied(to weaker: [T]) -> [T] {
        if isExplicit { return Self.dedup(explicitItems) }
        var out = weaker.filter { !deletedItems.contains($0) }
        for a in addedItems where !out.contains(a) { out.append(a) }
        if !prependedItems.isEmpty {
            let pre = Self.dedup(prependedItems)
            out.removeAll { pre.contains($0) }
            out.insert(contentsOf: pre, at: 0)
        }
        if !appendedItems.isEmpty {
            let app = Self.dedup(appendedItems)
            out.removeAll { app.contains($0) }
            out.append(contentsOf: app)
        }
        return out
    }

    /// Items in order for a viewer starting from nothing (`prepended + added + appended`, or explicit).
    public var flattened: [T] { applied(to: []) }

    private static func dedup(_ items: [T]) -> [T] {
        var seen = Set<T>()
        return items.filter { seen.insert($0).inserted }
    }
}
