/**
 * The git runner: the one place the server starts git. It spawns the
 * program found at start with an argument list (never a shell), an empty
 * environment plus exactly {@linkcode gitEnvironment}, the hardening options
 * in front of every command, and the workspace as its working directory.
 * Output is streamed to a consumer, never buffered whole; the child is
 * killed when the consumer has enough, when the call is asked to stop, or
 * at the call's deadline.
 *
 * @module
 */

import { ToolRefusal } from "../contract/refusal.ts";
import type { StopReason, StopSignal } from "../contract/stop.ts";
import { gitEnvironment, hardeningOptions } from "./git_environment.ts";

/** The most bytes of git's standard output a tool keeps (cut at a line boundary). */
export const GIT_OUTPUT_CAP_BYTES = 256 * 1024;

/** The most bytes of git's standard error kept for diagnostics. */
const STDERR_CAP_BYTES = 8 * 1024;

/** How often the runner checks the stop signal and the deadline while git runs. */
const POLL_MS = 20;

/** What a consumer says after each chunk: go on reading, or enough (git is killed). */
export type ConsumerVerdict = "more" | "enough";

/** Receives git's standard output chunk by chunk. */
export type OutputConsumer = (chunk: Uint8Array) => ConsumerVerdict;

/** How one git run ended. */
export interface GitRun {
  /** git's exit code (a killed child's code is not meaningful). */
  readonly code: number;
  /** The start of git's standard error, for the refusal message mapping. */
  readonly stderr: string;
  /** Why the child was killed before it finished, if it was. */
  readonly killed?: "enough" | "deadline" | StopReason;
}

/** Where and how git runs: fixed per worker. */
export interface GitRunnerOptions {
  /** The workspace root (real path): git's working directory and work tree. */
  readonly root: string;
  /** The folder name messages use. */
  readonly workspaceName: string;
  /** The git program found at start, or `null`. */
  readonly binary: string | null;
}

/** Per-run controls: the call's stop signal, its deadline, and config overrides. */
export interface RunControls {
  readonly stop: StopSignal;
  /** `Date.now()` value at which the child is killed. */
  readonly deadline: number;
  /** Configuration pairs passed through `GIT_CONFIG_COUNT` (see `gitEnvironment`). */
  readonly overrides?: readonly (readonly [string, string])[];
  /**
   * Pathspecs that carry their own magic: `GIT_LITERAL_PATHSPECS` is left
   * unset, and every argument after `--` must begin with `:(literal)` or
   * `:(exclude,literal)` (checked here, so no glob or other magic can slip in).
   * Default false: every pathspec is literal by the environment.
   */
  readonly explicitPathspecs?: boolean;
}

/** The pathspec magic allowed when {@linkcode RunControls.explicitPathspecs} is set. */
const EXPLICIT_PATHSPEC = /^:\((?:exclude,)?literal\)/;

/** Starts git with the hardening options, an argument list and a built environment. */
export class GitRunner {
  readonly root: string;
  readonly workspaceName: string;
  readonly #binary: string | null;

  constructor(options: GitRunnerOptions) {
    this.root = options.root;
    this.workspaceName = options.workspaceName;
    this.#binary = options.binary;
  }

  /** The full argument list for `args` (hardening options first). */
  argv(args: readonly string[]): string[] {
    return [...hardeningOptions(this.root), ...args];
  }

