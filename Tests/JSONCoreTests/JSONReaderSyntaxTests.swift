import JSONCore
import Testing

/// RFC 8259 numbers, strings and documents: what is accepted, what each accepted text reads as, and
/// that everything else is a `.syntax` error.
@Suite struct JSONReaderSyntaxTests {
    // MARK: Numbers

    @Test func numbersKeepTheirTextAndConvertOnDemand() throws {
        #expect(try Reader.parse("0").intValue == 0)
        #expect(try Reader.parse("-17").intValue == -17)
        #expect(try Reader.parse("2.5e3").intValue == 2500)
        #expect(try Reader.parse("3.0").intValue == 3)
        #expect(try Reader.parse("3.5").intValue == nil)
        #expect(try Reader.parse("1E-2").doubleValue == 0.01)
        #expect(try Reader.parse("1e+2").doubleValue == 100)
        if case .number(let text) = try Reader.parse("-1.250e+07") { #expect(text == "-1.250e+07") } else { Issue.record("not a number") }
    }

    @Test func negativeZeroIsZero() throws {
        let v = try Reader.parse("-0")
        #expect(v.intValue == 0)
        #expect(v.doubleValue == 0)
        #expect(v.jsonValue == .int(0))
        #expect(try Reader.parse("-0.0").doubleValue?.sign == .minus, "the text is kept, so a Double reads the sign")
    }

    @Test func integersBeyondTwoToTheFiftyThreeAreNotInts() throws {
        #expect(try Reader.parse("9007199254740992").intValue == 1 << 53)
        #expect(try Reader.parse("-9007199254740992").intValue == -(1 << 53))
        #expect(try Reader.parse("9007199254740993").intValue == nil)
        #expect(try Reader.parse("9223372036854775807").intValue == nil)
        #expect(try Reader.parse("-9223372036854775808").intValue == nil, "Int.min is refused, not trapped on")
        #expect(try Reader.parse("99999999999999999999").intValue == nil, "past Int64")
        #expect(try Reader.parse("1e300").intValue == nil)
        #expect(try Reader.parse("9007199254740993").jsonValue == .double(9007199254740992))
    }

    @Test func overflowingNumbersParseButAreNotFinite() throws {
        let huge = try Reader.parse("1e400")
        #expect(huge.doubleValue == nil)
        #expect(huge.intValue == nil)
        #expect(huge.jsonValue == .null)
        #expect(try Reader.parse("-1e400").doubleValue == nil)
        #expect(try Reader.parse("1e-400").doubleValue == 0, "underflow is zero, which is finite")
    }

    @Test(arguments: ["01", "-01", "00", "[01]", "{\"a\":012}", "+1", "-", ".5", "1.", "1.e3", "1e", "1e+", "-e1",
                      "0x10", "1_000", "NaN", "Infinity", "-Infinity", "1.5.2", "--1"])
    func malformedNumbersAreSyntaxErrors(_ text: String) {
        #expect(Reader.error(text)?.kind == .syntax, "\(text)")
    }

    // MARK: Strings

    @Test func escapesDecode() throws {
        let text = #""\" \\ \/ \b \f \n \r \t \u0041 \u00e9 \u20AC""#
        #expect(try Reader.parse(text).stringValue == "\" \\ / \u{08} \u{0C} \n \r \t A é €")
    }

    @Test func surrogatePairsJoinAndLoneSurrogatesBecomeReplacementCharacters() throws {
        #expect(try Reader.parse(#""\ud83d\ude00""#).stringValue == "😀")
        #expect(try Reader.parse(#""\uD83D\uDE00x""#).stringValue == "😀x")
        #expect(try Reader.parse(#""\ud800""#).stringValue == "\u{FFFD}", "a high surrogate at the end")
        #expect(try Reader.parse(#""\ud800x""#).stringValue == "\u{FFFD}x", "a high surrogate before a plain character")
        #expect(try Reader.parse(#""\udc00""#).stringValue == "\u{FFFD}", "a low surrogate alone")
        #expect(try Reader.parse(#""\ude00\ud83d""#).stringValue == "\u{FFFD}\u{FFFD}", "a pair in the wrong order")
        // The escape after a lone high surrogate is a character of its own, not swallowed.
        #expect(try Reader.parse(#""\ud800\u0041""#).stringValue == "\u{FFFD}A")
        #expect(try Reader.parse(#""\ud800\ud83d\ude00""#).stringValue == "\u{FFFD}😀")
        #expect(try Reader.parse(#""\ud800\n""#).stringValue == "\u{FFFD}\n")
    }

    @Test func rawControlCharactersAreRefusedInStringsAndKeys() throws {
        for byte in [UInt8(0x00), 0x01, 0x0A, 0x0D, 0x09, 0x1F] {
            #expect(Reader.error(bytes: [0x22, 0x61, byte, 0x22])?.kind == .syntax, "byte \(byte) in a string")
            #expect(Reader.error(bytes: Array(#"{"a"#.utf8) + [byte] + Array(#"":1}"#.utf8))?.kind == .syntax,
                    "byte \(byte) in a key")
            #expect(Reader.error(bytes: Array(#""\n"#.utf8) + [byte, 0x22])?.kind == .syntax, "byte \(byte) after an escape")
        }
        #expect(try Reader.parse(bytes: [0x22, 0x7F, 0x22]).stringValue == "\u{7F}", "DEL is not a control character in JSON")
    }

