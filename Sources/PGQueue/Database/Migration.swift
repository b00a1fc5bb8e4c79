/// One versioned schema change. Every statement is idempotent on its own (`IF NOT EXISTS`,
/// `CREATE OR REPLACE`, guarded `DO` blocks), so a migration also applies cleanly over tables the
/// backend created first.
public struct Migration: Sendable {
    public let version: Int
    public let name: String
    public let sql: String
}
