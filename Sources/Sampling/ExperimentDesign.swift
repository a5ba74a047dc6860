import CGSL
import Foundation

/// Sample designs over the unit hypercube [0, 1)^d, for exploring a model over uncertain
/// inputs. Each design returns `n` rows of `d` coordinates; a caller maps coordinate j
/// onto its own range.
///
/// - **Latin hypercube** (McKay, Beckman & Conover, "A comparison of three methods for
///   selecting values of input variables in the analysis of output from a computer
///   code", Technometrics 21 (1979) 239–245): each axis is cut into n equal strata and
///   every stratum holds exactly one row; the strata are matched across axes by
///   independent random permutations (`gsl_ran_shuffle`) and each row sits at a uniform
///   draw within its stratum (`gsl_rng_uniform`). Reproducible from the seed: the same
///   seed, n and d give the same rows.
/// - **Sobol** (Sobol', 1967; GSL's `gsl_qrng_sobol`, the Bratley & Fox algorithm 659,
///   at most 40 dimensions) and **Halton** (GSL's `gsl_qrng_halton`, at most 1229
///   dimensions): low-discrepancy sequences, the same rows for every seed. GSL's
///   sequences start after the origin, so no coordinate is exactly 0.
public enum ExperimentDesign {
    public enum Method: String, CaseIterable, Sendable {
        case lhs, sobol, halton
    }

    public enum Failure: Error, Equatable, CustomStringConvertible {
        case tooManyDimensions(Method, Int, maximum: Int)
        case noSamples
        public var description: String {
            switch self {
            case .tooManyDimensions(let m, let d, let max):
                "the \(m.rawValue) sequence has at most \(max) dimensions, \(d) asked"
            case .noSamples: "a design needs at least one sample"
            }
        }
    }

    /// The most dimensions `method` can give (Latin hypercubes have no limit of their own).
    public static func maximumDimensions(_ method: Method) -> Int {
        switch method {
        case .lhs: Int.max
        case .sobol: Int(widgetsim_qrng_sobol().pointee.max_dimension)
        case .halton: Int(widgetsim_qrng_halton().pointee.max_dimension)
        }
    }

    /// `n` rows of `d` coordinates in [0, 1) by `method`; `seed` matters to `lhs` only.
    public static func rows(_ method: Method, samples n: Int, dimensions d: Int, seed: UInt64) throws(Failure) -> [[Double]] {
        guard n >= 1 else { throw .noSamples }
        guard d <= maximumDimensions(method) else { throw .tooManyDimensions(method, d, maximum: maximumDimensions(method)) }
        guard d >= 1 else { return Array(repeating: [], count: n) }
        switch method {
        case .lhs: return latinHypercube(samples: n, dimensions: d, seed: seed)
        case .sobol: return quasiRandom(widgetsim_qrng_sobol(), samples: n, dimensions: d)
        case .halton: return quasiRandom(widgetsim_qrng_halton(), samples: n, dimensions: d)
        }
    }

    /// A Latin hypercube from a Mersenne Twister seeded with `seed` (its 64 bits folded
    /// into GSL's unsigned long seed as they are).
    public static func latinHypercube(samples n: Int, dimensions d: Int, seed: UInt64) -> [[Double]] {
        let stream = RandomStream(kind: .mt19937, seed: UInt(truncatingIfNeeded: seed))
        var rows = Array(repeating: Array(repeating: 0.0, count: d), count: n)
        var strata = Array(0 ..< n)
        for j in 0 ..< d {
            strata.withUnsafeMutableBytes { buffer in
                gsl_ran_shuffle(stream.rng, buffer.baseAddress, n, MemoryLayout<Int>.stride)
            }
            for i in 0 ..< n {
                rows[i][j] = (Double(strata[i]) + stream.uniform()) / Double(n)
            }
        }
        return rows
    }

    static func quasiRandom(_ type: UnsafePointer<gsl_qrng_type>, samples n: Int, dimensions d: Int) -> [[Double]] {
        widgetsim_gsl_disable_abort()
        guard let q = gsl_qrng_alloc(type, UInt32(d)) else { fatalError("gsl_qrng_alloc failed: out of memory") }
        defer { gsl_qrng_free(q) }
        var row = Array(repeating: 0.0, count: d)
        var rows: [[Double]] = []
        rows.reserveCapacity(n)
        for _ in 0 ..< n {
            _ = row.withUnsafeMutableBufferPointer { gsl_qrng_get(q, $0.baseAddress) }
            rows.append(row)
        }
        return rows
    }
}
