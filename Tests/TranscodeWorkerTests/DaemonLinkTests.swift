import Foundation
import Manifest
import TestSupport
import Testing

@testable import TranscodeWorker

/// `transcode-worker` links no feature module: what it states about the job child's outputs is
/// written out in the daemon and kept equal to the modules here.
@Suite struct DaemonLinkTests {
    @Test func theDaemonsManifestSchemaIsTheBuilders() {
        #expect(RunCommand.manifestSchemaVersion == ManifestBuilder.schemaVersion)
    }
}
