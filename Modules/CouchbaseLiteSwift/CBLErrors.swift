// The 2.x error codes under their Objective-C names (`CBLErrors.h`), which 2.x Swift code
// compares `(error as NSError).code` with, and the 3.x `CBLError` constants. The numbers are
// LiteCore's; `CouchbaseLiteError.Code` holds the same ones.

/// The `NSError` domain of every Couchbase Lite error.
public let CBLErrorDomain = "CBLErrorDomain"

/// Internal assertion failure.
public let CBLErrorAssertionFailed = 1
/// An unimplemented API call.
public let CBLErrorUnimplemented = 2
/// Unsupported encryption algorithm.
public let CBLErrorUnsupportedEncryption = 3
/// Invalid revision ID syntax.
public let CBLErrorBadRevisionID = 4
/// Document contains corrupted or unreadable data.
public let CBLErrorCorruptRevisionData = 5
/// Database or index is not open.
public let CBLErrorNotOpen = 6
/// Document not found.
public let CBLErrorNotFound = 7
/// Document update conflict.
public let CBLErrorConflict = 8
/// Invalid function parameter or value.
public let CBLErrorInvalidParameter = 9
/// Internal unexpected error.
public let CBLErrorUnexpectedError = 10
/// Database file cannot be opened; it may not exist.
public let CBLErrorCantOpenFile = 11
/// File I/O error.
public let CBLErrorIOError = 12
/// Memory allocation failed.
public let CBLErrorMemoryError = 13
/// File is not writeable.
public let CBLErrorNotWriteable = 14
/// Data is corrupted.
public let CBLErrorCorruptData = 15
/// Database is busy or locked.
public let CBLErrorBusy = 16
/// Must be called inside a transaction.
public let CBLErrorNotInTransaction = 17
/// Database cannot be closed while a transaction is open.
public let CBLErrorTransactionNotClosed = 18
/// Operation not supported in this database.
public let CBLErrorUnsupported = 19
/// File is not a database, or the encryption key is wrong.
public let CBLErrorUnreadableDatabase = 20
/// Database exists but not in the format or storage requested.
public let CBLErrorWrongFormat = 21
/// Encryption or decryption error.
public let CBLErrorCrypto = 22
/// Invalid query.
public let CBLErrorInvalidQuery = 23
/// No such index, or the query needs an index that does not exist.
public let CBLErrorMissingIndex = 24
/// Unknown query parameter name, or parameter number out of range.
public let CBLErrorInvalidQueryParam = 25
/// Unknown error from the remote server.
public let CBLErrorRemoteError = 26
/// Database file format is older than this library can open.
public let CBLErrorDatabaseTooOld = 27
/// Database file format is newer than this library can open.
public let CBLErrorDatabaseTooNew = 28
/// Invalid document ID.
public let CBLErrorBadDocID = 29
/// Database cannot be upgraded.
public let CBLErrorCantUpgradeDatabase = 30

/// Network error codes start here.
public let CBLErrorNetworkBase = 5000
/// DNS lookup failed.
public let CBLErrorDNSFailure = 5001
/// The DNS server does not know the host name.
public let CBLErrorUnknownHost = 5002
/// Socket timeout during an operation.
public let CBLErrorTimeout = 5003
/// The URL is not valid.
public let CBLErrorInvalidURL = 5004
/// Too many HTTP redirects.
public let CBLErrorTooManyRedirects = 5005
/// The TLS handshake failed.
public let CBLErrorTLSHandshakeFailed = 5006
/// The TLS certificate has expired.
public let CBLErrorTLSCertExpired = 5007
/// The certificate is not trusted.
public let CBLErrorTLSCertUntrusted = 5008
/// A required client certificate was not provided.
public let CBLErrorTLSClientCertRequired = 5009
/// The server rejected the client certificate.
public let CBLErrorTLSClientCertRejected = 5010
/// Self-signed certificate, or unknown anchor certificate.
public let CBLErrorTLSCertUnknownRoot = 5011
/// Redirect to an invalid replication endpoint.
public let CBLErrorInvalidRedirect = 5012

/// HTTP status codes start here (10000 + status).
public let CBLErrorHTTPBase = 10000
/// Missing or incorrect user authentication.
public let CBLErrorHTTPAuthRequired = 10401
/// The user may not access the resource.
public let CBLErrorHTTPForbidden = 10403
/// Resource not found.
public let CBLErrorHTTPNotFound = 10404
/// HTTP proxy requires authentication.
public let CBLErrorHTTPProxyAuthRequired = 10407
/// Update conflict.
public let CBLErrorHTTPConflict = 10409
/// Data is too large to upload.
public let CBLErrorHTTPEntityTooLarge = 10413
/// HTCPCP/1.0 error (RFC 2324).
public let CBLErrorHTTPImATeapot = 10418
/// Server error.
public let CBLErrorHTTPInternalServerError = 10500
/// Unimplemented server functionality.
public let CBLErrorHTTPNotImplemented = 10501
/// Service temporarily unavailable.
public let CBLErrorHTTPServiceUnavailable = 10503

/// WebSocket close codes start here (11000 + close code − 1000).
public let CBLErrorWebSocketBase = 11000
/// The peer is going away.
public let CBLErrorWebSocketGoingAway = 11001
/// Protocol violation: invalid framing.
public let CBLErrorWebSocketProtocolError = 11002
/// The message payload cannot be handled.
public let CBLErrorWebSocketDataError = 11003
/// The TCP socket closed unexpectedly.
public let CBLErrorWebSocketAbnormalClose = 11006
/// Unparseable WebSocket message.
public let CBLErrorWebSocketBadMessageFormat = 11007
/// The message violated a policy.
public let CBLErrorWebSocketPolicyError = 11008
/// The message is too large for the peer.
public let CBLErrorWebSocketMessageTooBig = 11009
/// The peer lacks a necessary extension.
public let CBLErrorWebSocketMissingExtension = 11010
/// The request cannot be fulfilled.
public let CBLErrorWebSocketCantFulfill = 11011
