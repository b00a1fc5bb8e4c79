import USDParse

extension FuzzTarget {
    /// The crate (`.usdc`) reader: reads the layer, then decodes every deferred array (defaults
    /// and time samples) as composition would.
    public static let crate = FuzzTarget(
        name: "crate", summary: "USDC crate reader, deferred arrays included (input: a .usdc file)"
    ) { bytes in
        let limits = ParseLimits.default
        do {
            let layer = try CrateReader.read(
                ByteView(bytes), identifier: "fuzz.usdc", limits: limits, budget: MemoryBudget(limits: limits))
            var fields = 0, deferred = 0
            for (_, spec) in layer.specs {
                for (_, value) in spec.fields {
                    fields += 1
                    var values = [value]
                    if case .timeSamples(let samples) = value { values += samples.values }
                    for case .deferred(let d) in values {
                        deferred += 1
                        _ = try d.resolve()
                    }
                }
            }
            return .accepted(
                summary: "\(layer.specs.count) specs, \(fields) fields, \(deferred) deferred arrays, "
                    + "\(layer.warnings.count) warnings")
        } catch {
            return .refused(error)
        }
    }
}
