import CouchbaseLiteSwift
import Foundation
import Testing
import TestSupport

/// The guide's "Query" and "Indexing" chapters, live queries included, on the travel sample with
/// both engines. Each snippet is checked against rows computed here from the fixture files with
/// Foundation alone, and the same query written as JSON (`createQuery(json:)`) and as SQL++
/// (`createQuery(_:)`) must give the builder's rows.
///
/// The data: the guide's `type` ("hotel", "landmark", …) is the one `TravelSample` adds from each
/// document's `collection`. Where the guide names values the fixture does not have, a test saves
/// the documents the guide's text describes before running the snippet (its landmarks named
/// "Royal Engineers Museum", "engine", …; users named "Armani"); where that would not test the
/// query, the snippet names fixture data instead and says so (`SAN` for the join's `RIX`, `name`
/// for the ordering's `title`).
///
/// The snippets are the guide's (couchbase-lite-ios `Swift/Tests/SampleCodeTest.swift` as the
/// 2.0 guide last included it, commit c0d5bdbf; the CONTAINS and IN sections from the guide's
/// commit 4fa643df). Their `print` is this file's: it collects the lines for the test.
@Suite(.ownThreads) struct QueryExamples {
    // MARK: Indexing

    @Test(arguments: StorageEngineKind.allCases)
    func valueIndexOnTypeAndNameServesTheTypeQuery(engine: StorageEngineKind) throws {
        try withTravelSample(engine) { database in
            // tag::query-index[]
            let index = IndexBuilder.valueIndex(items:
                ValueIndexItem.expression(Expression.property("type")),
                ValueIndexItem.expression(Expression.property("name")))
            try database.createIndex(index, withName: "TypeNameIndex")
            // end::query-index[]

            #expect(database.indexes == ["TypeNameIndex"])
            let hotels = QueryBuilder.select(SelectResult.expression(Meta.id)).from(DataSource.database(database))
                .where(Expression.property("type").equalTo(Expression.string("hotel")))
            #expect(try hotels.explain().contains("TypeNameIndex"))
            let expected = try Fixture.documents().filter { $0.string("type") == "hotel" }.map(\.id)
            #expect(try hotels.execute().map { $0.string(forKey: "id") ?? "" }.sorted() == expected.sorted())
            // The 2.0 spelling makes the same index.
            try database.createIndex(Index.valueIndex(withItems: [ValueIndexItem.property("type")]), withName: "TypeIndex")
            #expect(Set(database.indexes) == ["TypeNameIndex", "TypeIndex"])
        }
    }

    // MARK: SELECT

    @Test(arguments: StorageEngineKind.allCases)
    func selectMetaReturnsEveryDocumentsIDTypeAndName(engine: StorageEngineKind) throws {
        try withTravelSample(engine) { database in
            let printed = try printing {
                // tag::query-select-meta[]
                let query = QueryBuilder
                    .select(
                        SelectResult.expression(Meta.id),
                        SelectResult.property("type"),
                        SelectResult.property("name")
                    )
                    .from(DataSource.database(database))

                do {
                    for result in try query.execute() {
                        print("document id :: \(result.string(forKey: "id")!)")
                        // Routes and airports have no name (in the real travel-sample too):
                        // the guide's `result.string(forKey: "name")!` would crash on them.
                        print("document name :: \(result.string(forKey: "name") ?? "-")")
                    }
                } catch {
                    print(error)
                }
                // end::query-select-meta[]
                try expectSameRows(query, database,
                                   json: #"{"WHAT": [["._id"], [".type"], [".name"]]}"#,
                                   sql: "SELECT META().id, type, name FROM _", ordered: false)
            }

            let documents = try Fixture.documents()
            var expected: [String] = []
            for document in documents {
                expected.append("document id :: \(document.id)")
                expected.append("document name :: \(document.string("name") ?? "-")")
            }
            #expect(printed.count == 2 * TravelSample.documentCount)
            #expect(pairs(printed) == pairs(expected))
        }
    }

