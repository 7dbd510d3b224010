extension TransferSettings {
    /// These settings with every key that `other` sets replaced by `other`'s value.
    ///
    /// Nested objects merge key by key too (`retry.attempts` in a job keeps the default
    /// `retry.maxDelay`); headers merge by case-insensitive name, keeping first-seen order.
    public func overridden(by other: TransferSettings) -> TransferSettings {
        var merged = self
        for header in other.headers {
            if let i = merged.headers.firstIndex(where: { $0.name.lowercased() == header.name.lowercased() }) {
                merged.headers[i] = header
            } else {
                merged.headers.append(header)
            }
        }
        merged.auth = other.auth ?? auth
        merged.retry = RetrySettings(
            attempts: other.retry.attempts ?? retry.attempts,
            initialDelay: other.retry.initialDelay ?? retry.initialDelay,
            maxDelay: other.retry.maxDelay ?? retry.maxDelay,
            maxRetryAfter: other.retry.maxRetryAfter ?? retry.maxRetryAfter)
        merged.timeouts = TimeoutSettings(
            connect: other.timeouts.connect ?? timeouts.connect,
            total: other.timeouts.total ?? timeouts.total,
            stall: other.timeouts.stall ?? timeouts.stall,
            answer: other.timeouts.answer ?? timeouts.answer)
        merged.tls = TLSSettings(caFile: other.tls.caFile ?? tls.caFile, insecure: other.tls.insecure ?? tls.insecure,
                                 allowHttpRedirects: other.tls.allowHttpRedirects ?? tls.allowHttpRedirects,
                                 explicitFTPS: other.tls.explicitFTPS ?? tls.explicitFTPS,
                                 clientCert: other.tls.clientCert ?? tls.clientCert, clientKey: other.tls.clientKey ?? tls.clientKey,
                                 keyPassphraseEnv: other.tls.keyPassphraseEnv ?? tls.keyPassphraseEnv)
        merged.proxy = other.proxy ?? proxy
        merged.sftp = SFTPSettings(
            knownHosts: other.sftp.knownHosts ?? sftp.knownHosts,
            privateKey: other.sftp.privateKey ?? sftp.privateKey,
            passphraseEnv: other.sftp.passphraseEnv ?? sftp.passphraseEnv)
        return merged
    }
}
