import Foundation
import Logging
import SnapCore
import SnapFiles
import SnapImaging
import SnapServices
import SnapStore
import SnapText

extension StationService {
    /// Carries out one action of the state machine.
    func perform(_ action: Action, lastScreen: inout String, in group: inout DiscardingTaskGroup) {
        switch action {
        case .show(let screen):
            if screen.name != lastScreen {
                if lastScreen.isEmpty { logger.info("started in \(startup.summary(firstScreenAt: .now))") }
                logger.info("screen: \(screen.name)")
                // systemd: ready once the first screen is up (the ready screen, or the lock screen when today's
                // photo is already taken, or an error), and the screen as the unit's status.
                notifier.ready()
                notifier.send("STATUS=\(screen.name)")
                if case .countdown = screen {
                    // A camera that cannot stream preview and stills together switches now, not at the shutter.
                    // The camera may be starting (it was off behind the idle screen or the jar): wait for it.
                    group.addTask { [camera = parts.camera, demand] in
                        _ = await demand.untilStreaming(timeout: .seconds(5))
                        await camera.prepareStill()
                    }
                }
                lastScreen = screen.name
            }
            display.show(screen)
            board?.showing(screen)
        case .startTimer(let id, let deadline):
            timers.start(id, at: deadline) { [bus] in bus.send(.timerFired(id)) }
        case .cancelTimer(let id):
            timers.cancel(id)
        case .setFlash(let on):
            do {
                try parts.flash.set(on: on)
                if flashMissing.withLock({ $0.take() }) != nil { bus.send(.device(.flash, .available)) }
            } catch {
                flashMissing.withLock { $0 = error.message }
                bus.send(.device(.flash, .missing(error.message)))
            }
        case .setCamera(let on):
            demand.hold(.station, on)
        case .useCamera(let index):
            if let cameras = parts.cameraSwitch, cameras.selected != index {
                // Not streaming until the new camera's first frame: a still waits for it.
                demand.setStreaming(false)
                cameras.select(index)
                logger.info("camera: \(cameras.names[cameras.selected]) in use")
            }
        case .storeSettings(let owner):
            storing("keep the owner's settings") { store throws(StoreError) in try store.saveRuntimeSettings(owner) }
        case .dimDisplay(let dimmed):
            display.dim(dimmed)
        case .capture:
            group.addTask { await self.capture() }
        case .process(let id, let sticker):
            group.addTask { await self.process(id, sticker: sticker) }
        case .analyse(let photo, let day, let person):
            analysisTasks.start(photo.id) { await self.analyse(photo, day: day, for: person) }
        case .cancelAnalysis(let id):
            analysisTasks.cancel(id)
            storing("discard the analysis of \(id)") { store throws(StoreError) in try store.discardAnalysis(id) }
        case .resumeAnalyses:
            analysisQueue?.kick()
        case .queueAnalysis(let photo, let day, let person):
            storing("queue \(photo.id) for analysis") { [analysisQueue] store throws(StoreError) in
                try store.queueAnalysis(photo, day: day, now: .now, person: person)
                analysisQueue?.kick()
            }
        case .saveMeal(let meal):
            storing("save meal \(meal.photo.id)") { store throws(StoreError) in try store.saveMeal(meal) }
        case .discardMeal(let id):
            storing("discard meal \(id)") { store throws(StoreError) in try store.discardAnalysis(id) }
        case .share(let photo, let groupName, let day):
            storing("queue \(photo.id)") { [uploads, bus] store throws(StoreError) in
                if try store.share(photo, group: groupName, day: day, now: .now) {
                    uploads.kick()
                } else {
                    bus.send(.uploadFailed(photo.id, .alreadySentToday))
                }
            }
        case .releaseGroupDay(let day, let group):
            storing("release \(day)") { store throws(StoreError) in try store.releaseGroupDay(day, group: group) }
        case .openPairing:
            if let desk {
                let pairing = desk.open(now: clock.now().wall)
                // The code is a secret of the screen: only at debug level (tests read it there).
                logger.debug("pairing code \(pairing.code) for \(pairing.url)")
                bus.send(.pairingOpened(pairing))
            }
        case .closePairing:
            desk?.close()
        case .forgetPairedBrowsers:
            storing("forget the paired browsers") { [logger] store throws(StoreError) in
                let count = try store.forgetSessions()
                logger.notice("owner's page: \(count) paired browser(s) forgotten at the station")
            }
        case .applySettings(let inForce):
            live.update(inForce)
            display.speak(Words(inForce.language))
        case .restartForUpdate(let version):
            askForRestart(into: version)
        case .restore(let version):
            group.addTask { await self.restore(version) }
        case .restartForChanges:
            restart("restarting to use the keys, the time zone or the AI service changed on the owner's page")
        case .factoryReset(let groups):
            group.addTask { await self.eraseStation(groups: groups) }
        case .notify(let notice):
            notices?.post(notice)
        case .log(let level, let message):
            logger.log(level: level.swiftLog, "\(message)")
        }
    }

