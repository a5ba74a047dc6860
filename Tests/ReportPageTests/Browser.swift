import Foundation

/// Headless Chromium (Debian's `chromium`; scripts/test installs it), used to load a page
/// as a reader's browser does: its DOM after loading, the requests the page made, and a
/// screenshot.
enum Browser {
    static func executable() throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for name in ["chromium", "chromium-browser", "google-chrome"] {
            for dir in path.split(separator: ":") where FileManager.default.isExecutableFile(atPath: "\(dir)/\(name)") {
                return "\(dir)/\(name)"
            }
        }
        throw TestFailure("headless Chromium is not installed: apt-get install chromium (scripts/test installs it)")
    }

    /// Flags for a quiet, offline browser: no browser-side background traffic, and any
    /// host name fails to resolve, so even a request the page makes never leaves the machine
    /// (it still shows in the network log).
    static func flags(profile: URL) -> [String] {
        ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--host-resolver-rules=MAP * ~NOTFOUND", "--user-data-dir=\(profile.path)"]
    }

    struct Load {
        /// The document after loading, as serialized by the browser.
        var dom: String
        /// URLs of the network requests the page made (not the browser's own housekeeping).
        var pageRequests: [String]
    }

    /// Loads `page` and returns its DOM and the network requests it made.
    static func load(_ page: URL) throws -> Load {
        let work = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let netLog = work.appendingPathComponent("net.json")
        let result = try runProgram(try executable(), flags(profile: work.appendingPathComponent("profile"))
            + ["--log-net-log=\(netLog.path)", "--dump-dom", page.absoluteString])
        guard result.status == 0, result.out.contains("</html>") else {
            throw TestFailure("chromium --dump-dom failed (\(result.status)): \(result.err.suffix(800))")
        }
        return Load(dom: result.out, pageRequests: try pageRequests(netLog))
    }

    /// Requests in a Chromium network log that a page started: the browser's own requests
    /// carry the initiator "not an origin"; a page's carry its origin ("null" for file://).
    static func pageRequests(_ netLog: URL) throws -> [String] {
        let data = try Data(contentsOf: netLog)
        guard let log = try JSONSerialization.jsonObject(with: data) as? [String: Any],
              let constants = log["constants"] as? [String: Any],
              let types = constants["logEventTypes"] as? [String: Int],
              let startJob = types["URL_REQUEST_START_JOB"],
              let events = log["events"] as? [[String: Any]]
        else { throw TestFailure("unreadable network log \(netLog.path)") }
        return events.compactMap { e in
            guard e["type"] as? Int == startJob, let p = e["params"] as? [String: Any],
                  let url = p["url"] as? String, p["initiator"] as? String != "not an origin" else { return nil }
            return url
        }
    }

    /// Saves a full-page-width screenshot of `page` to `png`.
    static func screenshot(_ page: URL, to png: URL, height: Int) throws {
        let work = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let result = try runProgram(try executable(), flags(profile: work.appendingPathComponent("profile"))
            + ["--window-size=1280,\(height)", "--screenshot=\(png.path)", page.absoluteString])
        guard result.status == 0, FileManager.default.fileExists(atPath: png.path) else {
            throw TestFailure("chromium --screenshot failed (\(result.status)): \(result.err.suffix(800))")
        }
    }

    /// Where the tests keep screenshots for a person to look at (under .build/, not committed).
    static let screenshotFolder: URL = {
        let url = repositoryRoot.appendingPathComponent(".build/report-screenshots")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()
}

extension String {
    /// The text of the element that starts with `start`, up to and including `end`.
    func element(starting start: String, ending end: String) -> String? {
        guard let a = range(of: start), let b = range(of: end, range: a.upperBound ..< endIndex) else { return nil }
        return String(self[a.lowerBound ..< b.upperBound])
    }

    func occurrences(of s: String) -> Int { components(separatedBy: s).count - 1 }
}
