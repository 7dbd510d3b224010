import Foundation

extension RunForecast {
    /// The files a transfer's settings name that a run could not read: the CA bundle and
    /// client certificate and key of an https or ftps URL (`tls.*`), the known_hosts file and private key of an sftp
    /// one; and what a `file:` URL names that is no file (`LocalFileURL`). The transfer
    /// would fail on them before sending anything, so `plan` says so.
    /// A file another job of the plan writes (a CA bundle downloaded first) is not judged.
    struct TransferFiles {
        let plan: Plan
        private var written: Set<String>?
        /// Each file's answer, looked up once: many jobs share one CA bundle or key.
        private var known: [String: String?] = [:]

        init(plan: Plan) { self.plan = plan }

        /// Why `t` cannot be used for `url`, or nil.
        mutating func problem(_ url: TransferURL, _ t: EffectiveTransfer) -> String? {
            if let problem = LocalFileURL.problem(url) { return problem }
            var named: [(file: String, setting: String)] = []
            if url.scheme == "https" || url.scheme == "ftps" || (url.scheme == "ftp" && t.explicitFTPS) {
                if let ca = t.caFile { named.append((ca, "tls.caFile")) }
                if let certificate = t.clientCert { named.append((certificate, "tls.clientCert")) }
                if let key = t.clientKey { named.append((key, "tls.clientKey")) }
            }
            if url.scheme == "sftp" {
                named.append((t.knownHosts ?? PathText.home(in: ProcessInfo.processInfo.environment) + "/.ssh/known_hosts", "sftp.knownHosts"))
                if let key = t.privateKey { named.append((key, "sftp.privateKey")) }
            }
            for (file, setting) in named {
                if let reason = refusal(file) { return "cannot read \(file) (\(setting)): \(reason)" }
            }
            return nil
        }

        /// Why `file` cannot be read (nil: it can, or a job of the plan writes it).
        private mutating func refusal(_ file: String) -> String? {
            if let answer = known[file] { return answer }
            var answer: String? = nil
            if access(file, R_OK) != 0 {
                answer = String(cString: strerror(errno))
                if written == nil { written = Set(plan.writtenPaths().outputs) }
                if written?.contains(file) == true { answer = nil }
            }
            known[file] = answer
            return answer
        }
    }
}
