// The sections of the Couchbase Lite 2.0 Swift guide whose API does not exist here yet. Each
// gets its snippets, written as the guide writes them, in this target when its issue lands —
// not before, so nothing here is a stub that passes without testing anything.
//
// Query (QueryBuilder builds queries today but nothing executes them):
//   query-index (2.0 `IndexBuilder.valueIndex(items:)` and `Index.valueIndex(withItems:)`),
//   query-select-meta, query-select-all, query-where, query-collection-operator-contains,
//   query-collection-operator-in, query-like-operator, query-like-operator-wildcard-match,
//   query-like-operator-wildcard-character-match, query-regex-operator, query-join,
//   query-groupby, query-orderby, and the query part of getting-started
// Live queries: live-query, stop-live-query
// Replication: the replication section's inline example, basic-authentication,
//   session-authentication, replication-status, replication-custom-header,
//   replication-error-handling, and the replicator part of getting-started
// Conflicts (2.0: automatic resolution; 2.6+: custom conflict resolvers)
// Database replicas: database-replica (`DatabaseEndpoint`)
// Certificate pinning: certificate-pinning
