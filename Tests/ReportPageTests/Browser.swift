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

extension Browser {
    /// What a reader's browser lays out, measured by a script added to a copy of the page
    /// (the page itself holds none): text that overlaps other text or leaves its chart,
    /// charts drawn empty or at zero size, and the page's width against the viewport's.
    struct Layout: Decodable {
        var viewport: Double
        var scrollWidth: Double
        /// "chart: «a» / «b»" for each pair of texts of one chart whose outlines overlap.
        var overlaps: [String]
        /// "chart: «text»" for each text drawn partly outside its chart's area.
        var cut: [String]
        /// Charts with no SVG, a zero-sized one, or no mark (point, line, bar) in it.
        var empty: [String]
        /// Each chart's width on screen, by figure id.
        var widths: [String: Double]
        /// Tables wider than their box (which then scrolls), by id.
        var overflowing: [String]
        /// Charts wider than their box (which then scrolls, hiding a part), by figure id.
        var scrolledCharts: [String]
    }

    static let measureScript = #"""
    <script>
    (function () {
      var out = { viewport: window.innerWidth, scrollWidth: document.documentElement.scrollWidth, overlaps: [], cut: [], empty: [], widths: {}, overflowing: [], scrolledCharts: [] };
      document.querySelectorAll('div.scroll').forEach(function (d) {
        if (d.scrollWidth > d.clientWidth + 1) { var t = d.querySelector('table'); out.overflowing.push(t ? t.id : '?'); }
      });
      document.querySelectorAll('figure.chart div.chartbox').forEach(function (d) {
        if (d.scrollWidth > d.clientWidth + 1) out.scrolledCharts.push(d.parentNode.id);
      });
      function corners(t) {
        var b = t.getBBox(), m = t.getScreenCTM();
        return [[b.x, b.y], [b.x + b.width, b.y], [b.x + b.width, b.y + b.height], [b.x, b.y + b.height]].map(function (p) {
          return [m.a * p[0] + m.c * p[1] + m.e, m.b * p[0] + m.d * p[1] + m.f];
        });
      }
      function shrink(q, by) {
        var cx = (q[0][0] + q[2][0]) / 2, cy = (q[0][1] + q[2][1]) / 2;
        return q.map(function (p) {
          var dx = p[0] - cx, dy = p[1] - cy, l = Math.sqrt(dx * dx + dy * dy) || 1;
          return [p[0] - dx / l * by, p[1] - dy / l * by];
        });
      }
      function separated(a, b) {
        var qs = [a, b];
        for (var k = 0; k < 2; k++) {
          var q = qs[k];
          for (var i = 0; i < 4; i++) {
            var p = q[i], r = q[(i + 1) % 4], nx = r[1] - p[1], ny = p[0] - r[0];
            var amin = Infinity, amax = -Infinity, bmin = Infinity, bmax = -Infinity;
            a.forEach(function (v) { var d = v[0] * nx + v[1] * ny; amin = Math.min(amin, d); amax = Math.max(amax, d); });
            b.forEach(function (v) { var d = v[0] * nx + v[1] * ny; bmin = Math.min(bmin, d); bmax = Math.max(bmax, d); });
            if (amax <= bmin || bmax <= amin) return true;
          }
        }
        return false;
      }
      document.querySelectorAll('figure.chart').forEach(function (f) {
        var svg = f.querySelector('svg');
        if (!svg) { out.empty.push(f.id); return; }
        var box = svg.getBoundingClientRect();
        out.widths[f.id] = box.width;
        if (box.width < 1 || box.height < 1) out.empty.push(f.id);
        var marks = svg.querySelectorAll('use, polygon, path');
        if (marks.length === 0) out.empty.push(f.id);
        var texts = Array.prototype.filter.call(svg.querySelectorAll('text'), function (t) {
          return t.textContent.trim() !== '' && t.getBBox().width > 0;
        }).map(function (t) { return { text: t.textContent.trim(), q: shrink(corners(t), 1.5) }; });
        texts.forEach(function (t) {
          t.q.forEach(function (p) {
            if (p[0] < box.left - 1 || p[0] > box.right + 1 || p[1] < box.top - 1 || p[1] > box.bottom + 1) {
              if (out.cut.indexOf(f.id + ': «' + t.text + '»') < 0) out.cut.push(f.id + ': «' + t.text + '»');
            }
          });
        });
        for (var i = 0; i < texts.length; i++) {
          for (var j = i + 1; j < texts.length; j++) {
            if (!separated(texts[i].q, texts[j].q)) out.overlaps.push(f.id + ': «' + texts[i].text + '» / «' + texts[j].text + '»');
          }
        }
      });
      document.body.setAttribute('data-layout', JSON.stringify(out));
      if (window.parent !== window) window.parent.postMessage(JSON.stringify(out), '*');
    })();
    </script>
    """#

    /// Lays out `page` in a frame `width` pixels wide (headless Chromium's windows are
    /// at least 500 pixels wide, a phone's screen is narrower) and measures it.
    static func layout(_ page: URL, width: Int) throws -> Layout {
        let work = temporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let html = try String(contentsOf: page, encoding: .utf8)
        let copy = work.appendingPathComponent("measured.html")
        try html.replacingOccurrences(of: "</body>", with: measureScript + "\n</body>").write(to: copy, atomically: true, encoding: .utf8)
        let harness = work.appendingPathComponent("frame.html")
        try """
            <!DOCTYPE html><html><body style="margin:0">
            <script>window.addEventListener('message', function (e) { document.body.setAttribute('data-layout', e.data); });</script>
            <iframe src="measured.html" width="\(width)" height="900" style="border:0;display:block"></iframe>
            </body></html>
            """.write(to: harness, atomically: true, encoding: .utf8)
        let result = try runProgram(try executable(), flags(profile: work.appendingPathComponent("profile"))
            + ["--window-size=\(max(width + 40, 600)),1000", "--allow-file-access-from-files", "--virtual-time-budget=6000",
               "--dump-dom", harness.absoluteString])
        guard result.status == 0, let start = result.out.range(of: "data-layout=\""),
              let end = result.out.range(of: "\"", range: start.upperBound ..< result.out.endIndex) else {
            throw TestFailure("chromium measured nothing (\(result.status)): \(result.err.suffix(800))")
        }
        let json = String(result.out[start.upperBound ..< end.lowerBound])
            .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&lt;", with: "<")
            .replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&amp;", with: "&")
        return try JSONDecoder().decode(Layout.self, from: Data(json.utf8))
    }
}
