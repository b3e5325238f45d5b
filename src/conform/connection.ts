/**
 * The checker's side of a newline-delimited JSON-RPC stream: writes
 * requests, reads every line the target writes (keeping all of them for the
 * checks that judge the whole run), matches responses to requests by id,
 * and never waits longer than a bound: a target that hangs makes a request
 * time out, and once it has, later requests wait only briefly until it
 * answers again, so a stuck server costs seconds, not minutes.
 *
 * @module
 */

import type { StreamTarget } from "./target.ts";

/** A JSON-RPC id as sent on the wire. */
export type JsonRpcId = string | number;

/** A JSON-RPC error object. */
export interface RpcError {
  code: unknown;
  message?: unknown;
  data?: unknown;
}

/** One message the target wrote, parsed loosely (the checks judge the shape). */
export interface RpcMessage {
  jsonrpc?: unknown;
  id?: unknown;
  method?: unknown;
  params?: unknown;
  result?: Record<string, unknown>;
  error?: RpcError;
}

/** One line the target wrote to its output. */
export interface OutputLine {
  readonly index: number;
  readonly raw: string;
  /** The parsed JSON when the line is a JSON object; `undefined` otherwise. */
  readonly message?: RpcMessage;
}

/** The outcome of one request. */
export type Reply =
  | { readonly kind: "response"; readonly message: RpcMessage }
  | { readonly kind: "timeout"; readonly waitedMs: number }
  | { readonly kind: "closed" };

/** One request and its reply, as the run saw it. */
export interface Exchange {
  readonly method: string;
  /** Whether the request carried the 2026-07-28 envelope. */
  readonly modern: boolean;
  readonly params: unknown;
  readonly reply: Reply;
}

/** Timing of a {@linkcode Connection}. */
export interface ConnectionTimings {
  /** How long a request waits for its answer. */
  readonly requestTimeoutMs: number;
  /** How long a request waits once an earlier one timed out and nothing came since. */
  readonly stalledTimeoutMs: number;
}

/** Defaults: 10 s for an answer, 1 s while the target is stalled. */
export const DEFAULT_TIMINGS: ConnectionTimings = {
  requestTimeoutMs: 10_000,
  stalledTimeoutMs: 1_000,
};

const encoder = new TextEncoder();

/** A JSON-RPC conversation with one target. */
export class Connection {
  readonly target: StreamTarget;
  readonly timings: ConnectionTimings;
  /** Every line the target wrote, in order. */
  readonly lines: OutputLine[] = [];
  /** Every request sent through {@linkcode request}, with its reply. */
  readonly exchanges: Exchange[] = [];
  #writer: WritableStreamDefaultWriter<Uint8Array> | undefined;
  #outputEnded = false;
  #stalled = false;
  #waiters = new Set<() => void>();
  #nextId = 1;
  readonly #reading: Promise<void>;

  constructor(target: StreamTarget, timings: ConnectionTimings = DEFAULT_TIMINGS) {
    this.target = target;
    this.timings = timings;
    this.#writer = target.input.getWriter();
    this.#reading = this.#readLoop();
  }

  /** Whether the target's output has ended (it exited or closed stdout). */
  get outputEnded(): boolean {
    return this.#outputEnded;
  }

  /** A fresh integer id. */
  nextId(): number {
    return this.#nextId++;
  }

