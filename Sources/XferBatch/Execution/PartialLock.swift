import Foundation

/// The lock that makes a partial file (`<to>.xferpart`) one process's alone until it is
/// renamed into place.
///
/// Each manifest has its own state folder and run lock, so two manifests with the same
/// destination can run at the same time; without this they would write one partial
/// together and rename a file neither checked. The second fails that job, touching
/// nothing. The kernel drops the lock with the process (`kill -9` included). Only a lock
/// held elsewhere stops the job: a file system without locks (ENOLCK, EOPNOTSUPP) goes on
/// without this protection.
enum PartialLock {
    /// Locks `fd`, open on `partial`, until it is closed; fails with `busy` (closing
    /// `fd`) when another process holds it.
    static func take(_ fd: Int32, partial: String) throws(JobFailure) {
        guard flock(fd, LOCK_EX | LOCK_NB) != 0, errno == EWOULDBLOCK else { return }
        close(fd)
        throw JobFailure(kind: .local, code: "busy",
                         message: "another process is writing \(partial) (a run of another manifest with the same destination?)")
    }
}
