#if canImport(Glibc)
import Glibc
#endif

/// Names of the errno values a transfer or a local file operation can meet, for stable error codes in reports.
public enum ErrnoName {
    public static func name(_ err: Int32) -> String {
        switch err {
        case ENOSPC: "ENOSPC"
        case EACCES: "EACCES"
        case ENOENT: "ENOENT"
        case EROFS: "EROFS"
        case EDQUOT: "EDQUOT"
        case EIO: "EIO"
        case EISDIR: "EISDIR"
        case EBADF: "EBADF"
        case EFBIG: "EFBIG"
        case ENOTDIR: "ENOTDIR"
        case EPERM: "EPERM"
        case EEXIST: "EEXIST"
        case EXDEV: "EXDEV"
        case ENAMETOOLONG: "ENAMETOOLONG"
        case EMFILE: "EMFILE"
        case ELOOP: "ELOOP"
        default: "errno \(err)"
        }
    }
}
