#if OTel
    #if canImport(FoundationEssentials)
        import FoundationEssentials
    #else
        import Foundation
    #endif

    /// Checks a collector's base URL.
    enum OTLPEndpoint {
        /// `endpoint` without a final `/`.
        ///
        /// The URL itself is never quoted in an error: its user information would be a secret.
        static func base(_ endpoint: String) throws(OTLPExport.ConfigurationError) -> String {
            guard let components = URLComponents(string: endpoint),
                let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
                let host = components.host, !host.isEmpty
            else {
                throw OTLPExport.ConfigurationError(
                    description:
                        "the OTLP endpoint must be an http or https URL with a host, such as http://127.0.0.1:4318")
            }
            guard components.percentEncodedUser == nil, components.percentEncodedPassword == nil,
                components.percentEncodedQuery == nil, components.percentEncodedFragment == nil
            else {
                throw OTLPExport.ConfigurationError(
                    description:
                        "the OTLP endpoint must not carry user information, a query or a fragment; give credentials as headers"
                )
            }
            return endpoint.hasSuffix("/") ? String(endpoint.dropLast()) : endpoint
        }
    }
#endif
