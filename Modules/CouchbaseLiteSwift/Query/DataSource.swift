/// Where a query reads documents: `DataSource.database(database).as("hotels")`.
public enum DataSource {
    /// The documents of `database`.
    public static func database(_ database: Database) -> DataSourceAs { DataSourceAs(database: database, alias: nil) }
}

/// A data source.
public protocol DataSourceProtocol: Sendable {}

/// A data source that can be given an alias (needed in joins).
public struct DataSourceAs: DataSourceProtocol {
    let database: Database
    let alias: String?
    /// The name expressions use for this source (`Expression.property("name").from(alias)`).
    public func `as`(_ alias: String?) -> DataSourceProtocol { DataSourceAs(database: database, alias: alias) }
}
