import Foundation
import XferCurl

extension RunForecast {
    /// Input sizes of archive and extract jobs, from what is on disk now (read only) and
    /// the manifest's `size` of the downloads that will produce them.
    static func estimateInputs(_ plan: Plan) -> [InputEstimate?] {
        guard plan.jobs.contains(where: { $0.kind == .archive || $0.kind == .extract }) else {
            return Array(repeating: nil, count: plan.jobs.count)
        }
        var indexByID: [String: Int] = [:]
        for job in plan.jobs { indexByID[job.id] = job.index }
        var estimates: [InputEstimate?] = Array(repeating: nil, count: plan.jobs.count)
        // Waves are in dependency order, so an archive of an archive finds its input's estimate.
        for wave in plan.graph.waves {
            for j in wave where plan.jobs[j].kind == .archive || plan.jobs[j].kind == .extract {
                var estimate = InputEstimate(bytes: 0, unknown: 0)
                for input in plan.jobs[j].inputs {
                    switch input {
                    case .job(let id, let path):
                        if !path.hasSuffix("/"), let size = DownloadStart.size(of: path) {
                            estimate.bytes.addSaturating(size)
                        } else if let source = indexByID[id], let size = declaredSize(plan.jobs[source], estimates[source]) {
                            estimate.bytes.addSaturating(size)
                        } else {
                            estimate.unknown += 1
                        }
                    case .path(let pattern):
                        let own: String? = if case .archive(let a) = plan.jobs[j].action { a.to } else { nil }
                        var passed: [String] = []
                        let files = try? ArchiveInputs.files(of: pattern, excluding: own, skipping: plan.runFolders,
                                                             besides: plan.jobs[j].packedPaths) { path, kind in
                            passed.append("\(ControlCharacters.spaced(PathText.display(path, relativeTo: plan.outputDirectory))) (\(kind))")
                        }
                        estimate.passedOver += passed.sorted()
                        let sizes = (files ?? []).compactMap(DownloadStart.size(of:))
                        for size in sizes { estimate.bytes.addSaturating(size) }
                        if sizes.isEmpty { estimate.unknown += 1 }
                    }
                }
                estimates[j] = estimate
            }
        }
        return estimates
    }

    /// A source job's output size known before the run: a download's `size`, or (as an
    /// upper bound) an archive's input bytes when all are known.
    private static func declaredSize(_ job: PlannedJob, _ estimate: InputEstimate?) -> Int64? {
        switch job.action {
        case .download(let d): d.size
        case .archive: estimate.flatMap { $0.unknown == 0 ? $0.bytes : nil }
        case .upload, .extract: nil
        }
    }

    /// Words for the text plan: `inputs 12.0 MiB`, `inputs 3.0 MiB known, 2 of unknown size`.
    static func describe(_ estimate: InputEstimate) -> String {
        switch (estimate.bytes, estimate.unknown) {
        case (_, 0): "inputs \(ByteSize.format(estimate.bytes))"
        case (0, let n): "input size unknown until the run (\(n == 1 ? "1 input" : "\(n) inputs"))"
        case (let b, let n): "inputs \(ByteSize.format(b)) known, \(n) of unknown size"
        }
    }
}
