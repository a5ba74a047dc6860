import ArgumentParser
import Foundation
import WidgetSimModel

/// The `widgetsim` command line, for the `widgetsim` program itself and for host
/// programs that add their own policies.
///
/// A host program's `main` is one call:
///
/// ```swift
/// WidgetSimCLI.main(budgets: [IdleSaverBudget.descriptor], rankings: [LastTappedRanking.descriptor])
/// ```
///
/// Every subcommand then knows the added policies as it knows the built-in ones:
/// scenario files name them, `validate` checks their parameters, `policies` lists
/// them, `run`, `batch` and `merge` run them.
public enum WidgetSimCLI {
    /// Runs the command line with the built-in policies and `budgets` and `rankings`
    /// registered after them, then exits. A policy that cannot be registered (its
    /// name is taken, say) is reported on standard error and the program exits with
    /// status 70 (an error in the program, not in its input) before reading any
    /// argument.
    public static func main(
        budgets: [BudgetPolicyDescriptor] = [], rankings: [RankingPolicyDescriptor] = [],
        arguments: [String]? = nil
    ) -> Never {
        let registry: PolicyRegistry
        do {
            registry = try PolicyRegistry.builtIn.adding(budgets: budgets, rankings: rankings)
        } catch {
            printError("\(CommandLine.arguments.first.map { ($0 as NSString).lastPathComponent } ?? "widgetsim"): \(error)")
            exit(70)
        }
        main(policies: registry, arguments: arguments)
    }

    /// Runs the command line with exactly the policies of `policies` (normally
    /// `PolicyRegistry.builtIn` with a program's own registered after it), then exits.
    /// `arguments` default to the process's own.
    /// A command line the parser rejects (an unknown option, a missing or malformed
    /// value) is bad input like any other: its message, and exit status 2.
    public static func main(policies: PolicyRegistry, arguments: [String]? = nil) -> Never {
        current.set(policies)
        do {
            var command = try WidgetSimCommand.parseAsRoot(arguments)
            try command.run()
        } catch {
            let code = WidgetSimCommand.exitCode(for: error)
            let message = WidgetSimCommand.fullMessage(for: error)
            if code == .success {
                if !message.isEmpty { print(message) }
                exit(0)
            }
            if !message.isEmpty { printError(message) }
            exit(code == .validationFailure ? 2 : code.rawValue)
        }
        exit(0)
    }

    /// The policies the running command line knows.
    static var policies: PolicyRegistry { current.get() }

    /// Set once, before any argument is parsed; read by the subcommands.
    private static let current = Current()

    private final class Current: @unchecked Sendable {
        private let lock = NSLock()
        private var registry = PolicyRegistry.builtIn
        func set(_ r: PolicyRegistry) {
            lock.lock()
            defer { lock.unlock() }
            registry = r
        }
        func get() -> PolicyRegistry {
            lock.lock()
            defer { lock.unlock() }
            return registry
        }
    }
}
