/// Functions usable in queries: aggregates, math and strings.
///
/// ```swift
/// QueryBuilder.select(SelectResult.expression(Function.count(Expression.all())))
/// ```
public enum Function {
    private static func call(_ name: String, _ arguments: ExpressionProtocol...) -> ExpressionProtocol {
        QueryExpression(.operation(name + "()", operands: arguments.map(\.queryNode)))
    }

    // MARK: Aggregates

    /// The average of the numbers in a group.
    public static func avg(_ expression: ExpressionProtocol) -> ExpressionProtocol { call("AVG", expression) }
    /// How many values of the group are neither null nor missing (`Expression.all()`: rows).
    public static func count(_ expression: ExpressionProtocol) -> ExpressionProtocol { call("COUNT", expression) }
    /// The smallest value of the group.
    public static func min(_ expression: ExpressionProtocol) -> ExpressionProtocol { call("MIN", expression) }
    /// The largest value of the group.
    public static func max(_ expression: ExpressionProtocol) -> ExpressionProtocol { call("MAX", expression) }
    /// The sum of the numbers in the group.
    public static func sum(_ expression: ExpressionProtocol) -> ExpressionProtocol { call("SUM", expression) }

    // MARK: Math

    /// The absolute value.
    public static func abs(_ expression: ExpressionProtocol) -> ExpressionProtocol { call("ABS", expression) }
    /// The arc cosine, in radians.
    public static func acos(_ expression: ExpressionProtocol) -> ExpressionProtocol { call("ACOS", expression) }
    /// The arc sine, in radians.
    public static func asin(_ expression: ExpressionProtocol) -> ExpressionProtocol { call("ASIN", expression) }
    /// The arc tangent, in radians.
    public static func atan(_ expression: ExpressionProtocol) -> ExpressionProtocol { call("ATAN", expression) }
    /// The arc tangent of y/x, in radians, using both signs for the quadrant.
    public static func atan2(y: ExpressionProtocol, x: ExpressionProtocol) -> ExpressionProtocol {
        // N1QL's ATAN2(a, b) is the arctangent of b/a (Query-12).
        call("ATAN2", x, y)
    }
    /// The smallest integer not less than the number.
    public static func ceil(_ expression: ExpressionProtocol) -> ExpressionProtocol { call("CEIL", expression) }
    /// The cosine of an angle in radians.
    public static func cos(_ expression: ExpressionProtocol) -> ExpressionProtocol { call("COS", expression) }
    /// Radians to degrees.
    public static func degrees(_ expression: ExpressionProtocol) -> ExpressionProtocol { call("DEGREES", expression) }
    /// Euler's number.
    public static func e() -> ExpressionProtocol { call("E") }
    /// e raised to the number.
    public static func exp(_ expression: ExpressionProtocol) -> ExpressionProtocol { call("EXP", expression) }
    /// The largest integer not greater than the number.
    public static func floor(_ expression: ExpressionProtocol) -> ExpressionProtocol { call("FLOOR", expression) }
    /// The natural logarithm.
    public static func ln(_ expression: ExpressionProtocol) -> ExpressionProtocol { call("LN", expression) }
    /// The base-10 logarithm.
    public static func log(_ expression: ExpressionProtocol) -> ExpressionProtocol { call("LOG", expression) }
    /// Pi.
    public static func pi() -> ExpressionProtocol { call("PI") }
    /// `base` raised to `exponent`.
    public static func power(base: ExpressionProtocol, exponent: ExpressionProtocol) -> ExpressionProtocol {
        call("POWER", base, exponent)
    }
    /// Degrees to radians.
    public static func radians(_ expression: ExpressionProtocol) -> ExpressionProtocol { call("RADIANS", expression) }
    /// The number rounded to an integer.
    public static func round(_ expression: ExpressionProtocol) -> ExpressionProtocol { call("ROUND", expression) }
    /// The number rounded to `digits` decimal places.
    public static func round(_ expression: ExpressionProtocol, digits: ExpressionProtocol) -> ExpressionProtocol {
        call("ROUND", expression, digits)
    }
    /// -1, 0 or 1 by the number's sign.
    public static func sign(_ expression: ExpressionProtocol) -> ExpressionProtocol { call("SIGN", expression) }
    /// The sine of an angle in radians.
    public static func sin(_ expression: ExpressionProtocol) -> ExpressionProtocol { call("SIN", expression) }
    /// The square root.
    public static func sqrt(_ expression: ExpressionProtocol) -> ExpressionProtocol { call("SQRT", expression) }
    /// The tangent of an angle in radians.
    public static func tan(_ expression: ExpressionProtocol) -> ExpressionProtocol { call("TAN", expression) }
    /// The number truncated to an integer.
    public static func trunc(_ expression: ExpressionProtocol) -> ExpressionProtocol { call("TRUNC", expression) }
    /// The number truncated to `digits` decimal places.
    public static func trunc(_ expression: ExpressionProtocol, digits: ExpressionProtocol) -> ExpressionProtocol {
        call("TRUNC", expression, digits)
    }

    // MARK: Strings

    /// Whether the string contains `substring` (case-sensitive).
    public static func contains(_ expression: ExpressionProtocol, substring: ExpressionProtocol) -> ExpressionProtocol {
        call("CONTAINS", expression, substring)
    }
    /// The string's length in characters.
    public static func length(_ expression: ExpressionProtocol) -> ExpressionProtocol { call("LENGTH", expression) }
    /// The string in lower case.
    public static func lower(_ expression: ExpressionProtocol) -> ExpressionProtocol { call("LOWER", expression) }
    /// The string without leading white space.
    public static func ltrim(_ expression: ExpressionProtocol) -> ExpressionProtocol { call("LTRIM", expression) }
    /// The string without trailing white space.
    public static func rtrim(_ expression: ExpressionProtocol) -> ExpressionProtocol { call("RTRIM", expression) }
    /// The string without leading or trailing white space.
    public static func trim(_ expression: ExpressionProtocol) -> ExpressionProtocol { call("TRIM", expression) }
    /// The string in upper case.
    public static func upper(_ expression: ExpressionProtocol) -> ExpressionProtocol { call("UPPER", expression) }

    // MARK: Dates (2.5)

    /// Milliseconds since 1970 to an ISO-8601 string in local time.
    public static func millisToString(_ expression: ExpressionProtocol) -> ExpressionProtocol {
        call("MILLIS_TO_STR", expression)
    }
    /// Milliseconds since 1970 to an ISO-8601 string in UTC.
    public static func millisToUTC(_ expression: ExpressionProtocol) -> ExpressionProtocol {
        call("MILLIS_TO_UTC", expression)
    }
    /// An ISO-8601 string to milliseconds since 1970.
    public static func stringToMillis(_ expression: ExpressionProtocol) -> ExpressionProtocol {
        call("STR_TO_MILLIS", expression)
    }
    /// An ISO-8601 string to the same instant as a UTC string.
    public static func stringToUTC(_ expression: ExpressionProtocol) -> ExpressionProtocol {
        call("STR_TO_UTC", expression)
    }
}

/// Functions on array values.
public enum ArrayFunction {
    /// Whether the array contains `value`.
    public static func contains(_ expression: ExpressionProtocol, value: ExpressionProtocol) -> ExpressionProtocol {
        QueryExpression(.operation("ARRAY_CONTAINS()", expression.queryNode, value.queryNode))
    }
    /// The array's length.
    public static func length(_ expression: ExpressionProtocol) -> ExpressionProtocol {
        QueryExpression(.operation("ARRAY_LENGTH()", expression.queryNode))
    }
}
