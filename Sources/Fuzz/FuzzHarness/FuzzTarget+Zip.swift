import USDParse

extension FuzzTarget {
    /// The zip reader and the USDZ package on top of it: opens the archive, reads every entry
    /// (stored and deflated), then opens the bytes as a package (root layer, nested packages).
    public static let zip = FuzzTarget(
        name: "zip", summary: "zip archive reader and USDZ package (input: a .usdz / .zip file)"
    ) { bytes in
        let limits = ParseLimits.default
        let view = ByteView(bytes)
        do {
            let archive = try ZipArchive(view, limits: limits, budget: MemoryBudget(limits: limits))
            var read = 0, unreadable = 0
            for entry in archive.entries {
                do { read += try archive.data(of: entry).count } catch { unreadable += 1 }
            }
            let package = try USDZPackage.open(view, limits: limits, budget: MemoryBudget(limits: limits))
            for name in package.entryNames { _ = try? package.data(at: name) }
            return .accepted(
                summary: "\(archive.entries.count) entries, \(read) bytes read, \(unreadable) unreadable, "
                    + "root \(package.rootLayerPath), \(package.warnings.count) warnings")
        } catch {
            return .refused(error)
        }
    }
}
