import Testing
@testable import TranscodeWorker
