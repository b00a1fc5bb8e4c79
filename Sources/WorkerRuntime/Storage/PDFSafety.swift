/// Checks that a `plan.pdf` from the job's child is a drawing and nothing more before it is
/// stored and served (a PDF can carry JavaScript, launch actions, links, forms and embedded
/// files, and the child decoding the upload may be compromised). The plan renderer (cairo) writes
/// objects in plain text with compressed page content only. The file is read as PDF's lexer reads
/// it: comments (`%` to the end of the line), literal `(…)` and hexadecimal `<…>` strings and
/// stream data are skipped as what they are, so a `stream` keyword hidden in a comment or a string
/// cannot make the check skip objects a viewer would run. A PDF is refused unless it starts
/// with `%PDF-1.` and ends with `%%EOF`, and it is refused when any of its names is an action,
/// script, link, form, embedded file or object stream (where other objects could hide), or is
/// spelt with `#` escapes (which could hide those names). Page content streams are drawing
/// operators: a viewer runs nothing from them.
public enum PDFSafety {
    /// Names that may never appear.
    static let refusedNames: Set<String> = [
        "JavaScript", "JS", "AA", "OpenAction", "Launch", "URI", "GoToR", "GoToE", "SubmitForm", "ImportData",
        "ResetForm", "Hide", "Named", "Sound", "Movie", "RichMedia", "EmbeddedFile", "EmbeddedFiles", "FileAttachment",
        "AcroForm", "XFA", "ObjStm", "XRefStm", "Encrypt", "Annots",
    ]

    /// nil when the document is acceptable, else the first problem found.
    public static func problem(_ bytes: [UInt8]) -> String? {
        guard bytes.starts(with: Array("%PDF-1.".utf8)) else { return "does not start with %PDF-1." }
        var end = bytes.count
        while end > 0, [0x0A, 0x0D, 0x20].contains(bytes[end - 1]) { end -= 1 }
        guard end >= 5, Array(bytes[(end - 5)..<end]) == Array("%%EOF".utf8) else { return "does not end with %%EOF" }
        var i = 0
        while i < bytes.count {
            switch bytes[i] {
            case UInt8(ascii: "%"):
                // A comment, to the end of its line: nothing in it is a keyword or a name.
                while i < bytes.count, bytes[i] != 0x0A, bytes[i] != 0x0D { i += 1 }
            case UInt8(ascii: "("):
                guard let end = literalStringEnd(bytes, from: i) else { return "an unterminated string" }
                i = end
            case UInt8(ascii: "<"):
                if i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "<") { i += 2; continue }   // a dictionary
                // A hexadecimal string.
                guard let close = bytes[(i + 1)...].firstIndex(of: UInt8(ascii: ">")) else { return "an unterminated string" }
                i = close + 1
            case UInt8(ascii: "/"):
                var j = i + 1
                while j < bytes.count, isNameByte(bytes[j]) { j += 1 }
                let name = String(decoding: bytes[(i + 1)..<j], as: UTF8.self)
                if name.contains("#") { return "a name spelt with # escapes" }
                if refusedNames.contains(name) { return "the name /\(name)" }
                i = j
            default:
                // The keyword `stream` (a token of its own, then an end of line) starts compressed
                // drawing data, skipped to its `endstream`: data, not objects.
                if isStreamKeyword(bytes, at: i) {
                    guard let end = firstMatch(bytes, "endstream", from: i + 7) else { return "an unterminated stream" }
                    i = end + 9
                } else {
                    i += 1
                }
            }
        }
        return nil
    }

    /// True when `stream` at `i` is the keyword: after white space or `>>`, before an end of line.
    static func isStreamKeyword(_ bytes: [UInt8], at i: Int) -> Bool {
        guard matches(bytes, at: i, "stream"), i + 6 < bytes.count, bytes[i + 6] == 0x0A || bytes[i + 6] == 0x0D else { return false }
        guard i > 0 else { return true }
        return [0x0A, 0x0D, 0x20, 0x09, 0x0C, 0x00, UInt8(ascii: ">")].contains(bytes[i - 1])
    }

    /// The index after the literal string that opens at `start` (balanced parentheses, `\`
    /// escapes), or nil when it never closes.
    static func literalStringEnd(_ bytes: [UInt8], from start: Int) -> Int? {
        var depth = 0
        var i = start
        while i < bytes.count {
            switch bytes[i] {
            case UInt8(ascii: "\\"): i += 2; continue
            case UInt8(ascii: "("): depth += 1
            case UInt8(ascii: ")"):
                depth -= 1
                if depth == 0 { return i + 1 }
            default: break
            }
            i += 1
        }
        return nil
    }

    /// The first index at or after `from` where `word` starts, or nil.
    static func firstMatch(_ bytes: [UInt8], _ word: StaticString, from: Int) -> Int? {
        var i = from
        while i + word.utf8CodeUnitCount <= bytes.count {
            if matches(bytes, at: i, word) { return i }
            i += 1
        }
        return nil
    }

    static func matches(_ bytes: [UInt8], at i: Int, _ word: StaticString) -> Bool {
        let n = word.utf8CodeUnitCount
        guard i >= 0, i + n <= bytes.count else { return false }
        return word.withUTF8Buffer { w in
            for k in 0..<n where bytes[i + k] != w[k] { return false }
            return true
        }
    }

    /// A byte of a PDF name: anything but white space and delimiters.
    static func isNameByte(_ b: UInt8) -> Bool {
        b > 0x20 && b < 0x7F && !"()<>[]{}/%".utf8.contains(b)
    }
}

