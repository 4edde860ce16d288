/// The JSON-level type of a Fleece value.
package enum FleeceType: Sendable, Equatable {
    /// JSON `null`.
    case null
    /// `true` or `false`.
    case boolean
    /// An integer or a floating-point number.
    case number
    /// A UTF-8 string.
    case string
    /// Binary data (base64 in JSON).
    case data
    /// An array.
    case array
    /// A dictionary (JSON object).
    case dictionary
    /// Fleece's internal `undefined` (a deleted entry in a delta).
    case undefined
}
