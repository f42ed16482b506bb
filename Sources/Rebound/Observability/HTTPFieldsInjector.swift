import HTTPTypes
import Tracing

/// Writes the trace context an instrument injects (W3C `traceparent` and `tracestate`, or
/// whatever the app's instrument propagates) into a request's header fields, replacing any value
/// an earlier attempt left.
struct HTTPFieldsInjector: Injector {
    func inject(_ value: String, forKey key: String, into fields: inout HTTPFields) {
        guard let name = HTTPField.Name(key) else { return }
        fields[name] = value
    }
}
