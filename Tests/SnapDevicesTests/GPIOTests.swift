import Foundation
import Logging
import SnapCore
import SnapTestSupport
import Testing

@testable import SnapDevices

@Suite("GPIO buttons and flash (libgpiod, mocked)")
struct GPIOTests {
    let settings = GPIOButtonSettings(
        chip: "gpiochip0", shutter: .name("GPIO17"), mode: .offset(22), activeLow: true, bias: .pullUp,
        debounce: .milliseconds(30), longPress: .milliseconds(150))

    /// Collects gestures until `until` arrives (a sentinel), failing after a generous wait instead of hanging.
    func gestures(
        _ buttons: GPIOButtons, until sentinel: ButtonGesture = .mode, drive: @escaping @Sendable () async -> Void
    ) async throws -> [ButtonGesture] {
        let stream = try buttons.gestures()
        let collector = Task {
            var seen: [ButtonGesture] = []
            for await gesture in stream {
                seen.append(gesture)
                if gesture == sentinel { break }
            }
            return seen
        }
        await drive()
        let watchdog = Task {
            try await Task.sleep(for: .seconds(20))
            collector.cancel()
        }
        let seen = await collector.value
        watchdog.cancel()
        return seen
    }

    @Test("should turn a bouncing press into one press, debounced in software on libgpiod v1")
    func softwareDebounce() async throws {
        let gpio = MockGPIO.pi(apiVersion: 1)
        let buttons = GPIOButtons(settings: settings, calls: gpio, logger: Logger(label: "test"))
        let seen = try await gestures(buttons) {
            gpio.edges(offset: 17, [(true, 0), (false, 3), (true, 6), (false, 60), (true, 63), (false, 66)])
            gpio.edges(offset: 22, [(true, 100), (false, 140)])
        }
        #expect(seen == [.press, .mode])
        #expect(gpio.request(offset: 17)?.debounce == .zero)
    }

    @Test("should hand debouncing to the kernel on libgpiod v2")
    func kernelDebounce() async throws {
        let gpio = MockGPIO.pi(apiVersion: 2)
        let buttons = GPIOButtons(settings: settings, calls: gpio, logger: Logger(label: "test"))
        let seen = try await gestures(buttons) {
            // The kernel has already removed the bounce; edges 5 ms apart are real and all count.
            gpio.edges(offset: 17, [(true, 0), (false, 5), (true, 10), (false, 15)])
            gpio.edges(offset: 22, [(true, 50), (false, 60)])
        }
        #expect(seen == [.press, .press, .mode])
        #expect(gpio.request(offset: 17)?.debounce == .milliseconds(30))
    }

    @Test("should fire a hold while the button is still down, and swallow its release")
    func hold() async throws {
        let gpio = MockGPIO.pi()
        let buttons = GPIOButtons(settings: settings, calls: gpio, logger: Logger(label: "test"))
        let stream = try buttons.gestures()
        var iterator = stream.makeAsyncIterator()
        gpio.edges(offset: 17, [(true, 0)])
        let first = await iterator.next()
        #expect(first == .hold, "no release was sent: only the hold deadline can produce this")
        gpio.edges(offset: 17, [(false, 10)])
        gpio.edges(offset: 22, [(true, 20), (false, 30)])
        var next = await iterator.next()
        // On a machine so loaded that the release comes 5 s late, the long hold fires the pairing hold too.
        if next == .pairHold { next = await iterator.next() }
        #expect(next == .mode, "the release after a hold is not a press")
    }

    @Test("should request lines by name or offset with the configured bias and active-low")
    func requests() async throws {
        let gpio = MockGPIO.pi()
        // Kept while the requests are read: a dropped stream ends its reader, which releases the lines
        // (on a loaded machine before the read; CI saw it).
        let stream = try GPIOButtons(settings: settings, calls: gpio, logger: Logger(label: "test")).gestures()
        let requests = withExtendedLifetime(stream) {
            gpio.state.withLock { Array($0.requests.values) }.sorted { $0.offset < $1.offset }
        }
        #expect(requests.map(\.offset) == [17, 22])
        #expect(requests.allSatisfy { $0.bias == .pullUp && $0.activeLow == true && $0.consumer == "snapstation" })
        #expect(requests.allSatisfy { !$0.output })
    }

    @Test("should find a chip by its label and by its path, and request the lines on that chip")
    func chipByLabel() throws {
        let lines = (0..<28).map { "GPIO\($0)" }
        for (descriptor, chip) in [
            ("pinctrl-bcm2711", "gpiochip0"), ("/dev/gpiochip0", "gpiochip0"), ("raspberrypi-exp-gpio", "gpiochip1"),
            ("/dev/gpiochip1", "gpiochip1"),
        ] {
            let gpio = MockGPIO(chips: [
                "gpiochip0": ("pinctrl-bcm2711", lines), "gpiochip1": ("raspberrypi-exp-gpio", lines),
            ])
            var byLabel = settings
            byLabel.chip = descriptor
            // Held while the requests are read: the lines are released when the stream goes.
            let stream = try GPIOButtons(settings: byLabel, calls: gpio, logger: Logger(label: "test")).gestures()
            let chips = withExtendedLifetime(stream) { gpio.state.withLock { $0.requests.values.map(\.chip) } }
            #expect(chips.count == 2 && chips.allSatisfy { $0 == chip }, "\(descriptor): \(chips)")
        }
    }

