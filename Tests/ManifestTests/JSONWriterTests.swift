import JSONCore
import Testing
@testable import Manifest

@Suite struct JSONWriterTests {
    func text(_ value: JSONValue) -> String { String(decoding: ManifestJSON.serialize(value), as: UTF8.self) }

    @Test func stringsEscapeQuotesBackslashAndControlCharactersAndKeepUnicode() throws {
        let original = "a\"b\\c/\n\t\r\u{08}\u{0C}\u{00}\u{01}\u{1F}\u{7F} é 😀 ×"
        let written = text(.string(original))
        #expect(written == "\"a\\\"b\\\\c/\\n\\t\\r\\u0008\\u000c\\u0000\\u0001\\u001f\u{7F} é 😀 ×\"\n")
        #expect(try JSONDocument.parse(written) == .string(original))
    }

    @Test func nonASCIIIsRawUTF8() {
        let bytes = ManifestJSON.serialize(.string("é"))
        #expect(bytes == [0x22, 0xC3, 0xA9, 0x22, 0x0A])
    }

    @Test func keysAreSortedByCodePointAtEveryLevel() throws {
        let value = JSONValue.object([
            "b": .int(1), "a": .object(["z": .null, "Z": .null, "é": .null, "e": .null]), "B": .int(2), "_": .int(3),
            "aa": .array([.object(["y": .int(1), "x": .int(2)])]),
        ])
        let written = text(value)
        #expect(written == """
            {
              "B": 2,
              "_": 3,
              "a": {
                "Z": null,
                "e": null,
                "z": null,
                "é": null
              },
              "aa": [
                {
                  "x": 2,
                  "y": 1
                }
              ],
              "b": 1
            }

            """)
        #expect(ManifestTestSupport.keysAreSorted(try JSONDocument.parse(written)))
    }

    @Test(arguments: [
        (0.1, "0.1"), (2.0, "2"), (-0.0, "0"), (0.0, "0"), (-2.5, "-2.5"), (1e-7, "1e-07"), (123456.789, "123456.789"),
        (1e15, "1000000000000000"), (1e16, "1e+16"), (1.5e300, "1.5e+300"), (Double.leastNonzeroMagnitude, "5e-324"), (-999_999_999_999_999.0, "-999999999999999"), (0.666667, "0.666667"), (1.0 / 3.0, "0.3333333333333333"),
    ])
    func numbersUseShortestRoundTripForm(value: Double, expected: String) throws {
        #expect(JSONWriter.numberText(value) == expected)
        #expect(try JSONDocument.parse(expected) == .number(value == 0 ? 0 : value))
    }

    @Test func nonFiniteNumbersBecomeNull() {
        #expect(text(.array([.double(.nan), .double(.infinity), .double(-.infinity), .int(-3)])) == "[null, null, null, -3]\n")
    }

    @Test func scalarArraysStayOnOneLineOthersAreIndented() {
        let value = JSONValue.object([
            "v": .array([.double(1), .int(0), .null, .bool(true)]),
            "s": .array([.string("x")]),
            "n": .array([.array([.int(1), .int(2)])]),
            "e": .array([]), "o": .object([:]),
        ])
        #expect(text(value) == """
            {
              "e": [],
              "n": [
                [1, 2]
              ],
              "o": {},
              "s": [
                "x"
              ],
              "v": [1, 0, null, true]
            }

            """)
    }

    @Test func roundingKeepsSixDecimalPlacesAndRemovesFloatNoise() {
        #expect(ManifestNumbers.round(Double(Float(0.1))) == 0.1)
        #expect(ManifestNumbers.round(Double(Float(2.3))) == 2.3)
        #expect(ManifestNumbers.round(2.0 / 3.0) == 0.666667)
        #expect(ManifestNumbers.round(-2.0 / 3.0) == -0.666667)
        let tiny = ManifestNumbers.round(-1e-9)
        #expect(tiny == 0 && tiny.sign == .plus)
        #expect(ManifestNumbers.round(12_345_678_901.123) == 12_345_678_901.123)
        #expect(ManifestNumbers.round(.nan).isNaN)
        #expect(ManifestNumbers.measure(.infinity) == .null)
        #expect(ManifestNumbers.measure(nil) == .null)
        #expect(ManifestNumbers.bounds(.empty) == .null)
    }
}
