/// A name from one of the room's closed vocabularies (layer ids, layer kinds, element
/// categories): a distinct type per vocabulary, spelled as the outputs spell it (`rawValue`),
/// ordered by that spelling.
public protocol RoomVocabularyName: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible,
    ExpressibleByStringLiteral where RawValue == String {
    init(rawValue: String)
}

extension RoomVocabularyName {
    @inlinable public init(_ rawValue: String) { self.init(rawValue: rawValue) }
    @inlinable public init(stringLiteral rawValue: String) { self.init(rawValue: rawValue) }
    public var description: String { rawValue }
    @inlinable public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}