    /// Creates `update.restart_file`, which a root unit (`snapstation-reboot.path`) answers with a reboot:
    /// the station runs unprivileged and may not reboot itself. It is written once the display has drawn
    /// the frame with the update's note, the last a person sees before the restart.
    private func askForRestart(into version: String) {
        let (path, logger) = (restartFile, logger)
        display.afterDrawing {
            do throws(FileError) {
                try AtomicFile.createFolder((path as NSString).deletingLastPathComponent)
                try AtomicFile.write(Array("\(version)\n".utf8), to: path)
                logger.notice("update: restarting into \(version) (asked through \(path))")
            } catch {
                logger.error("update: cannot ask for the restart into \(version): \(error)")
            }
        }
    }

    /// Stops the station once the display has drawn its last frame, as SIGTERM does: systemd starts it
    /// again (`Restart=always`), and the start puts a restored backup in place (`applyRestore`) before the
    /// store opens, and reads the keys. Run by hand, the station stops and says so (`why`, in the log).
    func restart(_ why: String) {
        let logger = logger
        display.afterDrawing {
            logger.notice("\(why)")
            kill(getpid(), SIGTERM)
        }
    }

    /// Queues a store write on the store's thread, in order with the others, and goes on at once; a
    /// failure becomes a storage event for the state machine.
    private func storing(_ what: String, _ write: @escaping @Sendable (StationStore) throws(StoreError) -> Void) {
        parts.store.enqueue(write) { [logger, bus] error in
            logger.error("\(what): \(error)")
            bus.send(.storageFailed(error.storageFailure))
        }
    }

    private func capture() async {
        let started = ContinuousClock.now
        do {
            // A countdown of 0 s shoots while a stopped camera is still starting: the still waits for it.
            _ = await demand.untilStreaming(timeout: .seconds(5))
            let still = try await parts.camera.captureStill()
            reference.markStale()
            let id = PhotoID.new(at: clock.now().wall, in: settings.timeZone)
            captures.put(still, for: id)
            logger.info(
                "captured \(id)",
                metadata: [
                    "size": "\(still.width)x\(still.height)", "ms": "\((ContinuousClock.now - started).milliseconds)",
                ])
            bus.send(.captured(id))
        } catch {
            bus.send(.captureFailed(error.message))
        }
    }

    /// Runs the pipeline; the sticker is cut for a meal's photo, and for a group photo only when the
    /// group gets it too (`processing.share_sticker`).
    private func process(_ id: PhotoID, sticker: Bool) async {
        guard let still = captures.image(for: id) else {
            bus.send(.processingFailed(id, "the still is no longer in memory"))
            return
        }
        if let free = try? FreeSpace.available(at: parts.store.directory), free < minimumFreeBytes {
            logger.error("storage: \(free / 1_000_000) MB free, below storage.min_free_mb")
            bus.send(.storageFailed(.full))
            return
        }
        let takenAt = clock.now().wall
        defer {
            // The still and the pipeline's buffers are freed: the heap's free pages go back.
            captures.remove(id)
            _ = pipelineThread.submit { MemoryPolicy.trim() }
        }
        do {
            var chosen = live.pipeline
            if !sticker && !uploads.sharesSticker { chosen.sticker = nil }
            let (pipeline, referenceImage, board) = (chosen, reference.image, board)
            let output = try await pipelineThread.run { () throws(ImagingError) in
                // A small copy before the filter, for the owner's preview of another filter.
                board?.keep(capture: still.downscaled(toFit: 480).oriented(pipeline.orientation))
                return try pipeline.process(still, reference: referenceImage)
            }
            let paths = parts.store.paths(for: id, day: LocalDay(containing: takenAt, in: settings.timeZone))
            let photo = ProcessedPhoto(
                id: id, photoPath: paths.photo, thumbnailPath: paths.thumbnail, takenAt: takenAt,
                quality: output.verdict,
                stickerPath: output.sticker == nil ? nil : paths.sticker)
            try await parts.store.writing { store throws(StoreError) in
                try store.storePhoto(photo, jpeg: output.photo, thumbnail: output.thumbnail, sticker: output.sticker)
            }
            if let problem = output.stickerProblem {
                let instead = output.sticker == nil ? "no sticker" : "a round sticker stands in"
                logger.notice("no cut-out for \(id): \(problem); \(instead)")
            }
            for warning in output.decodeWarnings { logger.warning("decoding \(id): \(warning)") }
            var details: Logger.Metadata = [
                "size": "\(output.width)x\(output.height)", "bytes": "\(output.photo.count)",
                "quality": "\(output.verdict.rawValue)",
            ]
            if let measured = output.measurement {
                details["brightness"] = "\(Int(measured.brightness * 100))%"
                details["sharpness"] = "\(Int(measured.sharpness))"
            }
            logger.info("stored \(id)", metadata: details)
            bus.send(.processed(photo))
        } catch let error as ImagingError {
            bus.send(.processingFailed(id, error.description))
        } catch let error as StoreError {
            logger.error("\(error)")
            bus.send(.storageFailed(error.storageFailure))
        } catch {
            bus.send(.processingFailed(id, "\(error)"))
        }
    }

