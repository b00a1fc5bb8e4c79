import Foundation
import JSONCore
import Testing

@testable import GLBWriter

@Suite struct JSONWriterTests {
    func text(_ v: JSONValue) -> String { String(decoding: GLTFJSON.serialize(v), as: UTF8.self) }

    @Test func numbersUseShortestRoundTripText() {
        #expect(text(.double(1)) == "1")
        #expect(text(.double(-0.0)) == "0")
        #expect(text(.double(0.1)) == "0.1")
        #expect(text(.double(1e-5)) == "1e-05")
        #expect(text(.double(1e300)) == "1e+300")
        #expect(text(.double(Double(Float(0.1)))) == "0.10000000149011612")
        #expect(text(.float(0.1)) == "0.1")
        #expect(text(.float(16_777_216)) == "16777216")
        #expect(text(.float(1e20)) == "1e+20")
        #expect(text(.double(.nan)) == "0" && text(.float(.infinity)) == "0")
        for d in [0.1, 1e-5, 123.456, Double.leastNonzeroMagnitude, 1.7976931348623157e308, -2.5e-8] {
            #expect(Double(text(.double(d))) == d, "\(d) round-trips")
        }
    }

    @Test func numbersParseAsJSON() throws {
        let v = JSONValue.array([.double(1e-5), .double(1e300), .float(3.4e38), .double(-0.5)])
        let parsed = try JSONSerialization.jsonObject(with: Data(GLTFJSON.serialize(v))) as? [Any]
        let values = parsed?.compactMap(double) ?? []
        #expect(values.count == 4 && values[0] == 1e-5 && values[1] == 1e300 && values[3] == -0.5)
        #expect(Float(values[2]) == Float(3.4e38), "a float's shortest text reads back as the same float")
    }

    @Test func stringsAreEscaped() throws {
        let s = "quote\" backslash\\ newline\n tab\t bell\u{7} é ☃"
        let encoded = text(.string(s))
        #expect(encoded == "\"quote\\\" backslash\\\\ newline\\n tab\\t bell\\u0007 é ☃\"")
        let parsed = try JSONSerialization.jsonObject(with: Data(encoded.utf8), options: .fragmentsAllowed)
        #expect(parsed as? String == s)
    }

    @Test func objectsKeepTheirMemberOrder() {
        let v = JSONValue.members([JSONMember("z", .int(1)), JSONMember("a", .bool(false)), JSONMember("m", .null)])
        #expect(text(v) == "{\"z\":1,\"a\":false,\"m\":null}")
    }
}
