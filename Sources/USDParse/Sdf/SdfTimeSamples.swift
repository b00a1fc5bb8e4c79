/// The samples of an animated attribute: ascending times, one value per time.
public struct SdfTimeSamples: Hashable, Sendable {
    public var times: [Double]
    public var values: [SdfValue]
    public init(times: [Double], values: [SdfValue]) {
        self.times = times
        self.values = values
    }
}
