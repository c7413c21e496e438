import SnapCore
import Testing

@Suite("PressRecognizer")
struct PressRecognizerTests {
    private func recognizer() -> PressRecognizer {
        PressRecognizer(longPress: .milliseconds(800), debounce: .milliseconds(30))
    }

    @Test("should report a press when released before the long-press time")
    func shortPress() {
        var buttons = recognizer()
        #expect(buttons.edge(down: true, at: .milliseconds(1000)) == nil)
        #expect(buttons.poll(at: .milliseconds(1500)) == nil)
        #expect(buttons.edge(down: false, at: .milliseconds(1200)) == .press)
    }

    @Test("should fire a hold while still held, and swallow the release")
    func hold() {
        var buttons = recognizer()
        _ = buttons.edge(down: true, at: .milliseconds(0))
        #expect(buttons.holdDeadline == .milliseconds(800))
        #expect(buttons.poll(at: .milliseconds(799)) == nil)
        #expect(buttons.poll(at: .milliseconds(800)) == .hold)
        #expect(buttons.poll(at: .milliseconds(900)) == nil)
        #expect(buttons.edge(down: false, at: .milliseconds(2000)) == nil)
    }

    @Test("should report a hold on release when nobody polled in time")
    func holdOnRelease() {
        var buttons = recognizer()
        _ = buttons.edge(down: true, at: .zero)
        #expect(buttons.edge(down: false, at: .milliseconds(900)) == .hold)
    }

    @Test("should turn a bouncing contact into exactly one press")
    func bounce() {
        var buttons = recognizer()
        var gestures: [ButtonGesture] = []
        // Contact bounce: toggles 2 ms apart on the way down and on the way up.
        let edges: [(Bool, Int64)] = [
            (true, 100), (false, 102), (true, 104), (false, 106), (true, 108),
            (false, 300), (true, 302), (false, 304),
        ]
        for (down, ms) in edges {
            if let gesture = buttons.edge(down: down, at: .milliseconds(ms)) { gestures.append(gesture) }
        }
        #expect(gestures == [.press])
    }

    @Test("should ignore a release without a press")
    func strayRelease() {
        var buttons = recognizer()
        #expect(buttons.edge(down: false, at: .seconds(1)) == nil)
    }
}
