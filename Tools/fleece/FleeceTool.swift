import ArgumentParser

@main
struct FleeceTool: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "fleece", abstract: "Fleece ⇄ JSON.")
}
