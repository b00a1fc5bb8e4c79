import Foundation

extension Process {
    /// Runs the process with standard output discarded, waits for it, and returns its exit status
    /// and everything it wrote to standard error.
    public func runCapturingStandardError() throws -> (status: Int32, stderr: String) {
        let err = Pipe()
        standardError = err
        standardOutput = FileHandle.nullDevice
        try run()
        let data = err.fileHandleForReading.readDataToEndOfFile()
        waitUntilExit()
        return (terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