    @Test("should name a missing chip, a busy line and its holder, and a line the chip does not have")
    func errors() throws {
        var missing = settings
        missing.chip = "gpiochip9"
        let noChip = #expect(throws: DeviceError.self) {
            _ = try GPIOButtons(settings: missing, calls: MockGPIO.pi(), logger: Logger(label: "test")).gestures()
        }
        #expect(noChip?.device == .buttons)
        #expect(noChip?.message.contains("GPIO chip \"gpiochip9\" not found") == true)
        #expect(noChip?.message.contains("snapstation selftest") == true)

        let busy = #expect(throws: DeviceError.self) {
            _ = try GPIOButtons(
                settings: settings, calls: MockGPIO.pi(busy: [17: "pigpiod"]), logger: Logger(label: "t")
            )
            .gestures()
        }
        #expect(
            busy?.message == "GPIO line GPIO17 (offset 17) on gpiochip0 (pinctrl-bcm2711) is busy: held by \"pigpiod\"")

        var unknown = settings
        unknown.shutter = .name("GPIO99")
        let noLine = #expect(throws: DeviceError.self) {
            _ = try GPIOButtons(settings: unknown, calls: MockGPIO.pi(), logger: Logger(label: "test")).gestures()
        }
        #expect(noLine?.message.contains("GPIO line \"GPIO99\" not found on gpiochip0 (pinctrl-bcm2711)") == true)

        unknown.shutter = .offset(40)
        let pastEnd = #expect(throws: DeviceError.self) {
            _ = try GPIOButtons(settings: unknown, calls: MockGPIO.pi(), logger: Logger(label: "test")).gestures()
        }
        #expect(
            pastEnd?.message.contains("offset 40 is not on gpiochip0 (pinctrl-bcm2711), which has lines 0–27") == true)

        let denied = MockGPIO.pi()
        denied.state.withLock { $0.openError = .accessDenied }
        let noAccess = #expect(throws: DeviceError.self) {
            _ = try GPIOButtons(settings: settings, calls: denied, logger: Logger(label: "test")).gestures()
        }
        #expect(noAccess?.message.contains("gpio group") == true)
    }

    @Test("should release the lines before closing the chip when the stream ends")
    func releases() async throws {
        let gpio = MockGPIO.pi()
        do {
            let stream = try GPIOButtons(settings: settings, calls: gpio, logger: Logger(label: "test")).gestures()
            let reader = Task { for await _ in stream {} }
            reader.cancel()
            await reader.value
        }
        #expect(await eventually(every: .milliseconds(10)) { !gpio.state.withLock { $0.closed.isEmpty } })
        let (released, closed, open) = gpio.state.withLock { ($0.released.map(\.offset), $0.closed, $0.requests) }
        #expect(Set(released) == [17, 22])
        #expect(closed == ["gpiochip0"])
        #expect(open.isEmpty)
    }

    @Test("should end the stream and log when the chip goes away")
    func chipGone() async throws {
        let gpio = MockGPIO.pi()
        let log = CapturedLog()
        let stream = try GPIOButtons(settings: settings, calls: gpio, logger: log.logger).gestures()
        gpio.failReads(with: .noDevice)
        for await _ in stream {}
        #expect(log.all.contains { $0.contains("stopped") && $0.contains("ENODEV") })
    }

    @Test("should start the flash off, drive it, read it back, and name the line that failed")
    func flash() throws {
        let gpio = MockGPIO.pi()
        do {
            let flash = try GPIOFlash(chip: "gpiochip0", line: .name("GPIO27"), calls: gpio)
            #expect(gpio.value(offset: 27) == false)
            try flash.set(on: true)
            #expect(try flash.isOn())
            gpio.state.withLock { $0.setError = SystemError(EIO) }
            let failure = #expect(throws: DeviceError.self) { try flash.set(on: false) }
            #expect(failure?.device == .flash)
            #expect(failure?.message.contains("GPIO line GPIO27 on gpiochip0 (pinctrl-bcm2711)") == true)
            #expect(failure?.message.contains("EIO") == true)
            gpio.state.withLock { $0.setError = nil }
        }
        #expect(gpio.state.withLock { $0.released.map(\.offset) } == [27], "released when the flash goes")
    }

    @Test("should report a missing chip through the real libgpiod")
    func realLibrary() throws {
        let gpio = LibGPIOD()
        #expect([1, 2].contains(gpio.apiVersion))
        guard case .failure(let error) = gpio.openChip("snapstation-no-such-chip") else {
            Issue.record("a chip called snapstation-no-such-chip opened")
            return
        }
        #expect(error == .noEntry)
        var missing = settings
        missing.chip = "snapstation-no-such-chip"
        let failure = #expect(throws: DeviceError.self) {
            _ = try GPIOButtons(settings: missing, logger: Logger(label: "test")).gestures()
        }
        #expect(failure?.message.contains("\"snapstation-no-such-chip\" not found") == true)
    }
}
