/// What is wrong with a module's error codes, as sentences (empty when nothing is): every code's
/// text is unique, upper case (`[A-Z0-9_]+`), starts with the module's prefix, and reads back as
/// the same case.
public func errorCodeProblems<C: RawRepresentable & CaseIterable & Equatable>(_: C.Type, prefix: String) -> [String]
where C.RawValue == String {
    var problems: [String] = []
    let texts = C.allCases.map(\.rawValue)
    if texts.isEmpty { problems.append("no codes") }
    if Set(texts).count != texts.count { problems.append("a code is listed twice") }
    for c in C.allCases {
        let text = c.rawValue
        if !text.hasPrefix(prefix) { problems.append("\(text) does not start with \(prefix)") }
        if text.isEmpty || !text.allSatisfy({ ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_" }) {
            problems.append("\(text) is not upper-case letters, digits and underscores")
        }
        if C(rawValue: text) != c { problems.append("\(text) does not read back as its case") }
    }
    return problems
}