  /**
   * Runs `git <hardening> <args>`, handing standard output to `consume`.
   * Kills the child (SIGKILL) when `consume` answers "enough", when
   * `controls.stop` is raised, or at `controls.deadline`.
   */
  async run(
    args: readonly string[],
    consume: OutputConsumer,
    controls: RunControls,
  ): Promise<GitRun> {
    if (this.#binary === null) {
      throw new ToolRefusal(
        "git_unavailable",
        "git was not found on the server's PATH when it started.",
      );
    }
    const explicit = controls.explicitPathspecs ?? false;
    if (explicit) {
      const separator = args.lastIndexOf("--");
      const specs = separator < 0 ? [] : args.slice(separator + 1);
      if (separator < 0 || !specs.every((spec) => EXPLICIT_PATHSPEC.test(spec))) {
        throw new Error("explicit pathspecs must each begin with :(literal) or :(exclude,literal)");
      }
    }
    const child = new Deno.Command(this.#binary, {
      args: this.argv(args),
      cwd: this.root,
      clearEnv: true,
      env: gitEnvironment(this.root, this.#binary, controls.overrides ?? [], !explicit),
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();

    let killed: GitRun["killed"];
    const kill = (why: NonNullable<GitRun["killed"]>) => {
      if (killed !== undefined) return;
      killed = why;
      try {
        child.kill("SIGKILL");
      } catch { /* already exited */ }
    };
    const check = () => {
      const reason = controls.stop.reason();
      if (reason !== undefined) kill(reason);
      else if (Date.now() >= controls.deadline) kill("deadline");
    };
    const timer = setInterval(check, POLL_MS);
    const stderr = readCapped(child.stderr, STDERR_CAP_BYTES);
    try {
      check();
      const reader = child.stdout.getReader();
      try {
        while (true) {
          const { done, value } = await reader.read();
          if (done) break;
          if (killed !== undefined) continue; // drain what is left after a kill
          check();
          if (killed === undefined && consume(value) === "enough") kill("enough");
        }
      } finally {
        reader.releaseLock();
      }
      const status = await child.status;
      return { code: status.code, stderr: await stderr, ...(killed ? { killed } : {}) };
    } finally {
      clearInterval(timer);
    }
  }
}

/** Reads a stream to its end, keeping at most `cap` bytes, decoded as UTF-8. */
async function readCapped(stream: ReadableStream<Uint8Array>, cap: number): Promise<string> {
  const kept: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of stream) {
    if (total >= cap) continue;
    const part = chunk.subarray(0, cap - total);
    kept.push(part);
    total += part.length;
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const part of kept) {
    bytes.set(part, offset);
    offset += part.length;
  }
  return new TextDecoder().decode(bytes);
}

/**
 * Collects output up to a byte cap and cuts it at the last `boundary` byte
 * (a newline, or NUL for `-z` output), optionally after skipping the first
 * `skip` bytes (a continuation). Tells the runner "enough" once the cap is
 * reached, so git is killed rather than read to the end.
 */
export class CappedOutput {
  readonly #cap: number;
  readonly #boundary: number;
  #skip: number;
  #chunks: Uint8Array[] = [];
  #kept = 0;
  /** Whether output went past the cap (and was cut). */
  capped = false;

  constructor(cap: number = GIT_OUTPUT_CAP_BYTES, boundary = 0x0a, skip = 0) {
    this.#cap = cap;
    this.#boundary = boundary;
    this.#skip = skip;
  }

  /** The consumer to hand to {@linkcode GitRunner.run}. */
  readonly consume: OutputConsumer = (chunk) => {
    if (this.#skip > 0) {
      const dropped = Math.min(this.#skip, chunk.length);
      this.#skip -= dropped;
      chunk = chunk.subarray(dropped);
      if (chunk.length === 0) return "more";
    }
    const room = this.#cap - this.#kept;
    if (chunk.length > room) {
      this.#chunks.push(chunk.slice(0, room));
      this.#kept += room;
      this.capped = true;
      return "enough";
    }
    this.#chunks.push(chunk.slice());
    this.#kept += chunk.length;
    return "more";
  };

  /**
   * The bytes kept; when capped (or `partial`, e.g. killed at the deadline)
   * cut after the last boundary byte so no line or record is half there.
   */
  bytes(partial = false): Uint8Array {
    const all = new Uint8Array(this.#kept);
    let offset = 0;
    for (const chunk of this.#chunks) {
      all.set(chunk, offset);
      offset += chunk.length;
    }
    if (!this.capped && !partial) return all;
    const last = all.lastIndexOf(this.#boundary);
    return all.subarray(0, last + 1);
  }
}
