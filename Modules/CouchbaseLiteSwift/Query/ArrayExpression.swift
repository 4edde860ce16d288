/// Quantified expressions over arrays: ANY, EVERY, ANY AND EVERY.
///
/// ```swift
/// let likesSwimming = ArrayExpression.any(ArrayExpression.variable("like"))
///     .in(Expression.property("likes"))
///     .satisfies(ArrayExpression.variable("like").equalTo(Expression.string("swimming")))
/// ```
public enum ArrayExpression {
    /// True when at least one element satisfies the condition.
    public static func any(_ variable: VariableExpressionProtocol) -> ArrayExpressionIn {
        ArrayExpressionIn(quantifier: "ANY", variable: variable)
    }
    /// True when every element satisfies the condition (also for an empty array).
    public static func every(_ variable: VariableExpressionProtocol) -> ArrayExpressionIn {
        ArrayExpressionIn(quantifier: "EVERY", variable: variable)
    }
    /// True when the array is not empty and every element satisfies the condition.
    public static func anyAndEvery(_ variable: VariableExpressionProtocol) -> ArrayExpressionIn {
        ArrayExpressionIn(quantifier: "ANY AND EVERY", variable: variable)
    }
    /// The variable that stands for each element (a key path after its name reaches into it).
    public static func variable(_ name: String) -> VariableExpressionProtocol { VariableExpression(name: name) }
}

/// A variable of an array expression.
public protocol VariableExpressionProtocol: ExpressionProtocol {}

struct VariableExpression: VariableExpressionProtocol {
    let name: String
    var node: QueryNode { .array([.string("?" + name)]) }
}

/// The `IN` part of an array expression.
public struct ArrayExpressionIn: Sendable {
    let quantifier: String
    let variable: VariableExpressionProtocol

    /// The array the variable ranges over.
    public func `in`(_ expression: ExpressionProtocol) -> ArrayExpressionSatisfies {
        ArrayExpressionSatisfies(quantifier: quantifier, variable: variable, array: expression)
    }
}

/// The `SATISFIES` part of an array expression.
public struct ArrayExpressionSatisfies: Sendable {
    let quantifier: String
    let variable: VariableExpressionProtocol
    let array: ExpressionProtocol

    /// The condition each element is tested with.
    public func satisfies(_ expression: ExpressionProtocol) -> ExpressionProtocol {
        let name = (variable as? VariableExpression)?.name ?? ""
        // The variable's name alone (a key path inside it is for the condition, not the binding).
        let bound = String(name.prefix { $0 != "." && $0 != "[" })
        return QueryExpression(.operation(quantifier, .string(bound), array.queryNode, expression.queryNode))
    }
}
