import Synchronization

/// Final paths chosen at run time (downloads into folders), so that a name the server
/// gives is an error, never an overwrite, when it lands on another job's file or on the
/// manifest.
///
/// The files the plan names (downloads' and archives' `to`) and the manifest are claimed
/// from the start: a folder download the server names `a.bin` must not replace the
/// `a.bin` another job writes, whichever finishes first. That table is built at the first
/// claim, so a run without folder downloads never pays for it.
final class PathClaims: Sendable {
    /// Who holds a path.
    enum Owner: Sendable, Equatable {
        case job(String)
        case manifest
    }

    private let plan: Plan
    private let claims = Mutex<[String: Owner]?>(nil)

    init(plan: Plan) {
        self.plan = plan
    }

    /// Claims `path` for `job`; returns the other owner when it is taken.
    func claim(_ path: String, for job: String) -> Owner? {
        claims.withLock { c in
            if c == nil { c = Self.reserved(by: plan) }
            if let owner = c?[path], owner != .job(job) { return owner }
            c?[path] = .job(job)
            return nil
        }
    }

    private static func reserved(by plan: Plan) -> [String: Owner] {
        var owners: [String: Owner] = [:]
        for job in plan.jobs {
            switch job.action {
            case .download(let d) where !d.namesFileAtRunTime: owners[d.to] = .job(job.id)
            case .archive(let a): owners[a.to] = .job(job.id)
            default: break
            }
        }
        if let manifest = OwnFilesCheck(manifest: plan.manifestIsStream ? nil : plan.manifestPath, directory: plan.directory).manifest { owners[manifest] = .manifest }
        return owners
    }
}
