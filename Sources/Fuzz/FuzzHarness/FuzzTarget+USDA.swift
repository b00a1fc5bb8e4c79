import USDParse

extension FuzzTarget {
    /// The USDA text parser (lexer, statement parser, layer builder).
    public static let usda = FuzzTarget(
        name: "usda", summary: "USDA text parser (input: a .usda file)"
    ) { bytes in
        let limits = ParseLimits.default
        do {
            let layer = try USDAParser.parse(
                ByteView(bytes), identifier: "fuzz.usda", limits: limits, budget: MemoryBudget(limits: limits))
            let fields = layer.specs.values.reduce(0) { $0 + $1.fields.count }
            return .accepted(summary: "\(layer.specs.count) specs, \(fields) fields, \(layer.warnings.count) warnings")
        } catch {
            return .refused(error)
        }
    }
}
