#if OTel
    import Foundation
    import HTTPTypes
    import Rebound
    import ReboundCurl

    /// `GET url` over the real transport: the status and the body as text, or `nil` when nothing answered.
    func get(_ url: String, transport: CurlTransport) async -> (status: Int, body: String)? {
        guard let request = HTTPRequest(url: url) else { return nil }
        guard
            let response = try? await transport.send(
                request, body: nil, options: TransportOptions(connectTimeout: .seconds(2), timeout: .seconds(10)))
        else { return nil }
        return (response.head.status.code, String(decoding: response.body, as: UTF8.self))
    }

    extension HTTPRequest {
        init?(url: String) {
            guard let components = URLComponents(string: url), let scheme = components.scheme,
                let host = components.host
            else { return nil }
            let authority = components.port.map { "\(host):\($0)" } ?? host
            let path = components.percentEncodedPath + (components.percentEncodedQuery.map { "?\($0)" } ?? "")
            self.init(method: .get, scheme: scheme, authority: authority, path: path)
        }
    }

    /// The OTLP receiver of `scripts/otlp-receiver.py`, decoding with PyPI's `opentelemetry-proto`
    /// (installed in `.build-venv` by `scripts/setup.sh --tests`).
    struct OTLPReceiver {
        /// One span, metric data point or log record, as the receiver writes it.
        struct Item: Decodable {
            struct Event: Decodable {
                var name: String
                var attributes: [String: String]
            }

            var signal: String
            var name: String?
            var kind: String?
            var traceId: String?
            var spanId: String?
            var parentSpanId: String?
            var status: String?
            var events: [Event]?
            var unit: String?
            var type: String?
            var count: Int?
            var bounds: [Double]?
            var bucketCounts: [Int]?
            var value: Double?
            var body: String?
            var severity: String?
            var severityNumber: Int?
            var attributes: [String: String]?
            var resource: [String: String]?
            var error: String?
        }

        let server: ExternalServer
        var endpoint: String { "http://127.0.0.1:\(server.port)" }
        private var output: URL { server.directory.appendingPathComponent("received.jsonl") }

        static func start(transport: CurlTransport) async throws -> OTLPReceiver {
            let python = ExternalServer.repository.appendingPathComponent(".build-venv/bin/python").path
            let script = ExternalServer.repository.appendingPathComponent("scripts/otlp-receiver.py").path
            let server = try await ExternalServer.start(
                "otlp-receiver", executable: python,
                arguments: { directory, port in
                    [
                        script, "--port", "\(port)", "--lifetime", "600",
                        "--output", directory.appendingPathComponent("received.jsonl").path,
                    ]
                },
                // Any answer will do: it has no GET routes.
                isReady: { port in await get("http://127.0.0.1:\(port)/", transport: transport) != nil }
            )
            return OTLPReceiver(server: server)
        }

        /// Everything received so far.
        func items() throws -> [Item] {
            guard let data = FileManager.default.contents(atPath: output.path) else { return [] }
            let decoder = JSONDecoder()
            return try data.split(separator: UInt8(ascii: "\n")).map { try decoder.decode(Item.self, from: $0) }
        }

        /// Everything received, once `isComplete` says it is all there, or after 30 seconds.
        func items(until isComplete: ([Item]) -> Bool) async throws -> [Item] {
            let deadline = ContinuousClock.now + .seconds(30)
            while ContinuousClock.now < deadline {
                let received = try items()
                if isComplete(received) { return received }
                try await Task.sleep(for: .milliseconds(100))
            }
            return try items()
        }

        /// The whole output, for a search for secrets.
        func text() -> String {
            FileManager.default.contents(atPath: output.path).map { String(decoding: $0, as: UTF8.self) } ?? ""
        }

        func stop() { server.stop() }
    }

    /// Prometheus itself (Debian's `prometheus`), scraping one target every second.
    struct PrometheusServer {
        struct QueryResult: Decodable {
            struct Data: Decodable { var result: [Sample] }
            struct Sample: Decodable {
                var metric: [String: String]
                var value: [Value]
            }
            enum Value: Decodable {
                case number(Double)
                case text(String)
                init(from decoder: any Decoder) throws {
                    let container = try decoder.singleValueContainer()
                    if let number = try? container.decode(Double.self) {
                        self = .number(number)
                    } else {
                        self = .text(try container.decode(String.self))
                    }
                }
            }
            var status: String
            var data: Data
        }

        let server: ExternalServer
        let transport: CurlTransport

        static func start(scraping target: String, transport: CurlTransport) async throws -> PrometheusServer {
            let server = try await ExternalServer.start(
                "prometheus", executable: "/usr/bin/prometheus",
                arguments: { directory, port in
                    let configuration = directory.appendingPathComponent("prometheus.yml")
                    try? """
                    global: {scrape_interval: 1s, scrape_timeout: 1s}
                    scrape_configs:
                      - job_name: rebound
                        static_configs: [{targets: ["\(target)"]}]
                    """.write(to: configuration, atomically: true, encoding: .utf8)
                    return [
                        "--config.file=\(configuration.path)",
                        "--storage.tsdb.path=\(directory.appendingPathComponent("data").path)",
                        "--web.listen-address=127.0.0.1:\(port)",
                    ]
                },
                isReady: { port in await get("http://127.0.0.1:\(port)/-/ready", transport: transport)?.status == 200 }
            )
            return PrometheusServer(server: server, transport: transport)
        }

        /// The samples of an instant query.
        func query(_ expression: String) async throws -> [QueryResult.Sample] {
            var components = URLComponents()
            components.queryItems = [URLQueryItem(name: "query", value: expression)]
            let query = (components.percentEncodedQuery ?? "").replacingOccurrences(of: "+", with: "%2B")
            guard let answer = await get("http://127.0.0.1:\(server.port)/api/v1/query?\(query)", transport: transport)
            else { return [] }
            return try JSONDecoder().decode(QueryResult.self, from: Data(answer.body.utf8)).data.result
        }

        /// The samples of `expression`, once `isComplete` says they are all there, or after 60 seconds.
        func query(
            _ expression: String,
            until isComplete: ([QueryResult.Sample]) -> Bool
        ) async throws -> [QueryResult.Sample] {
            let deadline = ContinuousClock.now + .seconds(60)
            while ContinuousClock.now < deadline {
                let samples = try await query(expression)
                if isComplete(samples) { return samples }
                try await Task.sleep(for: .milliseconds(250))
            }
            return try await query(expression)
        }

        func stop() { server.stop() }
    }

    extension PrometheusServer.QueryResult.Sample {
        /// The sample's value as a number.
        var number: Double? {
            guard value.count == 2, case .text(let text) = value[1] else { return nil }
            return Double(text)
        }
    }
#endif