/// Checks that a `plan.dxf` from the job's child is DXF text: printable ASCII lines (tab allowed),
/// group codes and values in pairs, `0 SECTION` first and `0 EOF` last.
public enum DXFSafety {
    /// nil when the document is acceptable, else the first problem found.
    public static func problem(_ bytes: [UInt8]) -> String? {
        guard bytes.allSatisfy({ ($0 >= 0x20 && $0 < 0x7F) || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) else {
            return "bytes other than printable ASCII"
        }
        // Lines split at LF, each without its surrounding spaces and CRs; a final empty line is
        // the file's last newline.
        var lines: [Range<Int>] = []
        var start = 0
        for i in 0...bytes.count where i == bytes.count || bytes[i] == 0x0A {
            var a = start, b = i
            while a < b, bytes[a] == 0x20 || bytes[a] == 0x0D { a += 1 }
            while b > a, bytes[b - 1] == 0x20 || bytes[b - 1] == 0x0D { b -= 1 }
            lines.append(a..<b)
            start = i + 1
        }
        if lines.last?.isEmpty == true { lines.removeLast() }
        func line(_ k: Int, is text: StaticString) -> Bool {
            lines[k].count == text.utf8CodeUnitCount && PDFSafety.matches(bytes, at: lines[k].lowerBound, text)
        }
        guard lines.count >= 4, lines.count % 2 == 0 else { return "not group code and value pairs" }
        guard line(0, is: "0"), line(1, is: "SECTION"), line(lines.count - 2, is: "0"), line(lines.count - 1, is: "EOF") else {
            return "does not start with 0 SECTION and end with 0 EOF"
        }
        for k in stride(from: 0, to: lines.count, by: 2) where !isInteger(bytes[lines[k]]) {
            return "a group code that is not a number"
        }
        return nil
    }

    /// What `Int(_:)` accepts from ASCII: an optional sign and 1–18 digits (no overflow).
    static func isInteger(_ text: ArraySlice<UInt8>) -> Bool {
        var digits = text[...]
        if let first = digits.first, first == UInt8(ascii: "-") || first == UInt8(ascii: "+") { digits = digits.dropFirst() }
        return !digits.isEmpty && digits.count <= 18 && digits.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }
}
