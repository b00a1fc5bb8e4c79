import JSONCore
import WorkerCore

/// A `redactions` row as the pipeline reads it: the pipeline blurs its area of the texture before
/// anything reads it (the model, every thumbnail, the report), whether or not the app also sent a
/// blurred replacement.
extension JobInput.Redaction {
    /// The area's box, each value in 0…1 with `x + w`, `y + h` ≤ 1 (plus rounding), `w`, `h` > 0;
    /// nil when the row has no area. Throws `PipelineError` `REDACTION_INVALID` for anything else.
    public func box() throws(PipelineError) -> (x: Double, y: Double, w: Double, h: Double)? {
        guard let text = regionJSON else { return nil }
        func invalid(_ why: String) -> PipelineError {
            PipelineError(code: PipelineError.Code.redactionInvalid, message: "redaction \(id): \(why)", phase: .parsing)
        }
        guard let parsed = try? JSONReader.parse(Array(text.utf8), limits: .smallDocument), case .object(let m) = parsed else {
            throw invalid("its region is not a JSON object")
        }
        var v: [String: Double] = [:]
        for member in m { if let d = member.value.doubleValue { v[member.key] = d } }
        guard let x = v["x"], let y = v["y"], let w = v["w"], let h = v["h"], [x, y, w, h].allSatisfy(\.isFinite),
              x >= 0, y >= 0, w > 0, h > 0, x + w <= 1.000001, y + h <= 1.000001
        else { throw invalid("its region is not a box inside the texture") }
        return (x, y, w, h)
    }
}
