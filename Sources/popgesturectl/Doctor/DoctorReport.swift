import PopGestureProtocol

/// One thing `popgesturectl doctor` found: how bad, what, and the exact fix.
struct Finding: Equatable {
    enum Level: String {
        /// As it should be.
        case ok
        /// Worth knowing; nothing to fix for a swipe to work.
        case note
        /// Something is off that may keep some swipes from working.
        case warning
        /// Keeps every swipe from working.
        case problem

        /// The column: `PROBLEM` in capitals, so that it stands out.
        var label: String { self == .problem ? "PROBLEM" : rawValue }
    }

    var level: Level
    var text: String
    /// More facts, one a line, under the text.
    var details: [String] = []
    /// What to look at to find the cause, each printed after `check:`.
    var checks: [String] = []
    /// What to do, one step a line, each printed after `fix:`.
    var fixes: [String] = []

    static func ok(_ text: String, _ details: [String] = []) -> Finding { Finding(level: .ok, text: text, details: details) }
    static func note(_ text: String, _ details: [String] = [], fixes: [String] = []) -> Finding {
        Finding(level: .note, text: text, details: details, fixes: fixes)
    }
    static func warning(_ text: String, _ details: [String] = [], fixes: [String] = []) -> Finding {
        Finding(level: .warning, text: text, details: details, fixes: fixes)
    }
    static func problem(_ text: String, _ details: [String] = [], checks: [String] = [], fixes: [String] = []) -> Finding {
        Finding(level: .problem, text: text, details: details, checks: checks, fixes: fixes)
    }
}

/// One of the doctor's checks, in the order it runs them: a title and what it found.
struct DoctorCheck: Equatable {
    var title: String
    var findings: [Finding]
}

/// Everything `doctor` found, and whether a swipe can work.
struct DoctorReport: Equatable {
    /// The socket it asked.
    var socket: String
    var checks: [DoctorCheck]
    /// Why no swipe can work; empty when one can.
    var blockers: [String]
    /// What works, for the verdict when a swipe can work.
    var summary: String

    var swipeCanWork: Bool { blockers.isEmpty }

    /// The last line: `verdict: a swipe can work: …` or `verdict: no swipe can work: …`.
    var verdict: String {
        swipeCanWork ? "verdict: a swipe can work: \(summary)" : "verdict: no swipe can work: \(blockers.joined(separator: "; "))"
    }

    /// The level column's width: `PROBLEM`, `warning`.
    static let levelWidth = 7

    /// For people: each check's title, its findings indented under it, a blank line
    /// between checks, the verdict last.
    var lines: [String] {
        var lines = ["popgesturectl doctor: popgestured on \(socket)", ""]
        for check in checks {
            lines.append(check.title)
            for finding in check.findings {
                lines.append("  " + EventFormatter.padRight(finding.level.label, to: Self.levelWidth) + "  " + finding.text)
                let indent = String(repeating: " ", count: Self.levelWidth + 4)
                lines += finding.details.map { indent + $0 }
                lines += finding.checks.map { indent + "check: " + $0 }
                lines += finding.fixes.map { indent + "fix: " + $0 }
            }
            lines.append("")
        }
        lines.append(verdict)
        return lines
    }

    /// For scripts: `{"swipeCanWork":…,"verdict":…,"socket":…,"checks":[{"check":…,"findings":[…]}]}`.
    var json: String {
        let checks = checks.map { check in
            JSONValue.object([
                "check": .string(check.title),
                "findings": .array(check.findings.map { finding in
                    .object([
                        "level": .string(finding.level.rawValue), "text": .string(finding.text),
                        "details": .array(finding.details.map(JSONValue.string)),
                        "checks": .array(finding.checks.map(JSONValue.string)),
                        "fixes": .array(finding.fixes.map(JSONValue.string)),
                    ])
                }),
            ])
        }
        return JSONValue.object([
            "swipeCanWork": .bool(swipeCanWork), "verdict": .string(verdict), "socket": .string(socket),
            "checks": .array(checks),
        ]).text
    }
}
