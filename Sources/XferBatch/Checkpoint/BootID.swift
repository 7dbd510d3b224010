import Foundation

/// The kernel's id of the current boot (`/proc/sys/kernel/random/boot_id`).
///
/// Why it matters for resuming: after a process death (`kill -9`, OOM) the kernel still
/// holds every byte the process wrote, so a partial file's length can be trusted; after a
/// power loss or reboot only what was flushed can. A partial is therefore resumed at its
/// length only within the boot that wrote it, and started again otherwise.
public enum BootID {
    public static let current: String? = {
        guard let data = FileManager.default.contents(atPath: "/proc/sys/kernel/random/boot_id") else { return nil }
        let text = String(decoding: data, as: UTF8.self).trimmingSpaces.replacingOccurrences(of: "\n", with: "")
        return text.isEmpty ? nil : text
    }()
}
