import SnapFiles
import SnapImaging
import Synchronization

/// Several cameras as one: the one selected streams and takes the stills (the front/back toggle of a
/// phone). Switching while the preview runs stops the old camera and starts the new one into the same
/// slot; a still always comes from the camera selected when it is asked for.
public final class CameraSwitch: Camera {
    public struct Choice: Sendable {
        /// What the owner sees: "CSI camera", "USB camera".
        public var name: String
        public var camera: any Camera
        public init(name: String, camera: any Camera) {
            self.name = name
            self.camera = camera
        }
    }

    public let choices: [Choice]
    private let selection = Lock(0)
    /// Wakes a running preview when the selection changes.
    private let switched = Lock<CheckedContinuation<Void, Never>?>(nil)

    public init(_ choices: [Choice]) {
        precondition(!choices.isEmpty, "a camera switch needs a camera")
        self.choices = choices
    }

    public var names: [String] { choices.map(\.name) }
    public var selected: Int { selection.withLock { $0 } }
    private var current: any Camera { choices[selected].camera }

    /// Uses camera `index` from now on (out of range: the first).
    public func select(_ index: Int) {
        let changed = selection.withLock { selection in
            let wanted = choices.indices.contains(index) ? index : 0
            defer { selection = wanted }
            return wanted != selection
        }
        guard changed else { return }
        switched.withLock { waiter in
            defer { waiter = nil }
            return waiter
        }?.resume()
    }

    public func streamPreview(into slot: PreviewSlot, started: @escaping @Sendable () -> Void) async throws(DeviceError)
    {
        while !Task.isCancelled {
            let index = selected
            let camera = choices[index].camera
            // Streams until the camera ends (cancelled, or failed) or another camera is selected.
            let outcome: Result<Bool, DeviceError> = await withTaskGroup(of: Result<Bool, DeviceError>?.self) { group in
                group.addTask {
                    do throws(DeviceError) {
                        try await camera.streamPreview(into: slot, started: started)
                        return .success(false)
                    } catch {
                        return .failure(error)
                    }
                }
                group.addTask { [self] in
                    await waitForSwitch(from: index)
                    return Task.isCancelled ? nil : .success(true)
                }
                let first = await group.next() ?? nil
                group.cancelAll()
                return first ?? .success(false)
            }
            switch outcome {
            case .failure(let error):
                // A camera switched away from may fail as it stops: only the selected one's failure counts.
                if selected == index { throw error }
            case .success(true):
                slot.clear()
            case .success(false):
                if selected == index { return }
            }
        }
    }

    public func captureStill() async throws(DeviceError) -> PixelImage {
        try await current.captureStill()
    }

    public func prepareStill() async {
        await current.prepareStill()
    }

    /// Returns when the selection is no longer `index`, or the task is cancelled.
    private func waitForSwitch(from index: Int) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let now = switched.withLock { waiter -> Bool in
                    if selected != index || Task.isCancelled { return true }
                    waiter = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            switched.withLock { waiter in
                defer { waiter = nil }
                return waiter
            }?.resume()
        }
    }
}
