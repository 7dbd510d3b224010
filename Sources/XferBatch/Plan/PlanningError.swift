/// Problems the planner found in a manifest that decoded cleanly (cycles, missing
/// dependencies, paths escaping `outputDir`, two writers of one file...).
public struct PlanningError: Error, Sendable {
    public var diagnostics: [Diagnostic]
}
