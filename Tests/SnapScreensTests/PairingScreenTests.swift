import Foundation
import SnapCore
import SnapImaging
import SnapScreens
import SnapTestSupport
import Testing

@Suite("The pairing screen's QR code")
struct PairingScreenTests {
    let folder = TemporaryDirectory("qr")

    @Test("should make a QR code with its three finder patterns, the size of its version")
    func modules() throws {
        let code = try #require(QRCode(text: "http://192.168.1.20:8080/pair"))
        #expect(code.size == 25 || code.size == 29, "version 2 or 3 for a 30-character URL at level M")
        #expect(code.modules.count == code.size * code.size)
        for (x, y) in [(0, 0), (code.size - 7, 0), (0, code.size - 7)] {
            // A finder pattern: a dark 7×7 ring around a light ring around a dark 3×3 centre.
            #expect((0..<7).allSatisfy { code.isDark(x: x + $0, y: y) && code.isDark(x: x + $0, y: y + 6) })
            #expect(!code.isDark(x: x + 1, y: y + 1) && code.isDark(x: x + 3, y: y + 3))
        }
    }

    static let zbar = "/usr/bin/zbarimg"

    @Test(
        "should be read back by a real decoder (zbarimg) from the screen the station draws",
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: zbar),
            "needs /usr/bin/zbarimg (zbar-tools, which .ci/install-deps installs)"))
    func readsBack() throws {
        let zbar = Self.zbar
        let url = "http://192.168.1.20:8080/pair"
        let canvas = Canvas(width: 800, height: 480)
        let screen = PairingScreen(
            pairing: Pairing(url: url, code: "482913", expiresAt: Date()), remaining: .seconds(300))
        ScreenRenderer(images: .none).draw(.pairing(screen), preview: nil, on: canvas)
        try canvas.writePNG(to: folder.path + "/pairing.png")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: zbar)
        process.arguments = ["--quiet", "--raw", folder.path + "/pairing.png"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        process.waitUntilExit()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 0)
        #expect(text.trimmingCharacters(in: .whitespacesAndNewlines) == url)
        #expect(!canvas.cutTexts.contains { $0.contains("482") })
    }

    @Test(
        "should show the .local address, the fallback address and the certificate's fingerprint, uncut, at every size",
        arguments: [(800, 480), (480, 800), (480, 320), (1920, 1080)])
    func namesAndFingerprint(width: Int, height: Int) {
        let pairing = Pairing(
            url: "https://kitchen-station.local:8080/pair", code: "48291307", expiresAt: Date() + 300,
            fingerprint: "3F:A2:19:C4:5B:0E:77:D1:02:9B:6E:41:AA:C3:5D:10:E8:72:4F:90:1B:66:C2:0D:93:5A:7E:18:F4:2C:B0",
            fallback: "https://192.168.1.20:8080/pair")
        let canvas = Canvas(width: width, height: height)
        ScreenRenderer(images: .none).draw(
            .pairing(PairingScreen(pairing: pairing, remaining: .seconds(299))), preview: nil, on: canvas)
        let drawn = canvas.drawnTexts.joined(separator: "\n")
        #expect(drawn.contains("https://kitchen-station.local:8080/pair"), "the name: \(drawn)")
        #expect(drawn.contains("https://192.168.1.20:8080/pair"), "the address for a phone without .local")
        #expect(drawn.contains("3F:A2:19:C4:5B:0E:77:D1"), "the start of the fingerprint the browser's warning names")
        #expect(canvas.cutTexts.isEmpty, "cut at \(width)×\(height): \(canvas.cutTexts)")
    }
}
