import ArgumentParser
import Logging

/// Diagnostics go to stderr (stdout carries the summary and `--events -`).
enum LogSetup {
    static func bootstrap() {
        LoggingSystem.bootstrap(StreamLogHandler.standardError)
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
