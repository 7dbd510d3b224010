import ArgumentParser
import Foundation
import XferBatch

/// `--state DIR`, shared by the commands that use the state folder.
struct StateOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Checkpoints and lock. Default: .xferbatch/<manifest file name> beside it.", valueName: "dir"))
    var state: String?

    func folder(for plan: Plan) -> String {
        state ?? plan.defaultStateFolder
    }

    /// Finished jobs not yet committed in groups (see `DoneJournal`).
    func journal(for plan: Plan) -> String {
        StateFolder(folder(for: plan)).journal
    }

    /// The store if the state folder has one, else an empty one, with what a killed run's
    /// journal proves finished: reading state creates and changes nothing (see
    /// `SQLiteCheckpointStore.reading`).
    func existingStore(for plan: Plan) throws -> any CheckpointStore {
        let path = StateFolder(folder(for: plan)).database
        guard FileManager.default.fileExists(atPath: path) else { return InMemoryCheckpointStore() }
        do {
            let store = try SQLiteCheckpointStore.reading(path: path)
            if let warning = store.warning { StandardStreams.writeError("xferbatch: warning: \(warning)\n") }
            return try PreloadedCheckpointStore(store, journal: journal(for: plan), readOnly: true, expectedJobs: plan.jobs.count)
        } catch {
            StandardStreams.writeError("xferbatch: \(error)\n")
            throw ExitCode(ExitStatus.stateUnusable.rawValue)
        }
    }

    /// The store a writer uses (it holds the lock): the journal of a killed run adopted first.
    func writableStore(for plan: Plan) throws -> PreloadedCheckpointStore {
        do {
            return try PreloadedCheckpointStore(store(for: plan), journal: journal(for: plan), expectedJobs: plan.jobs.count)
        } catch let exit as ExitCode {
            throw exit
        } catch {
            StandardStreams.writeError("xferbatch: \(error)\n")
            throw ExitCode(ExitStatus.stateUnusable.rawValue)
        }
    }

    /// Opens the checkpoint store (exit 4 with the reason when it cannot be used).
    func store(for plan: Plan) throws -> SQLiteCheckpointStore {
        do {
            let store = try SQLiteCheckpointStore(path: StateFolder(folder(for: plan)).database)
            if let warning = store.warning { StandardStreams.writeError("xferbatch: warning: \(warning)\n") }
            return store
        } catch {
            StandardStreams.writeError("xferbatch: \(error)\n")
            throw ExitCode(ExitStatus.stateUnusable.rawValue)
        }
    }

    /// Takes the state folder's lock, or exits 3 naming who holds it. A run that waits
    /// says so once, so that a cron log explains the delay. `canWait`: the command has
    /// `--wait-lock`, which the refusal then suggests.
    func lock(for plan: Plan, wait: RunLock.Wait = .no, canWait: Bool = false) async throws -> RunLock {
        let folder = folder(for: plan)
        do {
            return try await RunLock.acquire(stateFolder: folder, wait: wait) { held in
                let limit = if case .upTo(let d) = wait { "up to \(DurationText.format(d))" } else { "until it ends" }
                StandardStreams.writeError("xferbatch: \(folder) is \(held); waiting \(limit)\n")
            }
        } catch let held as RunLock.Held {
            let message = switch wait {
            case .no: "\(folder) is \(held)" + (canWait ? " (use --wait-lock to wait for it)" : "")
            case .upTo(let d): "\(folder) is still \(held), after waiting \(DurationText.format(d))"
            case .indefinitely: "\(folder) is \(held)"
            }
            StandardStreams.writeError("xferbatch: \(message)\n")
            throw ExitCode(ExitStatus.locked.rawValue)
        } catch {
            StandardStreams.writeError("xferbatch: \(error)\n")
            throw ExitCode(ExitStatus.stateUnusable.rawValue)
        }
    }
}
