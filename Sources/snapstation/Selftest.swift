import ArgumentParser
import Foundation
import Logging
import SnapApp
import SnapConfig
import SnapDevices

extension SnapStation {
    struct Selftest: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the cameras, GPIO chips and displays found, and check the ones the config names.",
            discussion: """
                The first command to run on a new Pi. The tables show what the machine has (nothing is \
                driven); the last table opens each device the config names the way the station would, and \
                the exit status is 1 when one of them cannot be opened.
                """)

        @OptionGroup var options: ConfigOption

        func run() async throws {
            let config = try options.load()
            var logger = Logger(label: "snapstation")
            logger.logLevel = .critical
            print(DeviceSurvey.take().report)
            print("")
            print("This config (\(options.config ?? StationConfig.defaultPath))")
            let lines = DeviceCheck.run(config, logger: logger)
            var failed = false
            for line in lines {
                let (mark, text): (String, String)
                switch line.result {
                case .success(let found): (mark, text) = ("ok  ", found)
                case .failure(let error):
                    (mark, text) = ("FAIL", error.message)
                    failed = true
                }
                let device = line.device.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0)
                let backend = line.backend.padding(toLength: 10, withPad: " ", startingAt: 0)
                print("  \(mark)  \(device)\(backend)\(text)")
            }
            if failed { throw ExitCode(1) }
        }
    }
}
