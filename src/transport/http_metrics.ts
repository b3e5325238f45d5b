/**
 * Prometheus text metrics for HTTP mode (`GET /metrics` when
 * `MCP_HTTP__METRICS=true`): requests by JSON-RPC method and outcome, a tool
 * latency histogram, refusals by code, worker restarts. Labels hold only
 * names the server itself defines (its methods, its tools, its codes); any
 * other method a client sends is counted as `other`, so a client cannot
 * grow the label set.
 *
 * @module
 */

/** The upper bounds of the tool latency histogram, in seconds. */
export const LATENCY_BUCKETS: readonly number[] = [
  0.005,
  0.01,
  0.025,
  0.05,
  0.1,
  0.25,
  0.5,
  1,
  2.5,
  5,
  10,
  30,
];

/** What a request adds to the counters. */
export interface CountedRequest {
  readonly method?: string;
  readonly tool?: string;
  readonly outcome: string;
  readonly errorCode?: string | number;
  readonly durationMs: number;
}

/** Counters and a histogram, rendered in the Prometheus text exposition format. */
export class HttpMetrics {
  readonly #methods: ReadonlySet<string>;
  readonly #tools: ReadonlySet<string>;
  readonly #refusalCodes: ReadonlySet<string>;
  readonly #workerRestarts: () => number;
  /** Requests by method label, then by outcome label: no label string built per request. */
  readonly #requests = new Map<string, Map<string, number>>();
  readonly #refusals = new Map<string, number>();
  /** Per tool: the count of each bucket alone (not cumulative; render adds them up). */
  readonly #latency = new Map<string, { buckets: number[]; sum: number; count: number }>();
  #saturated = 0;

  /**
   * `methods`, `tools` and `refusalCodes` are the label values allowed
   * (anything else is `other`); `workerRestarts` reads the sandbox's count.
   */
  constructor(options: {
    methods: readonly string[];
    tools: readonly string[];
    refusalCodes: readonly string[];
    workerRestarts: () => number;
  }) {
    this.#methods = new Set(options.methods);
    this.#tools = new Set(options.tools);
    this.#refusalCodes = new Set(options.refusalCodes);
    this.#workerRestarts = options.workerRestarts;
  }

  /** Counts one answered request (and its tool latency, for a `tools/call`). */
  countRequest(request: CountedRequest): void {
    const method = request.method === undefined
      ? "none"
      : this.#methods.has(request.method)
      ? request.method
      : "other";
    const outcome = /^[a-z_]{1,32}$/.test(request.outcome) ? request.outcome : "other";
    let byOutcome = this.#requests.get(method);
    if (byOutcome === undefined) this.#requests.set(method, byOutcome = new Map());
    byOutcome.set(outcome, (byOutcome.get(outcome) ?? 0) + 1);
    if (request.method === "tools/call" && request.tool !== undefined) {
      const tool = this.#tools.has(request.tool) ? request.tool : "other";
      let series = this.#latency.get(tool);
      if (series === undefined) {
        series = { buckets: LATENCY_BUCKETS.map(() => 0), sum: 0, count: 0 };
        this.#latency.set(tool, series);
      }
      const seconds = request.durationMs / 1000;
      let bucket = 0;
      while (bucket < LATENCY_BUCKETS.length && seconds > LATENCY_BUCKETS[bucket]) bucket++;
      if (bucket < LATENCY_BUCKETS.length) series.buckets[bucket]++;
      series.sum += seconds;
      series.count++;
    }
  }

  /** Counts a tool refusal by its code (`not_found`, `denied`, …). */
  countRefusal(code: string): void {
    bump(this.#refusals, `code="${this.#refusalCodes.has(code) ? code : "other"}"`);
  }

  /** Counts a call refused at the concurrency cap. */
  countSaturated(): void {
    this.#saturated++;
  }

  /** The exposition text. */
  render(): string {
    const lines: string[] = [];
    const family = (name: string, type: string, help: string) =>
      lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
    family(
      "devserver_http_requests_total",
      "counter",
      "HTTP requests by JSON-RPC method and outcome.",
    );
    const requests: [string, number][] = [];
    for (const [method, byOutcome] of this.#requests) {
      for (const [outcome, n] of byOutcome) {
        requests.push([`method="${method}",outcome="${outcome}"`, n]);
      }
    }
    for (const [labels, n] of requests.sort()) {
      lines.push(`devserver_http_requests_total{${labels}} ${n}`);
    }
    family("devserver_tool_call_duration_seconds", "histogram", "Tool call latency over HTTP.");
    for (const [tool, series] of [...this.#latency].sort()) {
      let cumulative = 0;
      LATENCY_BUCKETS.forEach((bound, i) => {
        cumulative += series.buckets[i];
        lines.push(
          `devserver_tool_call_duration_seconds_bucket{tool="${tool}",le="${bound}"} ${cumulative}`,
        );
      });
      lines.push(
        `devserver_tool_call_duration_seconds_bucket{tool="${tool}",le="+Inf"} ${series.count}`,
        `devserver_tool_call_duration_seconds_sum{tool="${tool}"} ${series.sum}`,
        `devserver_tool_call_duration_seconds_count{tool="${tool}"} ${series.count}`,
      );
    }
    family(
      "devserver_tool_refusals_total",
      "counter",
      "Tool calls answered with a refusal, by code.",
    );
    for (const [labels, n] of [...this.#refusals].sort()) {
      lines.push(`devserver_tool_refusals_total{${labels}} ${n}`);
    }
    family(
      "devserver_http_saturated_total",
      "counter",
      "Tool calls refused 503 at the concurrency cap.",
    );
    lines.push(`devserver_http_saturated_total ${this.#saturated}`);
    family(
      "devserver_worker_restarts_total",
      "counter",
      "Tool workers abandoned or crashed and replaced.",
    );
    lines.push(`devserver_worker_restarts_total ${this.#workerRestarts()}`);
    return lines.join("\n") + "\n";
  }
}

function bump(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}
