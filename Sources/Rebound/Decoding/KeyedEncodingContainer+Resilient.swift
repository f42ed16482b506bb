extension KeyedEncodingContainer {
    /// Leaves out the key of a `nil` resilient optional, as a plain optional property does, so that
    /// a model encodes the same with or without the wrapper.
    public mutating func encode<Wrapped: Encodable>(_ value: Resilient<Wrapped?>, forKey key: Key) throws {
        try encodeIfPresent(value.wrappedValue, forKey: key)
    }
}
