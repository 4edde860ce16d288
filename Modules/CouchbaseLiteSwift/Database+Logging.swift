extension Database {
    /// Sets the console's level for one domain, or for every domain with `.all` — the
    /// Couchbase Lite 2.0 spelling.
    ///
    /// ```swift
    /// Database.setLogLevel(.verbose, domain: .replicator)
    /// Database.setLogLevel(.verbose, domain: .query)
    /// ```
    ///
    /// A domain's own level wins over `Database.log.console.level` until that is set again;
    /// the domain is also added to `Database.log.console.domains`. Newer code sets
    /// `Database.log.console` directly (Couchbase Lite 2.5+); both work together.
    public static func setLogLevel(_ level: LogLevel, domain: LogDomain) {
        log.console.setLevel(level, domain: domain)
    }
}
