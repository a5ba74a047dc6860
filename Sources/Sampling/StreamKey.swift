/// The identity of one random stream: (scenario seed, replication, person, process).
///
/// **Seed derivation.** The four numbers are folded with SplitMix64's finaliser:
///
///     h = mix(seed)
///     h = mix(h ^ replication)
///     h = mix(h ^ person)
///     h = mix(h ^ process)
///     gslSeed = (h >> 32) ^ (h & 0xFFFF_FFFF), or 1 when that is 0
///
/// where `mix(x)` adds the golden-ratio constant 0x9E3779B97F4A7C15 and applies
/// SplitMix64's two xor-shift-multiply rounds. The result is folded to 32 bits because
/// GSL's `taus2` and `mt19937` seeding use only the low 32 bits of a seed. Each input
/// passes through a full avalanche before the next is mixed in, so streams whose keys
/// differ in any one field start from unrelated states. A seed of 0 is avoided because
/// several GSL generators replace it by a fixed default.
public struct StreamKey: Hashable, Sendable {
    public var seed: UInt64
    public var replication: UInt64
    public var person: UInt64
    public var process: UInt64

    public init(seed: UInt64, replication: Int, person: Int, process: UInt64) {
        self.seed = seed
        self.replication = UInt64(replication)
        self.person = UInt64(person)
        self.process = process
    }

    /// SplitMix64's finaliser applied to `x + golden`.
    @inlinable
    public static func mix(_ x: UInt64) -> UInt64 {
        var z = x &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// The full 64-bit hash of the key.
    @inlinable
    public var hash64: UInt64 { Self.mix(personHash ^ process) }

    /// The hash of the seed, replication and person, before the process is mixed in:
    /// the same for every stream of one person.
    @inlinable
    public var personHash: UInt64 {
        var h = Self.mix(seed)
        h = Self.mix(h ^ replication)
        return Self.mix(h ^ person)
    }

    /// The seed handed to `gsl_rng_set`.
    @inlinable
    public var gslSeed: UInt { Self.gslSeed(personHash: personHash, process: process) }

    /// `gslSeed` of the key of `process` whose seed, replication and person hash to
    /// `personHash`: for a person's streams, which share that hash.
    @inlinable
    public static func gslSeed(personHash: UInt64, process: UInt64) -> UInt {
        let h = mix(personHash ^ process)
        let folded = (h >> 32) ^ (h & 0xFFFF_FFFF)
        return UInt(folded == 0 ? 1 : folded)
    }
}
