import WidgetSimModel
import Yams

/// `stack:` — the Smart Stack (MODEL §5): which widgets it holds, in the person's order,
/// whether Smart Rotate is on, and the system's rotation limits (`rotation_limits: ios`
/// or `none`, with `hold_min`, `hold_max`, `cooldown`). Without it, the stack holds every
/// widget in file order under the iOS limits.
extension ScenarioReader {
    func stack(_ node: Node?, _ path: String, widgets: [WidgetEntry]) -> StackSpec? {
        let defaults = StackSpec(members: [])
        var smartRotate = defaults.smartRotate
        var limits = defaults.rotationLimits
        var members: [Int]? = nil
        var suggestions = defaults.widgetSuggestions
        var suggestable: [Int] = []
        let keys = ["members", "smart_rotate", "widget_suggestions", "suggestable", "rotation_limits"]
            + RotationLimits.parameters.map(\.name)
        if let node, let f = fields(node, path, keys: keys, nullIsEmpty: true) {
            if let v = f.read("smart_rotate", flag) { smartRotate = v }
            if let v = f.read("widget_suggestions", flag) { suggestions = v }
            let choice = ParameterSpec(
                "rotation_limits", .choice(RotationLimits.Mode.allCases.map(\.rawValue)), default: .text("ios"), "")
            if let node = f["rotation_limits"], case .text(let mode)? = parameterValue(node, f.path("rotation_limits"), spec: choice) {
                limits.mode = RotationLimits.Mode(rawValue: mode)!
            }
            var hold = (limits.holdMinMs, limits.holdMaxMs)
            for spec in RotationLimits.parameters {
                guard let node = f[spec.name], case .duration(let ms)? = parameterValue(node, f.path(spec.name), spec: spec) else {
                    continue
                }
                switch spec.name {
                case RotationLimits.holdMin.name: hold.0 = ms
                case RotationLimits.holdMax.name: hold.1 = ms
                default: limits.cooldownMs = ms
                }
            }
            limits = RotationLimits(mode: limits.mode, holdMinMs: hold.0, holdMaxMs: hold.1, cooldownMs: limits.cooldownMs)
            if let membersNode = f["members"] {
                guard let m = stackMembers(membersNode, f.path("members"), widgets: widgets) else { return nil }
                members = m
            }
            if let node = f["suggestable"] {
                if members == nil {
                    report("`suggestable` needs `members`: without it every widget is in the stack", at: node,
                           path: f.path("suggestable"))
                    return nil
                }
                guard let s = placedNowhere(node, f.path("suggestable"), widgets: widgets, members: members ?? [])
                else { return nil }
                suggestable = s
            }
        } else if node != nil {
            return nil
        }
        var spec = StackSpec(members: members ?? defaultMembers(widgets), smartRotate: smartRotate, rotationLimits: limits)
        spec.widgetSuggestions = suggestions
        spec.suggestable = suggestable
        return spec
    }

    /// `suggestable: [id, …]`: defined ids, none in the stack, none twice, at most 10.
    func placedNowhere(_ node: Node, _ path: String, widgets: [WidgetEntry], members: [Int]) -> [Int]? {
        guard let items = list(node, path, what: "a list of widget ids") else { return nil }
        let before = issues.count
        if items.count > StackSpec.maximumMembers {
            report("at most \(StackSpec.maximumMembers) widgets, got \(items.count)", at: node, path: path)
        }
        var indices: [Int] = []
        for (i, item) in items.enumerated() {
            let itemPath = path.appending(index: i)
            guard let id = text(item, itemPath, what: "a widget id") else { continue }
            guard let index = widgets.firstIndex(where: { $0.id == id }) else {
                report("widget `\(id)` is not defined", at: item, path: itemPath)
                continue
            }
            if members.contains(index) {
                report("widget `\(id)` is in the stack; suggestable widgets are placed nowhere", at: item, path: itemPath)
            } else if indices.contains(index) {
                report("widget `\(id)` is listed twice", at: item, path: itemPath)
            }
            indices.append(index)
        }
        return issues.count == before ? indices : nil
    }

    /// Every widget in file order, checked as a stack: at most 10, one family.
    func defaultMembers(_ widgets: [WidgetEntry]) -> [Int] {
        if widgets.count > StackSpec.maximumMembers, let last = widgets.last {
            report("""
                the stack holds every widget unless `stack: members:` chooses, but a stack holds at most \
                \(StackSpec.maximumMembers) and there are \(widgets.count)
                """, at: last.node, path: last.path)
        }
        guard let first = widgets.first(where: { $0.family != nil }), let family = first.family else { return [] }
        for w in widgets {
            guard let other = w.family, other != family else { continue }
            report("""
                widget `\(w.id ?? "?")` is \(other.rawValue), but `\(first.id ?? "?")` is \(family.rawValue): \
                a stack holds one family; choose its widgets under `stack: members:`
                """, at: w.familyNode ?? w.node, path: w.path.appending(key: "family"))
        }
        return Array(widgets.indices)
    }

    /// `members: [id, …]`: defined ids, no repeats, 1…10 of one family → widget indices.
    func stackMembers(_ node: Node, _ path: String, widgets: [WidgetEntry]) -> [Int]? {
        guard let items = list(node, path, what: "a list of widget ids") else { return nil }
        let before = issues.count
        if items.isEmpty {
            report("must list at least 1 widget", at: node, path: path)
        } else if items.count > StackSpec.maximumMembers {
            report("a stack holds at most \(StackSpec.maximumMembers) widgets, got \(items.count)", at: node, path: path)
        }
        // Only when every widget's id could be read is an unknown id surely undefined.
        let ids = widgets.compactMap(\.id)
        let idsComplete = ids.count == widgets.count
        var indices: [Int] = []
        var seen: Set<Int> = []
        var firstFamily: (id: String, family: WidgetFamily)? = nil
        for (i, item) in items.enumerated() {
            let itemPath = path.appending(index: i)
            guard let id = text(item, itemPath, what: "a widget id") else { continue }
            guard let index = widgets.firstIndex(where: { $0.id == id }) else {
                if idsComplete {
                    var message = "widget `\(Excerpt.of(id))` is not defined"
                    if let guess = Suggestions.nearest(to: id, in: ids) {
                        message += "; did you mean `\(guess)`?"
                    } else {
                        message += "; widgets: \(ids.joined(separator: ", "))"
                    }
                    report(message, at: item, path: itemPath)
                }
                continue
            }
            guard seen.insert(index).inserted else {
                report("widget `\(id)` is already in the stack", at: item, path: itemPath)
                continue
            }
            if let family = widgets[index].family {
                if let first = firstFamily, first.family != family {
                    report("""
                        widget `\(id)` is \(family.rawValue), but `\(first.id)` is \(first.family.rawValue): \
                        a stack holds one family
                        """, at: item, path: itemPath)
                } else if firstFamily == nil {
                    firstFamily = (id, family)
                }
            }
            indices.append(index)
        }
        return issues.count == before && indices.count == items.count ? indices : nil
    }
}
