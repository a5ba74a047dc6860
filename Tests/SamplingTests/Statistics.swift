import Testing

/// The confidence multiplier of every statistical check in this target: a fixed seed
/// makes each check deterministic, and 4 standard errors leave room for an unlucky seed
/// (two-sided tail ≈ 6e-5) while a wrong mean or spread is still caught.
let z = 4.0

/// The first four sample moments of `xs`.
struct SampleMoments {
    let n: Int
    let mean: Double
    /// Unbiased sample variance (divisor n − 1).
    let variance: Double
    /// Empirical fourth central moment (divisor n).
    let mu4: Double

    init(_ xs: [Double]) {
        precondition(xs.count > 1)
        n = xs.count
        var sum = 0.0
        for x in xs { sum += x }
        let m = sum / Double(n)
        var s2 = 0.0, s4 = 0.0
        for x in xs {
            let d = x - m
            let d2 = d * d
            s2 += d2
            s4 += d2 * d2
        }
        mean = m
        variance = s2 / Double(n - 1)
        mu4 = s4 / Double(n)
    }
}

/// Analytic moments of a distribution.
struct Analytic {
    let mean: Double
    let variance: Double
    /// Fourth central moment E[(X − μ)⁴].
    let mu4: Double

    /// Central moments from the raw moments E[X], E[X²], E[X³], E[X⁴].
    init(raw m1: Double, _ m2: Double, _ m3: Double, _ m4: Double) {
        mean = m1
        variance = m2 - m1 * m1
        mu4 = m4 - 4 * m1 * m3 + 6 * m1 * m1 * m2 - 3 * m1 * m1 * m1 * m1
    }

    init(mean: Double, variance: Double, mu4: Double) {
        self.mean = mean
        self.variance = variance
        self.mu4 = mu4
    }

    /// A distribution on 0 ..< p.count with P(i) = p[i].
    init(categorical p: [Double]) {
        var raw = [0.0, 0.0, 0.0, 0.0]
        for (i, pi) in p.enumerated() {
            let x = Double(i)
            raw[0] += pi * x
            raw[1] += pi * x * x
            raw[2] += pi * x * x * x
            raw[3] += pi * x * x * x * x
        }
        self.init(raw: raw[0], raw[1], raw[2], raw[3])
    }
}

/// Checks the sample mean against `expected.mean` within z·sqrt(Var/n), and the sample
/// variance against `expected.variance` within z·sqrt((μ4 − σ⁴)/n), the standard error
/// of the sample variance. `mu4` defaults to the analytic one; pass the empirical one
/// where no closed form is at hand.
func expectMoments(
    _ xs: [Double], _ expected: Analytic, _ label: String,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    let s = SampleMoments(xs)
    let n = Double(s.n)
    let meanTolerance = z * (expected.variance / n).squareRoot()
    let sigma4 = expected.variance * expected.variance
    let varianceTolerance = z * ((expected.mu4 - sigma4) / n).squareRoot()
    #expect(
        abs(s.mean - expected.mean) <= meanTolerance,
        "\(label): mean \(s.mean), expected \(expected.mean) ± \(meanTolerance)",
        sourceLocation: sourceLocation)
    #expect(
        abs(s.variance - expected.variance) <= varianceTolerance,
        "\(label): variance \(s.variance), expected \(expected.variance) ± \(varianceTolerance)",
        sourceLocation: sourceLocation)
}

/// Checks each category's frequency against n·p[i] within z binomial standard errors
/// sqrt(n·p·(1 − p)); a category of probability 0 must never occur.
func expectFrequencies(
    _ counts: [Int], _ p: [Double], _ label: String,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    let n = Double(counts.reduce(0, +))
    for i in p.indices {
        if p[i] == 0 {
            #expect(counts[i] == 0, "\(label): category \(i) has weight 0 but occurred \(counts[i]) times",
                    sourceLocation: sourceLocation)
            continue
        }
        let expected = n * p[i]
        let tolerance = z * (n * p[i] * (1 - p[i])).squareRoot()
        #expect(
            abs(Double(counts[i]) - expected) <= tolerance,
            "\(label): category \(i) occurred \(counts[i]) times, expected \(expected) ± \(tolerance)",
            sourceLocation: sourceLocation)
    }
}

/// Pearson's correlation coefficient of paired samples.
func pearson(_ x: [Double], _ y: [Double]) -> Double {
    precondition(x.count == y.count && x.count > 1)
    let n = Double(x.count)
    let mx = x.reduce(0, +) / n, my = y.reduce(0, +) / n
    var sxy = 0.0, sxx = 0.0, syy = 0.0
    for i in x.indices {
        let dx = x[i] - mx, dy = y[i] - my
        sxy += dx * dy
        sxx += dx * dx
        syy += dy * dy
    }
    return sxy / (sxx * syy).squareRoot()
}