  /** Writes `text` as given; false when the input is closed or broken. */
  async writeRaw(text: string): Promise<boolean> {
    if (!this.#writer) return false;
    try {
      await this.#writer.write(encoder.encode(text));
      return true;
    } catch {
      this.#writer = undefined;
      return false;
    }
  }

  /** Writes `message` as one JSON line. */
  send(message: unknown): Promise<boolean> {
    return this.writeRaw(JSON.stringify(message) + "\n");
  }

  /**
   * Sends a request and waits for the response with its id. `modern` marks
   * whether it carries the 2026-07-28 envelope (for the run-wide checks).
   */
  async request(
    method: string,
    params: unknown,
    options: { id?: JsonRpcId; modern?: boolean; jsonrpc?: string } = {},
  ): Promise<Reply> {
    const id = options.id ?? this.nextId();
    const message: Record<string, unknown> = { jsonrpc: options.jsonrpc ?? "2.0", id, method };
    if (params !== undefined) message.params = params;
    const from = this.lines.length;
    const reply = await this.#sendAndWait(message, from, (m) => sameId(m.id, id));
    this.exchanges.push({ method, modern: options.modern ?? false, params, reply });
    return reply;
  }

  /** Writes raw text, then waits for a message matching `predicate` written after it. */
  async rawExchange(text: string, predicate: (m: RpcMessage) => boolean): Promise<Reply> {
    const from = this.lines.length;
    if (!await this.writeRaw(text)) return { kind: "closed" };
    return await this.waitFor(from, predicate);
  }

  /** Waits for a message from line `from` on that matches `predicate`. */
  async waitFor(from: number, predicate: (m: RpcMessage) => boolean): Promise<Reply> {
    const timeout = this.#stalled ? this.timings.stalledTimeoutMs : this.timings.requestTimeoutMs;
    const started = Date.now();
    const find = () => this.lines.slice(from).find((l) => l.message && predicate(l.message));
    const deadline = started + timeout;
    for (;;) {
      const hit = find();
      if (hit) {
        this.#stalled = false;
        return { kind: "response", message: hit.message! };
      }
      if (this.#outputEnded) return { kind: "closed" };
      const left = deadline - Date.now();
      if (left <= 0) {
        this.#stalled = true;
        return { kind: "timeout", waitedMs: Date.now() - started };
      }
      await this.#wait(left);
    }
  }

  /** Waits `ms`, then returns the lines written meanwhile (from line `from` on). */
  async quietPeriod(from: number, ms: number): Promise<OutputLine[]> {
    const deadline = Date.now() + ms;
    while (!this.#outputEnded && Date.now() < deadline) await this.#wait(deadline - Date.now());
    return this.lines.slice(from);
  }

  /** Closes the target's input (end of file on its stdin). */
  async closeInput(): Promise<void> {
    const writer = this.#writer;
    this.#writer = undefined;
    await writer?.close().catch(() => {});
  }

  /** Ends the conversation: closes the input, kills the target, stops reading. */
  async close(): Promise<void> {
    await this.closeInput();
    await this.target.kill();
    await this.#reading;
  }

  async #sendAndWait(
    message: Record<string, unknown>,
    from: number,
    predicate: (m: RpcMessage) => boolean,
  ): Promise<Reply> {
    if (!await this.send(message)) return { kind: "closed" };
    return await this.waitFor(from, predicate);
  }

  async #readLoop(): Promise<void> {
    let buffered = "";
    const push = (raw: string) => {
      const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
      let message: RpcMessage | undefined;
      try {
        const parsed = JSON.parse(line);
        if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)) {
          message = parsed as RpcMessage;
        }
      } catch { /* not JSON: kept raw for the stdout check */ }
      this.lines.push({ index: this.lines.length, raw: line, message });
    };
    try {
      for await (const text of this.target.output.pipeThrough(new TextDecoderStream())) {
        buffered += text;
        let newline: number;
        while ((newline = buffered.indexOf("\n")) >= 0) {
          push(buffered.slice(0, newline));
          buffered = buffered.slice(newline + 1);
        }
        this.#wake();
      }
    } catch { /* the stream broke: same as its end */ }
    if (buffered.trim() !== "") push(buffered);
    this.#outputEnded = true;
    this.#wake();
  }

  #wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.#waiters.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, Math.max(0, ms));
      this.#waiters.add(wake);
    });
  }

  #wake(): void {
    for (const wake of [...this.#waiters]) wake();
  }
}

/** Whether a response id is exactly the request id (same type and value). */
export function sameId(received: unknown, sent: JsonRpcId): boolean {
  return typeof received === typeof sent && received === sent;
}
