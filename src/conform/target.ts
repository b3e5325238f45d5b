/**
 * What the checker talks to: a byte stream pair carrying newline-delimited
 * JSON-RPC, plus how to end it. A child process started from a command
 * line (`--stdio`), or any pair of streams (the in-process server).
 *
 * @module
 */

/** A server under test, reached over newline-delimited JSON-RPC. */
export interface StreamTarget {
  /** What the target is, for the report. */
  readonly description: string;
  /** The target's input (its stdin). */
  readonly input: WritableStream<Uint8Array>;
  /** The target's output (its stdout). */
  readonly output: ReadableStream<Uint8Array>;
  /**
   * Resolves with the exit status once the target has ended (a child
   * process exited; an in-process server closed its transport).
   */
  readonly ended: Promise<{ code: number | null }>;
  /** The target's stderr so far (drained continuously; empty when it has none). */
  stderr(): string;
  /** Ends the target at once, whatever state it is in. Idempotent. */
  kill(): Promise<void>;
}

/** How much of a chatty target's stderr is kept (its tail) for the report. */
const STDERR_KEEP = 64 * 1024;

/**
 * Starts `argv` as a child process with piped stdin and stdout. Its stderr
 * is read continuously (so a chatty server cannot fill the pipe and stall),
 * keeping only the tail. The child inherits the checker's environment.
 * Throws `Deno.errors.NotFound` when the program does not exist.
 */
export function spawnTarget(argv: readonly string[], cwd?: string): StreamTarget {
  if (argv.length === 0) throw new Error("no command to start");
  const child = new Deno.Command(argv[0], {
    args: argv.slice(1),
    cwd,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let stderr = "";
  const stderrDone = (async () => {
    try {
      for await (const text of child.stderr.pipeThrough(new TextDecoderStream())) {
        stderr += text;
        if (stderr.length > STDERR_KEEP * 2) stderr = stderr.slice(-STDERR_KEEP);
      }
    } catch { /* the child went away */ }
  })();
  let killed = false;
  return {
    description: argv.join(" "),
    input: child.stdin,
    output: child.stdout,
    ended: child.status.then(async (status) => {
      await stderrDone;
      return { code: status.signal ? null : status.code };
    }),
    stderr: () => stderr.slice(-STDERR_KEEP),
    kill: async () => {
      if (!killed) {
        killed = true;
        try {
          child.kill("SIGKILL");
        } catch { /* already gone */ }
      }
      await child.status.catch(() => {});
    },
  };
}
