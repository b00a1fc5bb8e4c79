/// Checks that a `plan.pdf` from the job's child is a drawing and nothing more before it is
/// stored and served (a PDF can carry JavaScript, launch actions, links, forms and embedded
/// files, and the child decoding the upload may be compromised). The plan renderer (cairo) writes
/// objects in plain text with compressed page content only, so a PDF is refused unless it starts
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
        var inStream = false
        while i < bytes.count {
            // Skip the bytes of each stream: compressed drawing data, not objects.
            if !inStream, matches(bytes, at: i, "stream") && (i + 6 < bytes.count) && (bytes[i + 6] == 0x0A || bytes[i + 6] == 0x0D) {
                inStream = true
                i += 6
                continue
            }
            if inStream {
                if matches(bytes, at: i, "endstream") { inStream = false; i += 9 } else { i += 1 }
                continue
            }
            if bytes[i] == UInt8(ascii: "/") {
                var j = i + 1
                while j < bytes.count, isNameByte(bytes[j]) { j += 1 }
                let name = String(decoding: bytes[(i + 1)..<j], as: UTF8.self)
                if name.contains("#") { return "a name spelt with # escapes" }
                if refusedNames.contains(name) { return "the name /\(name)" }
                i = j
                continue
            }
            i += 1
        }
        return inStream ? "an unterminated stream" : nil
    }

    static func matches(_ bytes: [UInt8], at i: Int, _ word: String) -> Bool {
        let w = Array(word.utf8)
        return i + w.count <= bytes.count && Array(bytes[i..<(i + w.count)]) == w
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
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: [" ", "\r"]) }
        let body = lines.last == "" ? Array(lines.dropLast()) : lines
        guard body.count >= 4, body.count % 2 == 0 else { return "not group code and value pairs" }
        guard body[0] == "0", body[1] == "SECTION", body[body.count - 2] == "0", body[body.count - 1] == "EOF" else {
            return "does not start with 0 SECTION and end with 0 EOF"
        }
        for k in stride(from: 0, to: body.count, by: 2) where Int(body[k]) == nil {
            return "a group code that is not a number"
        }
        return nil
    }
}