    @Test(arguments: [#""\x""#, #""\u12G4""#, #""\u12""#, #""\"#, #""abc"#, #""\ud800\u12""#, #""\'""#, "'a'"])
    func malformedStringsAreSyntaxErrors(_ text: String) {
        #expect(Reader.error(text)?.kind == .syntax, "\(text)")
    }

    // MARK: Documents

    @Test func duplicateKeysAreKeptAndTheLastOneIsRead() throws {
        let v = try Reader.parse(#"{"a":1,"b":2,"a":3}"#)
        guard case .object(let members) = v else {
            Issue.record("not an object")
            return
        }
        #expect(members.map(\.key) == ["a", "b", "a"], "in document order")
        #expect(v.member("a")?.intValue == 3)
        #expect(v.jsonValue == .object(["a": .int(3), "b": .int(2)]))
    }

    @Test(arguments: ["{} x", "[1] [2]", "1 2", "null,", "\"a\"\"b\"", "{}}", "[]]", "true false", "1\u{0}"])
    func trailingGarbageIsRefused(_ text: String) {
        let e = Reader.error(text)
        #expect(e?.kind == .syntax, "\(text)")
        #expect(e?.message.contains("after the document") == true, "\(text): \(String(describing: e))")
    }

    @Test func whitespaceAndAByteOrderMarkAroundTheDocument() throws {
        #expect(try Reader.parse(" \t\r\n[ 1 , 2 ]\n ").arrayValue?.count == 2)
        #expect(try Reader.parse(bytes: [0xEF, 0xBB, 0xBF] + Array("[7]".utf8)).arrayValue?.first?.intValue == 7)
        #expect(Reader.error(bytes: [0xEF, 0xBB] + Array("{}".utf8))?.kind == .syntax, "half a byte order mark")
        #expect(Reader.error("\u{0C}1")?.kind == .syntax, "form feed is not JSON whitespace")
        #expect(Reader.error("")?.message.contains("empty document") == true)
        #expect(Reader.error("  \n ")?.message.contains("empty document") == true)
    }

    @Test(arguments: ["[1,]", "{\"a\":1,}", "[,1]", "{\"a\"}", "{\"a\" 1}", "{a:1}", "{1:1}", "[1 2]", "tru", "nul",
                      "falsey", "[", "{", "{\"a\":", "True", "undefined"])
    func malformedDocumentsAreSyntaxErrors(_ text: String) {
        #expect(Reader.error(text)?.kind == .syntax, "\(text)")
    }

    @Test func errorsSayWhereParsingStopped() throws {
        let e = try #require(Reader.error(#"{"walls":[{"t":[1,2,x]}]}"#))
        #expect(e.path == "walls[0].t[2]")
        #expect(e.message.contains("'x'"))
        #expect(e.message.contains("byte offset 20"))
        #expect(e.description == "walls[0].t[2]: " + e.message)
        #expect(Reader.error(#"{"Chair Type":[}"#)?.path == #"["Chair Type"][0]"#)
    }
}

extension Reader {
    static func parse(bytes: [UInt8]) throws(JSONReadError) -> ParsedJSON {
        try JSONReader.parse(bytes, limits: roomy)
    }
}
