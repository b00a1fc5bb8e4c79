import JSONCore
import Testing

/// Shared helpers: parse under given limits, and the error a document is refused with.
enum Reader {
    static let roomy = JSONReader.Limits(maxDepth: 64, maxValues: 10_000, maxStringBytes: 4_096, maxNumberLength: 64)

    static func parse(_ text: String, _ limits: JSONReader.Limits = roomy, skipKeys: Set<String> = []) throws(JSONReadError)
        -> ParsedJSON
    {
        try JSONReader.parse(Array(text.utf8), limits: limits, skipKeys: skipKeys)
    }

    static func error(_ text: String, _ limits: JSONReader.Limits = roomy, skipKeys: Set<String> = []) -> JSONReadError? {
        error(bytes: Array(text.utf8), limits, skipKeys: skipKeys)
    }

    static func error(bytes: [UInt8], _ limits: JSONReader.Limits = roomy, skipKeys: Set<String> = []) -> JSONReadError? {
        do {
            _ = try JSONReader.parse(bytes, limits: limits, skipKeys: skipKeys)
            return nil
        } catch {
            return error
        }
    }

    static func limits(depth: Int = 64, values: Int = 10_000, stringBytes: Int = 4_096, numberLength: Int = 64)
        -> JSONReader.Limits
    {
        JSONReader.Limits(maxDepth: depth, maxValues: values, maxStringBytes: stringBytes, maxNumberLength: numberLength)
    }
}

/// Each cap of `JSONReader.Limits` admits a document exactly at it and refuses one a step past it,
/// as a `.limit` error naming the cap and the path where parsing stopped. (The document's total
/// size is the caller's to check before parsing: the reader has no cap of its own for it.)
@Suite struct JSONReaderLimitTests {
    @Test func depthCountsEveryOpenContainer() throws {
        let limits = Reader.limits(depth: 3)
        #expect(throws: Never.self) { try Reader.parse("[[[1]]]", limits) }
        #expect(throws: Never.self) { try Reader.parse(#"{"a":{"b":[]}}"#, limits) }
        let arrays = try #require(Reader.error("[[[[1]]]]", limits))
        #expect(arrays.kind == .limit)
        #expect(arrays.message.contains("maxDepth"))
        #expect(arrays.path == "[0][0][0]")
        let objects = try #require(Reader.error(#"{"a":{"b":{"c":{}}}}"#, limits))
        #expect(objects.kind == .limit && objects.path == "a.b.c")
    }

    @Test func hostileDepthIsRefusedAtTheCapNotAtTheEnd() throws {
        // 100,000 open brackets with no end: refused as too deep (not as unterminated) at level 33.
        let e = try #require(Reader.error(String(repeating: "[", count: 100_000), Reader.limits(depth: 32)))
        #expect(e.kind == .limit)
        #expect(e.path == String(repeating: "[0]", count: 32))
    }

    @Test func valuesCountEveryScalarAndContainer() throws {
        let limits = Reader.limits(values: 4)
        #expect(throws: Never.self) { try Reader.parse("[1,2,3]", limits) }        // the array and three numbers
        #expect(throws: Never.self) { try Reader.parse(#"{"a":[true,null]}"#, limits) }
        let e = try #require(Reader.error("[1,2,3,4]", limits))
        #expect(e.kind == .limit)
        #expect(e.message.contains("maxValues"))
        #expect(e.path == "[3]")
        // Object members' values count, their keys do not.
        #expect(throws: Never.self) { try Reader.parse(#"{"a":1,"b":2,"c":3}"#, limits) }
        #expect(Reader.error(#"{"a":1,"b":2,"c":3,"d":4}"#, limits)?.kind == .limit)
    }

