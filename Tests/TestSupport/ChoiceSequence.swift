/// Turns a property test's generated integers into a deterministic stream of bounded choices,
/// for builders that make a JSON text or a document step by step: the same list always builds
/// the same input, and shrinking the list shrinks the input.
///
/// ```swift
/// var choices = ChoiceSequence([3, 1, 4])
/// let kind = choices.next(5)   // 0..<5
/// ```
package struct ChoiceSequence {
    private let choices: [Int]
    private var position = 0

    /// A stream over `choices`, which repeats (offset by its position) when it runs out.
    package init(_ choices: [Int]) {
        self.choices = choices
    }

    /// The next choice, in `0..<bound`; always 0 for an empty list.
    package mutating func next(_ bound: Int) -> Int {
        defer { position += 1 }
        guard !choices.isEmpty else { return 0 }
        return abs(choices[position % choices.count] &+ position &* 7) % bound
    }
}
