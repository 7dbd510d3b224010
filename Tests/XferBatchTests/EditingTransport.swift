import Foundation
import GRDB
import Synchronization
import Testing
@testable import XferBatch
import XferCurl
import XferFixtures

/// A transport that does something (to the files, say) as each transfer starts.
struct EditingTransport: Transport {
    let base: any Transport
    let onPerform: @Sendable () -> Void

    func perform(_ request: TransferRequest, progress: TransferProgress) async throws(TransferError) -> TransferOutcome {
        onPerform()
        return try await base.perform(request, progress: progress)
    }
}
