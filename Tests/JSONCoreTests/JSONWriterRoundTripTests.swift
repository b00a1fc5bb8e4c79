import JSONCore
import Testing

/// `JSONWriter`: the bytes it writes, that they read back through `JSONReader` as the same value,
/// and that the same value always gives the same bytes.
@Suite struct JSONWriterRoundTripTests {
    static func text(_ v: JSONValue, _ options: JSONWriter.Options = .init()) -> String {
        String(decoding: JSONWriter.bytes(v, options), as: UTF8.self)
    }

    /// A value using every case and the awkward corners: escapes, control characters, non-ASCII,
    /// an astral character, keys that sort differently by UTF-16 and by scalar, nesting.
    static let sample: JSONValue = .object([
        "text": .string("quote\" backslash\\ slash/ nl\n cr\r tab\t nul\u{0} unit\u{1F} del\u{7F} é ☃ 😀"),
        "ints": .array([.int(0), .int(-1), .int(Int64(1) << 53), .int(-(Int64(1) << 53))]),
        "doubles": .array([.double(0.1), .double(-2.5e-8), .double(1e300), .double(123.456)]),
        "bools": .array([.bool(true), .bool(false), .null]),
        "\u{FF61}": .int(1), "\u{1F600}": .int(2), "": .object([:]), "Z": .array([]),
        "nested": .members([JSONMember("z", .array([.object(["b": .int(1), "a": .int(2)])])), JSONMember("a", .null)]),
    ])

    @Test func writtenBytesReadBackAsTheSameDocument() throws {
        for layout in [JSONWriter.Layout.compact, .indented] {
            let options = JSONWriter.Options(layout: layout)
            let written = JSONWriter.bytes(Self.sample, options)
            let read = try JSONReader.parse(written, limits: Reader.roomy)
            // `members` reads back as an object; written again, the bytes are the same.
            #expect(JSONWriter.bytes(read.jsonValue, options) == JSONWriter.bytes(Self.normalised(Self.sample), options))
            #expect(read.member("text")?.stringValue == "quote\" backslash\\ slash/ nl\n cr\r tab\t nul\u{0} unit\u{1F} del\u{7F} é ☃ 😀")
            #expect(read.member("doubles")?.arrayValue?.map(\.doubleValue) == [0.1, -2.5e-8, 1e300, 123.456])
            #expect(read.member("ints")?.arrayValue?.map(\.intValue) == [0, -1, 1 << 53, -(1 << 53)])
        }
    }

    /// `members` objects as the dictionaries they read back as.
    static func normalised(_ v: JSONValue) -> JSONValue {
        switch v {
        case .array(let items): return .array(items.map(normalised))
        case .object(let d): return .object(d.mapValues(normalised))
        case .members(let m): return .object(Dictionary(m.map { ($0.key, normalised($0.value)) }, uniquingKeysWith: { $1 }))
        default: return v
        }
    }

    @Test func theSameValueGivesTheSameBytesWhateverTheInsertionOrder() {
        var forward: [String: JSONValue] = [:], backward: [String: JSONValue] = [:]
        let keys = (0..<200).map { "k\($0 * 7919 % 1000)" }
        for (i, k) in keys.enumerated() { forward[k] = .int(Int64(i)) }
        for (i, k) in keys.enumerated().reversed() { backward[k] = .int(Int64(i)) }
        #expect(JSONWriter.bytes(.object(forward)) == JSONWriter.bytes(.object(backward)))
        #expect(JSONWriter.bytes(Self.sample) == JSONWriter.bytes(Self.sample))
    }

    @Test func objectKeysAreSortedByScalarAndMembersKeepTheirOrder() {
        // By UTF-16 code unit, U+1F600 (a surrogate pair, 0xD83D…) would sort before U+FF61.
        #expect(Self.text(.object(["b": .int(1), "a": .int(2), "B": .int(3), "\u{1F600}": .int(4), "\u{FF61}": .int(5)]))
            == "{\"B\":3,\"a\":2,\"b\":1,\"\u{FF61}\":5,\"\u{1F600}\":4}")
        #expect(Self.text(.members([JSONMember("z", .int(1)), JSONMember("a", .int(2))])) == #"{"z":1,"a":2}"#)
    }

    @Test func stringsEscapeOnlyWhatJSONRequires() {
        #expect(Self.text(.string("\"\\/\n\r\t\u{8}\u{C}\u{0}\u{1F}\u{7F}é")) == "\"\\\"\\\\/\\n\\r\\t\\u0008\\u000c\\u0000\\u001f\u{7F}é\"")
    }

    @Test func numbersAreShortestAndIntegralDoublesAreIntegers() {
        #expect(Self.text(.array([.double(2), .double(-0.0), .double(0.1), .double(1e-7), .double(1e16), .float(0.1),
                                  .int(Int64.min)]))
            == "[2,0,0.1,1e-07,1e+16,0.1,-9223372036854775808]")
        #expect(JSONWriter.numberText(Double.nan) == nil && JSONWriter.numberText(Float.infinity) == nil)
        #expect(JSONWriter.numberText(9_007_199_254_740_992.0) == "9007199254740992.0", "2⁵³ itself is past the integer form")
        #expect(JSONWriter.numberText(9_007_199_254_740_991.0) == "9007199254740991")
    }

    @Test func nonFiniteNumbersFollowTheOption() {
        let v = JSONValue.array([.double(.nan), .double(-.infinity), .float(.infinity)])
        #expect(Self.text(v) == "[null,null,null]")
        #expect(Self.text(v, .init(nonFinite: .zero)) == "[0,0,0]")
    }

    @Test func layouts() {
        let v = JSONValue.members([
            JSONMember("v", .array([.int(1), .null, .bool(true)])), JSONMember("o", .array([.object(["a": .int(1)])])),
            JSONMember("e", .array([])), JSONMember("m", .object([:])),
        ])
        #expect(Self.text(v) == #"{"v":[1,null,true],"o":[{"a":1}],"e":[],"m":{}}"#)
        #expect(Self.text(v, .init(layout: .indented, trailingNewline: true)) == """
            {
              "v": [1, null, true],
              "o": [
                {
                  "a": 1
                }
              ],
              "e": [],
              "m": {}
            }

            """)
        #expect(JSONValue.string("x").serialized() == "\"x\"")
        #expect(JSONValue.array([.int(1)]).serialized(pretty: true) == "[1]")
    }

    @Test func theBuilderSkipsAbsentValues() {
        var b = JSONObjectBuilder()
        b.set("a", .int(1))
        b.set("b", nil as JSONValue?)
        b.set("c", JSONValue?.some(.null))
        #expect(b.value == .members([JSONMember("a", .int(1)), JSONMember("c", .null)]))
    }
}
