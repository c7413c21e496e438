import ArgumentParser
import Foundation
import Logging
import SnapApp
import SnapConfig
import SnapCore

/// The `snapstation` command.
@main
struct SnapStation: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "snapstation",
        abstract: "A camera station: press the button, see 3-2-1, and the photo is analysed or shared.",
        version: StationVersion.current,
        subcommands: [
            Run.self, CheckConfig.self, Selftest.self, BenchPreview.self, BenchJar.self, Jig.self, Process.self,
            Analyze.self,
            Screens.self,
            StoreSoak.self,
            StoreCheck.self,
            CrashCheck.self,
            Update.self,
        ],
        defaultSubcommand: Run.self)
}

/// Options every command that reads the config shares.
struct ConfigOption: ParsableArguments {
    @Option(name: .long, help: "The config file (default: \(StationConfig.defaultPath)).")
    var config: String?

    /// The config, or the printed problems and a failure exit.
    func load() throws -> StationConfig {
        let path = config ?? StationConfig.defaultPath
        if config == nil && !FileManager.default.fileExists(atPath: path) {
            return StationConfig()
        }
        do {
            return try StationConfig(contentsOf: path)
        } catch {
            for line in error.lines { FileHandle.standardError.write(Data((line + "\n").utf8)) }
            throw ExitCode(2)
        }
    }
}

extension SnapStation {
    struct Run: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run the station.",
            discussion: """
                With --simulate every device is simulated: a moving test scene for the camera, buttons typed on \
                standard input (press, hold, mode), and PNG frames in STATE/frames instead of a display. The \
                state folder is then ./snapstation-state unless --state says otherwise.
                """)

        @OptionGroup var options: ConfigOption
        @Flag(help: "Simulate the camera, buttons and display.") var simulate = false
        @Option(help: "The state folder (overrides storage.dir).") var state: String?
        @Option(help: "A button script such as \"2s press, 10s hold\" (overrides gpio.script).") var script: String?
        @Flag(help: "Do not read button words from standard input.") var noStdin = false
        @Option(help: "trace, debug, info, notice, warning or error.") var logLevel = "info"

        func run() async throws {
            // The same check and words as gpio.script in a config file: a script that cannot be read is
            // refused, not run with no presses.
            if let script, let problem = ButtonScript.problem(in: script) {
                FileHandle.standardError.write(
                    Data("snapstation: --script: \(problem) (steps such as \"2s press, 10s hold, 1s mode\")\n".utf8))
                throw ExitCode(2)
            }
            var config = try options.load()
            if let state {
                config.storage.dir = state
            } else if simulate {
                config.storage.dir = "./snapstation-state"
            }
            guard let level = Logger.Level(rawValue: logLevel) else {
                throw ValidationError("--log-level must be trace, debug, info, notice, warning or error")
            }
            LoggingSystem.bootstrap { label in
                var handler = OneLineLogHandler(StreamLogHandler.standardError(label: label))
                handler.logLevel = level
                return handler
            }
            let logger = Logger(label: "snapstation")
            if options.config == nil && !FileManager.default.fileExists(atPath: StationConfig.defaultPath) {
                logger.notice("no \(StationConfig.defaultPath): running on the built-in defaults")
            }
            try await Station.run(
                config: config,
                options: Station.RunOptions(simulate: simulate, standardInputButtons: !noStdin, script: script),
                logger: logger)
        }
    }

    struct CheckConfig: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "check-config",
            abstract: "Check a config file: one line per problem as FILE:LINE: key: what is wrong (what is expected).")

        @Argument(help: "The config file (default: \(StationConfig.defaultPath)).")
        var file: String = StationConfig.defaultPath

        func run() throws {
            do {
                _ = try StationConfig(contentsOf: file)
                print("\(file): OK")
            } catch {
                for line in error.lines { print(line) }
                throw ExitCode(1)
            }
        }
    }
}
