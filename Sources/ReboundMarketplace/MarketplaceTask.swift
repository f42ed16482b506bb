/// A task on the marketplace: something a person does for a small reward.
struct MarketplaceTask: Sendable, Hashable {
    var id: Int
    var title: String
    /// The reward in thousandths of the currency unit, so that balances add up exactly.
    var rewardMillis: Int
    var isOpen: Bool
    var tags: [String]

    /// The task as the API sends it: `{"id", "title", "reward", "status", "tags"}`.
    var payload: Payload {
        Payload(
            id: id,
            title: title,
            reward: Double(rewardMillis) / 1000,
            status: isOpen ? "open" : "closed",
            tags: tags
        )
    }

    struct Payload: Encodable {
        var id: Int
        var title: String
        var reward: Double
        var status: String
        var tags: [String]
    }

    /// The tasks every run starts with: seven, one of them closed so that answering it is a conflict.
    static let seeded: [MarketplaceTask] = [
        task(1, "Is there a cat in this photo?", rewardMillis: 50, tags: ["image", "classification"]),
        task(2, "Transcribe a shop receipt", rewardMillis: 120, tags: ["ocr", "text"]),
        task(3, "Rate how well a search result fits its query", rewardMillis: 30, tags: ["search", "relevance"]),
        task(4, "Outline the road signs in a street photo", rewardMillis: 200, tags: ["image", "segmentation"]),
        task(
            5, "Check that a shop is at its listed address", rewardMillis: 80, isOpen: false, tags: ["maps", "field"]),
        task(6, "Translate a short product description", rewardMillis: 100, tags: ["text", "translation"]),
        task(7, "Decide whether a comment is polite", rewardMillis: 40, tags: ["text", "moderation"]),
    ]

    private static func task(
        _ id: Int,
        _ title: String,
        rewardMillis: Int,
        isOpen: Bool = true,
        tags: [String]
    ) -> MarketplaceTask {
        MarketplaceTask(id: id, title: title, rewardMillis: rewardMillis, isOpen: isOpen, tags: tags)
    }
}
