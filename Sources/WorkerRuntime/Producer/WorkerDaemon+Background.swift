extension WorkerDaemon {
    /// The sweepers and the event repeater, each on threads of its own beside the dispatcher.
    struct BackgroundWork {
        let outputs: OutputSweeper
        let uploads: UploadSweeper
        let deletions: DeletionSweeper
        let orphans: OrphanSweeper
        let retention: RetentionSweeper
        let repeater: EventRepeater

        /// Creates and starts each in turn.
        init(_ d: WorkerDaemon) {
            let config = d.config, storage = d.storage, outputStorage = d.outputStorage
            let logger = d.logger, metrics = d.metrics
            outputs = OutputSweeper(config: config, storage: outputStorage, logger: logger, metrics: metrics)
            outputs.start()
            uploads = UploadSweeper(config: config, storage: storage, logger: logger, metrics: metrics)
            uploads.start()
            deletions = DeletionSweeper(config: config, sources: storage, outputs: outputStorage, logger: logger, metrics: metrics)
            deletions.start()
            orphans = OrphanSweeper(config: config, sources: storage, outputs: outputStorage, logger: logger, metrics: metrics)
            orphans.start()
            retention = RetentionSweeper(config: config, storage: storage, logger: logger)
            retention.start()
            repeater = EventRepeater(databaseURL: config.databaseURL, logger: logger)
            repeater.start()
        }

        /// Stops each, in the reverse order of their start.
        func stop() {
            repeater.stop()
            retention.stop()
            orphans.stop()
            deletions.stop()
            uploads.stop()
            outputs.stop()
        }
    }
}
