import Foundation

extension Plan {
    /// Graphviz DOT: one box per job, an arrow from each dependency to its dependent.
    public func dot() -> String {
        var out = "digraph \(Self.quoted(name ?? "xferbatch")) {\n  rankdir=LR;\n  node [shape=box, style=rounded];\n"
        for job in jobs {
            out += "  \(Self.quoted(job.id)) [label=\(Self.quoted("\(job.id)\n\(job.kind.rawValue)"))];\n"
        }
        for job in jobs {
            for dep in graph.dependencies[job.index] {
                out += "  \(Self.quoted(jobs[dep].id)) -> \(Self.quoted(job.id));\n"
            }
        }
        return out + "}\n"
    }

    /// Mermaid flowchart; node ids are `j<index>` because Mermaid ids cannot hold every
    /// character a job id may (`.` and `-`), and labels carry the real id.
    public func mermaid() -> String {
        var out = "flowchart LR\n"
        for job in jobs {
            out += "  j\(job.index)[\"\(job.id) (\(job.kind.rawValue))\"]\n"
        }
        for job in jobs {
            for dep in graph.dependencies[job.index] {
                out += "  j\(dep) --> j\(job.index)\n"
            }
        }
        return out
    }

    private static func quoted(_ s: String) -> String {
        "\"" + s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"").replacingOccurrences(of: "\n", with: "\\n") + "\""
    }
}