    @Test(.serialized, arguments: StorageEngineKind.allCases)
    func selectAllEmbedsEachDocumentAndLiveQueryReportsChangesUntilStopped(engine: StorageEngineKind) throws {
        try withTravelSample(engine) { database in
            // tag::query-select-all[]
            let query = QueryBuilder
                .select(SelectResult.all())
                .from(DataSource.database(database))
            // end::query-select-all[]

            // Each row is one dictionary, under the database's name.
            let rows = try query.execute().allResults()
            #expect(rows.count == TravelSample.documentCount)
            #expect(rows.allSatisfy { $0.keys == ["travel-sample"] })
            let returned = rows.map { canonical($0.dictionary(forKey: "travel-sample")) }.sorted()
            let documents = try Fixture.documents().map { canonical($0.properties) }.sorted()
            let extra = Set(returned).subtracting(documents).sorted().first ?? "", lacking = Set(documents).subtracting(returned).sorted().first ?? ""
            #expect(returned == documents, "first difference: \(extra) vs \(lacking)")
            try expectSameRows(query, database, json: #"{"WHAT": [["."]]}"#, sql: "SELECT * FROM _", ordered: false)

            // The guide's listener prints each row's keys, on the database's listener queue: its
            // lines are collected by `Printed.elsewhere` (so this test runs one engine at a time).
            let printed = Printed.elsewhere
            let before = printed.lines.count
            // tag::live-query[]
            let token = query.addChangeListener { (change) in
                for result in change.results! { // <1>
                    print(result.keys)
                    /* Update UI */
                }
            }
            // end::live-query[]

            // The first results arrive without a commit; a commit brings the new rows.
            #expect(printed.wait(forCount: before + TravelSample.documentCount))
            try database.saveDocument(MutableDocument(id: "live-1").setString("landmark", forKey: "type"))
            let afterCommit = before + 2 * TravelSample.documentCount + 1
            #expect(printed.wait(forCount: afterCommit))
            #expect(printed.lines[before...].allSatisfy { $0 == #"["travel-sample"]"# })

            // tag::stop-live-query[]
            query.removeChangeListener(withToken: token)
            // end::stop-live-query[]

            // Another listener hears the next commit; the removed one prints nothing more.
            let heard = DispatchSemaphore(value: 0)
            let other = query.addChangeListener { change in
                if change.results?.allResults().count == TravelSample.documentCount + 2 { heard.signal() }
            }
            defer { query.removeChangeListener(withToken: other) }
            try database.saveDocument(MutableDocument(id: "live-2").setString("landmark", forKey: "type"))
            #expect(waitFor(heard, seconds: 30))
            #expect(printed.lines.count == afterCommit)
        }
    }

    // MARK: WHERE

    @Test(arguments: StorageEngineKind.allCases)
    func whereTypeIsHotelReturnsTenHotels(engine: StorageEngineKind) throws {
        try withTravelSample(engine) { database in
            let printed = try printing {
                // tag::query-where[]
                let query = QueryBuilder
                    .select(SelectResult.all())
                    .from(DataSource.database(database))
                    .where(Expression.property("type").equalTo(Expression.string("hotel")))
                    .limit(Expression.int(10))

                do {
                    for result in try query.execute() {
                        if let dict = result.dictionary(forKey: "travel-sample") {
                            print("document name :: \(dict.string(forKey: "name")!)")
                        }
                    }
                } catch {
                    print(error)
                }
                // end::query-where[]
                let rows = try query.execute().allResults()
                let hotels = try Fixture.documents().filter { $0.string("type") == "hotel" }.map { canonical($0.properties) }
                #expect(rows.count == 10)
                #expect(Set(rows.map { canonical($0.dictionary(forKey: "travel-sample")) }).isSubset(of: Set(hotels)))
                try expectSameRows(query, database,
                                   json: #"{"WHAT": [["."]], "WHERE": ["=", [".type"], "hotel"], "LIMIT": 10}"#,
                                   sql: "SELECT * FROM _ WHERE type = 'hotel' LIMIT 10", ordered: true)
            }
            let names = Set(try Fixture.documents().filter { $0.string("type") == "hotel" }.compactMap { $0.string("name") })
            #expect(printed.count == 10)
            #expect(printed.allSatisfy { $0.hasPrefix("document name :: ") && names.contains(String($0.dropFirst(17))) })
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func arrayContainsFindsTheHotelsArmaniLangworthLikes(engine: StorageEngineKind) throws {
        try withTravelSample(engine) { database in
            let printed = try printing {
                // tag::query-collection-operator-contains[]
                let query = QueryBuilder
                    .select(
                        SelectResult.expression(Meta.id),
                        SelectResult.property("name"),
                        SelectResult.property("public_likes")
                    )
                    .from(DataSource.database(database))
                    .where(Expression.property("type").equalTo(Expression.string("hotel"))
                        .and(ArrayFunction.contains(Expression.property("public_likes"), value: Expression.string("Armani Langworth")))
                )

                do {
                     for result in try query.execute() {
                        print("public_likes :: \(result.array(forKey: "public_likes")!.toArray())")
                    }
                }
                // end::query-collection-operator-contains[]
                let expected = try Fixture.documents().filter { document in
                    document.string("type") == "hotel"
                        && (document.properties["public_likes"] as? [Any])?.contains { $0 as? String == "Armani Langworth" } == true
                }
                #expect(!expected.isEmpty)
                #expect(try query.execute().map { $0.string(forKey: "id") ?? "" }.sorted() == expected.map(\.id).sorted())
                #expect(try query.execute().map { canonical($0.toDictionary()) }.sorted()
                        == expected.map { canonical(["id": $0.id, "name": $0.properties["name"] ?? NSNull(),
                                                     "public_likes": $0.properties["public_likes"] ?? NSNull()] as [String: Any]) }.sorted())
                try expectSameRows(query, database,
                                   json: #"{"WHAT": [["._id"], [".name"], [".public_likes"]], "WHERE": ["AND", ["=", [".type"], "hotel"], "#
                                       + #"["ARRAY_CONTAINS()", [".public_likes"], "Armani Langworth"]]}"#,
                                   sql: "SELECT META().id, name, public_likes FROM _ "
                                       + "WHERE type = 'hotel' AND ARRAY_CONTAINS(public_likes, 'Armani Langworth')", ordered: false)
            }
            #expect(printed.count >= 1)
            #expect(printed.allSatisfy { $0.hasPrefix("public_likes :: [") && $0.contains("Armani Langworth") })
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func inFindsTheUsersCalledArmani(engine: StorageEngineKind) throws {
        try withTravelSample(engine) { database in
            // The fixture has no users: these are the ones the guide's text describes.
            let users: [(id: String, properties: [String: Any])] = [
                ("user_1", ["type": "user", "first": "Armani", "last": "Langworth", "username": "alangworth"]),
                ("user_2", ["type": "user", "first": "Jo", "last": "Armani", "username": "jarmani"]),
                ("user_3", ["type": "user", "first": "Sam", "last": "Smith", "username": "Armani"]),
                ("user_4", ["type": "user", "first": "armani", "last": "Armani Langworth", "username": "Armani2"]),
            ]
            try Fixture.save(users, in: database)

            // tag::query-collection-operator-in[]
            let values = [Expression.property("first"), Expression.property("last"), Expression.property("username")]

            QueryBuilder
                .select(SelectResult.all())
                .from(DataSource.database(database))
                .where(Expression.string("Armani").in(values))
            // end::query-collection-operator-in[]

            // The guide builds the query without running it: the same query, run.
            let query = QueryBuilder
                .select(SelectResult.all())
                .from(DataSource.database(database))
                .where(Expression.string("Armani").in(values))
            let expected = (try Fixture.documents() + users).filter { document in
                ["first", "last", "username"].contains { document.string($0) == "Armani" }
            }
            #expect(expected.map(\.id) == ["user_1", "user_2", "user_3"])
            #expect(try query.execute().map { canonical($0.dictionary(forKey: "travel-sample")) }.sorted()
                    == expected.map { canonical($0.properties) }.sorted())
            try expectSameRows(query, database,
                               json: #"{"WHAT": [["."]], "WHERE": ["IN", "Armani", ["[]", [".first"], [".last"], [".username"]]]}"#,
                               sql: "SELECT * FROM _ WHERE 'Armani' IN [first, last, username]", ordered: false)
        }
    }

    // MARK: LIKE and regex

    /// Landmarks named as the guide's text names them, and near misses (other type, longer name).
    private static var guideLandmarks: [(id: String, properties: [String: Any])] { [
        ("guide_1", ["type": "landmark", "country": "United Kingdom", "name": "Royal Engineers Museum"]),
        ("guide_2", ["type": "landmark", "country": "United Kingdom", "name": "royal engineers museum"]),
        ("guide_3", ["type": "landmark", "country": "United Kingdom", "name": "ROYAL ENGINEERS MUSEUM"]),
        ("guide_4", ["type": "hotel", "country": "United Kingdom", "name": "Royal Engineers Museum"]),
        ("guide_5", ["type": "landmark", "country": "United Kingdom", "name": "Royal Engineers Museum Shop"]),
        ("guide_6", ["type": "landmark", "country": "United Kingdom", "name": "Engineers"]),
        ("guide_7", ["type": "landmark", "country": "United Kingdom", "name": "engine"]),
        ("guide_8", ["type": "landmark", "country": "United Kingdom", "name": "english egg"]),
        ("guide_9", ["type": "landmark", "country": "United Kingdom", "name": "England Eagle"]),
        ("guide_10", ["type": "landmark", "country": "United Kingdom", "name": "Engineer"]),
        ("guide_11", ["type": "landmark", "country": "United Kingdom", "name": "engineer"]),
        ("guide_12", ["type": "landmark", "country": "United Kingdom", "name": "Engine"]),
        ("guide_13", ["type": "landmark", "country": "United Kingdom", "name": "Old Engine House"]),
        ("guide_14", ["type": "landmark", "country": "United Kingdom", "name": "Eng"]),
    ] }

    /// The landmarks (fixture and guide) whose name `matches`, as rows of id, country and name.
    private func landmarkRows(where matches: (String) -> Bool) throws -> [String] {
        (try Fixture.documents() + Self.guideLandmarks).filter { document in
            document.string("type") == "landmark" && document.string("name").map(matches) == true
        }.map { canonical(["id": $0.id, "country": $0.properties["country"] ?? NSNull(),
                       "name": $0.properties["name"] ?? NSNull()] as [String: Any]) }
    }

    private func rowDictionaries(_ query: Query) throws -> [String] {
        try query.execute().map { canonical($0.toDictionary()) }.sorted()
    }

    @Test(arguments: StorageEngineKind.allCases)
    func likeMatchesTheWholeNameIgnoringCase(engine: StorageEngineKind) throws {
        try withTravelSample(engine) { database in
            try Fixture.save(Self.guideLandmarks, in: database)
            let printed = try printing {
                // tag::query-like-operator[]
                let query = QueryBuilder
                    .select(
                        SelectResult.expression(Meta.id),
                        SelectResult.property("country"),
                        SelectResult.property("name")
                    )
                    .from(DataSource.database(database))
                    .where(Expression.property("type").equalTo(Expression.string("landmark"))
                        .and( Expression.property("name").like(Expression.string("Royal engineers museum")))
                    )
                    .limit(Expression.int(10))

                do {
                    for result in try query.execute() {
                        print("name property :: \(result.string(forKey: "name")!)")
                    }
                }
                // end::query-like-operator[]
                let expected = try landmarkRows { like($0, "Royal engineers museum") }
                #expect(expected.count == 3)
                #expect(try rowDictionaries(query) == expected.sorted())
                try expectSameRows(query, database,
                                   json: #"{"WHAT": [["._id"], [".country"], [".name"]], "WHERE": ["AND", ["=", [".type"], "landmark"], "#
                                       + #"["LIKE", [".name"], "Royal engineers museum"]], "LIMIT": 10}"#,
                                   sql: "SELECT META().id, country, name FROM _ "
                                       + "WHERE type = 'landmark' AND name LIKE 'Royal engineers museum' LIMIT 10", ordered: false)
            }
            #expect(printed.sorted() == ["name property :: ROYAL ENGINEERS MUSEUM", "name property :: Royal Engineers Museum",
                                         "name property :: royal engineers museum"])
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func likeWithPercentMatchesAnyRun(engine: StorageEngineKind) throws {
        try withTravelSample(engine) { database in
            try Fixture.save(Self.guideLandmarks, in: database)
            // tag::query-like-operator-wildcard-match[]
            let query = QueryBuilder
                .select(
                    SelectResult.expression(Meta.id),
                    SelectResult.property("country"),
                    SelectResult.property("name")
                )
                .from(DataSource.database(database))
                .where(Expression.property("type").equalTo(Expression.string("landmark"))
                    .and(Expression.property("name").like(Expression.string("eng%e%")))
                )
                .limit(Expression.int(10))
            // end::query-like-operator-wildcard-match[]

            let expected = try landmarkRows { like($0, "eng%e%") }
            // "Engineers", "engine", "english egg", "England Eagle", as the guide says, and more.
            #expect(expected.count == 7)
            #expect(try rowDictionaries(query) == expected.sorted())
            try expectSameRows(query, database,
                               json: #"{"WHAT": [["._id"], [".country"], [".name"]], "WHERE": ["AND", ["=", [".type"], "landmark"], "#
                                   + #"["LIKE", [".name"], "eng%e%"]], "LIMIT": 10}"#,
                               sql: "SELECT META().id, country, name FROM _ WHERE type = 'landmark' AND name LIKE 'eng%e%' LIMIT 10",
                               ordered: false)
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func likeWithUnderscoreMatchesOneCharacter(engine: StorageEngineKind) throws {
        try withTravelSample(engine) { database in
            try Fixture.save(Self.guideLandmarks, in: database)
            // tag::query-like-operator-wildcard-character-match[]
            let query = QueryBuilder
                .select(
                    SelectResult.expression(Meta.id),
                    SelectResult.property("country"),
                    SelectResult.property("name")
                )
                .from(DataSource.database(database))
                .where(Expression.property("type").equalTo(Expression.string("landmark"))
                    .and(Expression.property("name").like(Expression.string("eng____r")))
                )
                .limit(Expression.int(10))
            // end::query-like-operator-wildcard-character-match[]

            let expected = try landmarkRows { like($0, "eng____r") }
            // "Engineer" and "engineer", as the guide says.
            #expect(expected.count == 2)
            #expect(try rowDictionaries(query) == expected.sorted())
            try expectSameRows(query, database,
                               json: #"{"WHAT": [["._id"], [".country"], [".name"]], "WHERE": ["AND", ["=", [".type"], "landmark"], "#
                                   + #"["LIKE", [".name"], "eng____r"]], "LIMIT": 10}"#,
                               sql: "SELECT META().id, country, name FROM _ WHERE type = 'landmark' AND name LIKE 'eng____r' LIMIT 10",
                               ordered: false)
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func regexSectionsQueryAndTheRegexItDescribes(engine: StorageEngineKind) throws {
        try withTravelSample(engine) { database in
            try Fixture.save(Self.guideLandmarks, in: database)
            // tag::query-regex-operator[]
            let query = QueryBuilder
                .select(
                    SelectResult.expression(Meta.id),
                    SelectResult.property("name")
                )
                .from(DataSource.database(database))
                .where(Expression.property("type").equalTo(Expression.string("landmark"))
                    .and(Expression.property("name").like(Expression.string("\\bEng.*e\\b")))
                )
                .limit(Expression.int(10))
            // end::query-regex-operator[]

            // The guide's snippet uses `like`, so the pattern is no regex: `\b` is an escaped "b",
            // `.` and `*` are themselves, and no name matches.
            #expect(try query.execute().allResults().isEmpty)
            #expect(try landmarkRows { like($0, "\\bEng.*e\\b") }.isEmpty)
            try expectSameRows(query, database,
                               json: #"{"WHAT": [["._id"], [".name"]], "WHERE": ["AND", ["=", [".type"], "landmark"], "#
                                   + #"["LIKE", [".name"], "\\bEng.*e\\b"]], "LIMIT": 10}"#,
                               sql: #"SELECT META().id, name FROM _ WHERE type = 'landmark' AND name LIKE '\bEng.*e\b' LIMIT 10"#,
                               ordered: false)

            // The section's text describes `regex`: case-sensitive, finding names that contain
            // such a word, as Couchbase Lite 2.8 searches (std::regex_search).
            let regex = QueryBuilder
                .select(SelectResult.expression(Meta.id), SelectResult.property("country"), SelectResult.property("name"))
                .from(DataSource.database(database))
                .where(Expression.property("type").equalTo(Expression.string("landmark"))
                    .and(Expression.property("name").regex(Expression.string("\\bEng.*e\\b"))))
                .limit(Expression.int(10))
            let pattern = try NSRegularExpression(pattern: "\\bEng.*e\\b")
            let expected = try landmarkRows { name in
                pattern.firstMatch(in: name, range: NSRange(name.startIndex..., in: name)) != nil
            }
            #expect(expected.count == 3) // "Engine", "England Eagle" and "Old Engine House"; not "engine" (case)
            #expect(try rowDictionaries(regex) == expected.sorted())
            try expectSameRows(regex, database,
                               json: #"{"WHAT": [["._id"], [".country"], [".name"]], "WHERE": ["AND", ["=", [".type"], "landmark"], "#
                                   + #"["REGEXP_LIKE()", [".name"], "\\bEng.*e\\b"]], "LIMIT": 10}"#,
                               sql: #"SELECT META().id, country, name FROM _ WHERE type = 'landmark' AND REGEXP_LIKE(name, '\bEng.*e\b') LIMIT 10"#,
                               ordered: false)
        }
    }

    // MARK: JOIN, GROUP BY, ORDER BY

    @Test(arguments: StorageEngineKind.allCases)
    func joinPairsEachRouteWithItsAirline(engine: StorageEngineKind) throws {
        try withTravelSample(engine) { sample in
            let database: Database! = sample // the guide's `database` is a `Database!`
            // tag::query-join[]
            // The guide's routes start from RIX (Riga), which this data set has none from: SAN.
            let query = QueryBuilder
                .select(
                    SelectResult.expression(Expression.property("name").from("airline")),
                    SelectResult.expression(Expression.property("callsign").from("airline")),
                    SelectResult.expression(Expression.property("destinationairport").from("route")),
                    SelectResult.expression(Expression.property("stops").from("route")),
                    SelectResult.expression(Expression.property("airline").from("route"))
                )
                .from(
                    DataSource.database(database!).as("airline")
                )
                .join(
                    Join.join(DataSource.database(database!).as("route"))
                        .on(
                            Meta.id.from("airline")
                                .equalTo(Expression.property("airlineid").from("route"))
                    )
                )
                .where(
                    Expression.property("type").from("route").equalTo(Expression.string("route"))
                        .and(Expression.property("type").from("airline").equalTo(Expression.string("airline")))
                        .and(Expression.property("sourceairport").from("route").equalTo(Expression.string("SAN")))
            )
            // end::query-join[]

            let documents = try Fixture.documents()
            let airlines = Dictionary(uniqueKeysWithValues: documents.filter { $0.string("type") == "airline" }.map { ($0.id, $0.properties) })
            let expected = documents.filter { $0.string("type") == "route" && $0.string("sourceairport") == "SAN" }
                .compactMap { route -> String? in
                    guard let id = route.string("airlineid"), let airline = airlines[id] else { return nil }
                    return canonical(["name": airline["name"] ?? NSNull(), "callsign": airline["callsign"] ?? NSNull(),
                                      "destinationairport": route.properties["destinationairport"] ?? NSNull(),
                                      "stops": route.properties["stops"] ?? NSNull(), "airline": route.properties["airline"] ?? NSNull()] as [String: Any])
                }
            #expect(expected.count == 30)
            #expect(try rowDictionaries(query) == expected.sorted())
            #expect(Set(try query.execute().compactMap { $0.string(forKey: "name") }).count == 3)
            try expectSameRows(query, sample,
                               json: #"{"WHAT": [[".airline.name"], [".airline.callsign"], [".route.destinationairport"], "#
                                   + #"[".route.stops"], [".route.airline"]], "#
                                   + #""FROM": [{"AS": "airline"}, {"AS": "route", "ON": ["=", [".airline._id"], [".route.airlineid"]]}], "#
                                   + #""WHERE": ["AND", ["AND", ["=", [".route.type"], "route"], ["=", [".airline.type"], "airline"]], "#
                                   + #"["=", [".route.sourceairport"], "SAN"]]}"#,
                               sql: "SELECT airline.name, airline.callsign, route.destinationairport, route.stops, route.airline "
                                   + "FROM _ AS airline JOIN _ AS route ON META(airline).id = route.airlineid "
                                   + "WHERE route.type = 'route' AND airline.type = 'airline' AND route.sourceairport = 'SAN'",
                               ordered: false)
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func groupByCountsHighAirportsPerCountryAndTimezone(engine: StorageEngineKind) throws {
        try withTravelSample(engine) { database in
            let printed = try printing {
                // tag::query-groupby[]
                let query = QueryBuilder
                    .select(
                        SelectResult.expression(Function.count(Expression.all())),
                        SelectResult.property("country"),
                        SelectResult.property("tz"))
                    .from(DataSource.database(database))
                    .where(
                        Expression.property("type").equalTo(Expression.string("airport"))
                            .and(Expression.property("geo.alt").greaterThanOrEqualTo(Expression.int(300)))
                    ).groupBy(
                        Expression.property("country"),
                        Expression.property("tz")
                )

                do {
                    for result in try query.execute() {
                        print("There are \(result.int(forKey: "$1")) airports on the \(result.string(forKey: "tz")!) timezone located in \(result.string(forKey: "country")!) and above 300 ft")
                    }
                }
                // end::query-groupby[]
                try expectSameRows(query, database,
                                   json: #"{"WHAT": [["COUNT()", ["."]], [".country"], [".tz"]], "#
                                       + #""WHERE": ["AND", ["=", [".type"], "airport"], [">=", [".geo.alt"], 300]], "GROUP_BY": [[".country"], [".tz"]]}"#,
                                   sql: "SELECT COUNT(*), country, tz FROM _ WHERE type = 'airport' AND geo.alt >= 300 GROUP BY country, tz",
                                   ordered: false)
            }

            var counts: [String: Int] = [:]
            for airport in try Fixture.documents() where airport.string("type") == "airport" {
                guard let altitude = number((airport.properties["geo"] as? [String: Any])?["alt"]), altitude >= 300,
                      let country = airport.string("country"), let tz = airport.string("tz") else { continue }
                counts["There are %d airports on the \(tz) timezone located in \(country) and above 300 ft", default: 0] += 1
            }
            let expected = counts.map { String(format: $0.key, $0.value) }.sorted()
            // e.g. "There are 3 airports on the Europe/Paris timezone located in France and above 300 ft"
            #expect(expected.count == 8)
            #expect(printed.sorted() == expected)
        }
    }

    @Test(arguments: StorageEngineKind.allCases)
    func orderByNameReturnsTheFirstTenHotels(engine: StorageEngineKind) throws {
        try withTravelSample(engine) { database in
            // tag::query-orderby[]
            // The guide orders hotels by `title`, which this data set's hotels lack: by `name`.
            let query = QueryBuilder
                .select(
                    SelectResult.expression(Meta.id),
                    SelectResult.property("name"))
                .from(DataSource.database(database))
                .where(Expression.property("type").equalTo(Expression.string("hotel")))
                .orderBy(Ordering.property("name").ascending())
                .limit(Expression.int(10))
            // end::query-orderby[]

            let hotels = try Fixture.documents().filter { $0.string("type") == "hotel" }
            let names = hotels.compactMap { $0.string("name") }
                .sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) } // strings order by their UTF-8 bytes
            let rows = try query.execute().allResults()
            #expect(rows.map { $0.string(forKey: "name") ?? "" } == Array(names.prefix(10)))
            let nameByID = Dictionary(uniqueKeysWithValues: hotels.map { ($0.id, $0.string("name")) })
            #expect(rows.allSatisfy { nameByID[$0.string(forKey: "id") ?? ""] == $0.string(forKey: "name") })
            #expect(rows.first?.string(forKey: "name") == "'La Mirande Hotel")
            try expectSameRows(query, database,
                               json: #"{"WHAT": [["._id"], [".name"]], "WHERE": ["=", [".type"], "hotel"], "ORDER_BY": [[".name"]], "LIMIT": 10}"#,
                               sql: "SELECT META().id, name FROM _ WHERE type = 'hotel' ORDER BY name LIMIT 10", ordered: true)
        }
    }
}

// MARK: - Helpers

/// The fixture's documents as Foundation values (with the `type` the sample adds), and saving
/// extra documents into a test's copy.
private enum Fixture {
    struct Document {
        let id: String
        let properties: [String: Any]

        func string(_ key: String) -> String? { properties[key] as? String }
    }

    static func documents() throws -> [Document] {
        try TravelSample.documents().map { Document(id: $0.id, properties: $0.properties) }
    }

    static func save(_ documents: [(id: String, properties: [String: Any])], in database: Database) throws {
        for document in documents {
            try database.saveDocument(MutableDocument(id: document.id, data: document.properties))
        }
    }
}

extension Array where Element == Fixture.Document {
    fileprivate static func + (documents: [Fixture.Document], extra: [(id: String, properties: [String: Any])]) -> [Fixture.Document] {
        documents + extra.map { Fixture.Document(id: $0.id, properties: $0.properties) }
    }
}

/// Expects the builder's `query`, the JSON query `json` and the SQL++ query `sql` to return the
/// same rows (in the same order when `ordered`), with the same columns.
private func expectSameRows(_ query: Query, _ database: Database, json: String, sql: String, ordered: Bool,
                            sourceLocation: SourceLocation = #_sourceLocation) throws {
    func rows(_ query: Query) throws -> [String] {
        let rows = try query.execute().map { canonical($0.keys) + " " + canonical($0.toDictionary()) }
        return ordered ? rows : rows.sorted()
    }
    let expected = try rows(query)
    #expect(try rows(try database.createQuery(json: json)) == expected, "JSON: \(json)", sourceLocation: sourceLocation)
    #expect(try rows(try database.createQuery(sql)) == expected, "SQL++: \(sql)", sourceLocation: sourceLocation)
}

/// A value as canonical JSON-like text: dictionaries with sorted keys, numbers by value
/// (an integral double equals the integer), blobs by their properties.
private func canonical(_ value: Any?) -> String {
    switch value {
    case nil: return "MISSING"
    case is NSNull: return "null"
    case let text as String: return "\"" + text + "\""
    case let blob as Blob: return canonical(blob.properties)
    case let dictionary as DictionaryObject: return canonical(dictionary.toDictionary())
    case let array as ArrayObject: return canonical(array.toArray())
    case let dictionary as [String: Any]:
        return "{" + dictionary.keys.sorted().map { canonical($0) + ":" + canonical(dictionary[$0]) }.joined(separator: ",") + "}"
    case let array as [Any]: return "[" + array.map { canonical($0) }.joined(separator: ",") + "]"
    case let number as NSNumber:
        let type = String(cString: number.objCType)
        if type == "c" || type == "B" { return number.boolValue ? "true" : "false" }
        let double = number.doubleValue
        if double.rounded() == double, abs(double) < 1e15 { return String(Int64(double)) }
        return String(double)
    default: return "\(value!)"
    }
}

/// A JSON number as a double (nil for anything else, booleans included).
private func number(_ value: Any?) -> Double? {
    guard let number = value as? NSNumber else { return nil }
    let type = String(cString: number.objCType)
    return type == "c" || type == "B" ? nil : number.doubleValue
}

/// N1QL's LIKE, written independently of the engine: `%` any run, `_` one character, `\` escapes
/// the next character, the whole string, ignoring case.
private func like(_ string: String, _ pattern: String) -> Bool {
    var regex = "^"
    var escaped = false
    for character in pattern {
        if escaped {
            regex += NSRegularExpression.escapedPattern(for: String(character))
            escaped = false
        } else if character == "\\" {
            escaped = true
        } else if character == "%" {
            regex += ".*"
        } else if character == "_" {
            regex += "."
        } else {
            regex += NSRegularExpression.escapedPattern(for: String(character))
        }
    }
    regex += "$"
    guard let expression = try? NSRegularExpression(pattern: regex, options: [.caseInsensitive, .dotMatchesLineSeparators]) else {
        return false
    }
    return expression.firstMatch(in: string, range: NSRange(string.startIndex..., in: string)) != nil
}

/// Pairs of printed lines (each row prints two), as a sorted list: the rows' order is the engine's.
private func pairs(_ lines: [String]) -> [String] {
    stride(from: 0, to: lines.count - 1, by: 2).map { lines[$0] + "\n" + lines[$0 + 1] }.sorted()
}

// MARK: - What the snippets print

/// Lines printed by the guide's snippets, collected instead of written to the output.
private final class PrintedLines: @unchecked Sendable {
    // @unchecked: `storage` is only touched under `condition`.
    private let condition = NSCondition()
    private var storage: [String] = []

    func append(_ line: String) {
        condition.lock()
        storage.append(line)
        condition.broadcast()
        condition.unlock()
    }

    var lines: [String] {
        condition.lock()
        defer { condition.unlock() }
        return storage
    }

    /// Waits until `count` lines were printed; false if they were not within `seconds`.
    func wait(forCount count: Int, seconds: Double = TestTimeScale.seconds(30)) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date(timeIntervalSinceNow: seconds)
        while storage.count < count {
            if !condition.wait(until: deadline) { return storage.count >= count }
        }
        return true
    }
}

private enum Printed {
    /// The running test's lines.
    @TaskLocal static var current: PrintedLines?
    /// Lines printed outside a test's task: the live query's listener, on its queue.
    static let elsewhere = PrintedLines()
}

/// The guide's `print`, in this file: the line goes to the running test's collector, so a test
/// can check what the guide prints (and 5,050 rows do not flood the output).
private func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
    (Printed.current ?? Printed.elsewhere).append(items.map { "\($0)" }.joined(separator: separator))
}

/// Runs `body` and returns what it printed with the guide's `print`.
private func printing(_ body: () throws -> Void) throws -> [String] {
    let lines = PrintedLines()
    try Printed.$current.withValue(lines) { try body() }
    return lines.lines
}
