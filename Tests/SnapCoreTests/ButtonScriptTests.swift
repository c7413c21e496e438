import SnapCore
import Testing

@Suite("ButtonScript")
struct ButtonScriptTests {
    @Test("should read delays and gestures in order")
    func parse() throws {
        let script = try #require(ButtonScript("2s press, 0.5s hold,1s mode"))
        #expect(script.steps.map(\.gesture) == [.press, .hold, .mode])
        #expect(script.steps.map(\.delay) == [.seconds(2), .milliseconds(500), .seconds(1)])
    }

    @Test("should accept an empty script and refuse nonsense with a reason")
    func problems() {
        #expect(ButtonScript("")?.steps == [])
        #expect(ButtonScript.problem(in: "2s jump") == "\"jump\" is not press, hold, mode or pair")
        #expect(ButtonScript.problem(in: "press") == "\"press\" is not \"DELAY GESTURE\"")
        #expect(ButtonScript("-1s press") == nil)
    }
}
