/// A typed value that travels with an error for code that knows to look for it.
///
/// Context is text for people reading logs; an attachment is a value for code, such as the
/// attempt history the recovery pipeline attaches to a request's final error. Attachments are not
/// part of the chain's identity or of its JSON.
public protocol ErrorAttachment: Sendable {}

extension LayerError {
    /// The first attachment of type `Attachment`, if there is one.
    public func attachment<Attachment: ErrorAttachment>(_ type: Attachment.Type) -> Attachment? {
        for attachment in attachments {
            if let match = attachment as? Attachment { return match }
        }
        return nil
    }
}

extension Error {
    /// The first attachment of type `Attachment` on this error or any cause below it.
    public func attachment<Attachment: ErrorAttachment>(_ type: Attachment.Type) -> Attachment? {
        for error in causalChain {
            if let layered = error as? any AttachmentCarrying, let match = layered.attachment(type) { return match }
        }
        return nil
    }
}

/// An error that can carry attachments; ``LayerError`` is one.
public protocol AttachmentCarrying {
    /// The first attachment of type `Attachment`, if there is one.
    func attachment<Attachment: ErrorAttachment>(_ type: Attachment.Type) -> Attachment?
}

extension LayerError: AttachmentCarrying {}
