import Foundation
import Testing
@testable import Thumbnailer

struct WebPTimingProbe {
    @Test func probe() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: "/tmp/webptest/frame.rgba"))
        let rgba = [UInt8](data)
        func cpu() -> Double { var u = rusage(); getrusage(RUSAGE_SELF.rawValue, &u); return Double(u.ru_utime.tv_sec) + Double(u.ru_utime.tv_usec) / 1e6 + Double(u.ru_stime.tv_sec) + Double(u.ru_stime.tv_usec) / 1e6 }
        var c = cpu()
        for _ in 0..<16 { _ = WebPCodec.encode(rgba: rgba, width: 512, height: 512, quality: 80, method: 2) }
        print("PROBE sequential cpu per encode", (cpu() - c) / 16 * 1000)
        c = cpu()
        Parallel.forEach(16) { _ in _ = WebPCodec.encode(rgba: rgba, width: 512, height: 512, quality: 80, method: 2) }
        print("PROBE parallel cpu per encode", (cpu() - c) / 16 * 1000)
    }
}
