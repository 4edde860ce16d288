/// A fixture file or case the tests expected but did not find.
struct MissingFixture: Error, CustomStringConvertible {
    let description: String
}