    @Test func skippedStringsCountAsValuesButTakeNoStringBudget() throws {
        let long = String(repeating: "A", count: 100)
        let limits = Reader.limits(values: 2, stringBytes: 16)  // room for the key, not the value
        let parsed = try Reader.parse(#"{"coreModel":"\#(long)"}"#, limits, skipKeys: ["coreModel"])
        guard case .skipped(let count)? = parsed.member("coreModel") else {
            Issue.record("not skipped: \(parsed)")
            return
        }
        #expect(count == 100)
        // Without the skip, the same string is over the string cap.
        #expect(Reader.error(#"{"coreModel":"\#(long)"}"#, limits)?.message.contains("maxStringBytes") == true)
        // A skipped string is still a value, and its syntax is still checked.
        #expect(Reader.error(#"{"coreModel":"x","k":1}"#, limits, skipKeys: ["coreModel"])?.kind == .limit)
        #expect(Reader.error("{\"coreModel\":\"a\u{01}\"}", limits, skipKeys: ["coreModel"])?.kind == .syntax)
        #expect(Reader.error(#"{"coreModel":"abc"#, limits, skipKeys: ["coreModel"])?.kind == .syntax)
        // Any depth; a non-string value of that key is parsed as usual.
        let nested = try Reader.parse(#"[{"coreModel":"\#(long)"}]"#, Reader.limits(stringBytes: 16), skipKeys: ["coreModel"])
        if case .skipped(100)? = nested.arrayValue?.first?.member("coreModel") {} else { Issue.record("\(nested)") }
        #expect(try Reader.parse(#"{"coreModel":[1]}"#, skipKeys: ["coreModel"]).member("coreModel")?.arrayValue?.count == 1)
    }

    @Test func stringBytesAreCappedWithAndWithoutEscapes() throws {
        let limits = Reader.limits(stringBytes: 4)
        // Plain strings: four bytes pass, five do not.
        #expect(try Reader.parse(#""abcd""#, limits).stringValue == "abcd")
        let plain = try #require(Reader.error(#"["abcde"]"#, limits))
        #expect(plain.kind == .limit && plain.message.contains("maxStringBytes") && plain.path == "[0]")
        // Escaped strings are measured decoded: "\u00e9\u00e9" is four bytes of UTF-8.
        #expect(try Reader.parse(#""\u00e9\u00e9""#, limits).stringValue == "éé")
        #expect(try Reader.parse(#""ab\nc""#, limits).stringValue == "ab\nc")
        #expect(Reader.error(#""ab\ncd""#, limits)?.kind == .limit)
        #expect(Reader.error(#""\u00e9\u00e9x""#, limits)?.kind == .limit)
        // Multi-byte characters count in bytes, not characters.
        #expect(Reader.error("\"ééé\"", limits)?.kind == .limit)
        // Keys are strings too.
        #expect(Reader.error(#"{"abcde":1}"#, limits)?.kind == .limit)
        #expect(try Reader.parse(#"{"abcd":1}"#, limits).member("abcd")?.intValue == 1)
    }

    @Test func numberLengthIsCappedInCharacters() throws {
        let limits = Reader.limits(numberLength: 5)
        for accepted in ["12345", "-1234", "1.5e3", "-0.01"] {
            #expect(throws: Never.self, "\(accepted)") { try Reader.parse(accepted, limits) }
        }
        for refused in ["123456", "-12345", "1.5e10", "0.0001"] {
            let e = Reader.error(refused, limits)
            #expect(e?.kind == .limit, "\(refused)")
            #expect(e?.message.contains("maxNumberLength") == true, "\(refused)")
        }
        #expect(Reader.error("[1, 2, 123456]", limits)?.path == "[2]")
    }

    @Test func namedLimitsAreTheDocumentedOnes() {
        let small = JSONReader.Limits.smallDocument
        #expect(small.maxDepth == 32 && small.maxValues == 100_000 && small.maxStringBytes == 1 << 20 && small.maxNumberLength == 64)
        let manifest = JSONReader.Limits.manifest
        #expect(manifest.maxDepth == 64 && manifest.maxValues == 2_000_000 && manifest.maxStringBytes == 1 << 20
            && manifest.maxNumberLength == 64)
        #expect(Reader.error(String(repeating: "[", count: 33) + String(repeating: "]", count: 33), small)?.kind == .limit)
        #expect(throws: Never.self) {
            try Reader.parse(String(repeating: "[", count: 32) + String(repeating: "]", count: 32), small)
        }
    }
}