    /// The job first, then the request; the answer and the day's count go to the store together before
    /// the machine hears of it, so neither a crash nor a cancel can lose an answer or count one twice.
    private func analyse(_ photo: ProcessedPhoto, day: LocalDay, for person: PersonID) async {
        let started = clock.now().wall
        do {
            try await parts.store.writing { store throws(StoreError) in
                try store.beginAnalysis(photo, day: day, now: started, person: person)
            }
        } catch {
            logger.error("\(error)")
            bus.send(.storageFailed(error.storageFailure))
            return
        }
        let id = photo.id
        do {
            guard let bytes = FileBytes.readIfPresent(photo.photoPath) else {
                throw AIFailure.badPhoto("the photo file is gone")
            }
            let analysis = try await Self.analyse(
                bytes, with: parts.analyzer, dietary: live.dietary, language: live.language, within: parts.aiWait,
                on: clock.shell)
            try await parts.store.writing { store throws(StoreError) in
                try store.recordAnswer(id, analysis, usedOn: day)
                // Cancelled while the answer was on its way: counted, and closed as discarded.
                if Task.isCancelled { try store.discardAnalysis(id) }
            }
            if Task.isCancelled { return }
            bus.send(.analysed(id, analysis))
        } catch let failure as AIFailure {
            if !failure.waitsInQueue {
                let answered = failure.cameFromAnAnswer ? day : nil
                do {
                    try await parts.store.writing { store throws(StoreError) in
                        try store.failAnalysis(id, error: failure.message, nextAttempt: nil, answeredOn: answered)
                    }
                } catch {
                    logger.error("\(error)")
                }
            }
            if Task.isCancelled { return }
            bus.send(.analysisFailed(id, failure))
        } catch {
            logger.error("analysis of \(id): \(error)")
            bus.send(.storageFailed((error as? StoreError)?.storageFailure ?? .failed("\(error)")))
        }
    }

    /// The analysis the person at the station waits for, cut off at `limit` (`ai.wait_seconds`) of `clock`
    /// as `.timedOut`: the meal then goes to the delayed queue, which asks again without the limit. A
    /// request cut off here may still have been answered and billed by the service; it is not counted.
    static func analyse(
        _ jpeg: [UInt8], with analyzer: any MealAnalyzer, dietary: [DietaryPreference], language: Language,
        within limit: Duration, on clock: any ShellClock
    ) async throws(AIFailure) -> MealAnalysis {
        let outcome = await withTimeout(limit, on: clock) { () -> Result<MealAnalysis, AIFailure> in
            do throws(AIFailure) {
                return .success(try await analyzer.analyse(jpeg: jpeg, dietary: dietary, language: language))
            } catch {
                return .failure(error)
            }
        }
        guard let outcome else { throw .timedOut }
        return try outcome.get()
    }

}

extension LogLevel {
    var swiftLog: Logger.Level {
        switch self {
        case .info: .info
        case .notice: .notice
        case .warning: .warning
        case .error: .error
        }
    }
}

extension Duration {
    var milliseconds: Int64 { components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000 }
}
