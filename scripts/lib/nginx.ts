/**
 * nginx (the Debian package) as an unprivileged load balancer in a
 * temporary prefix: its own configuration, pid file, logs and temp
 * directories, nothing under /etc or /var; one worker process, so
 * round-robin alternates strictly between upstreams; every response names
 * the upstream that served it in `X-Upstream`.
 *
 * @module
 */

import { join } from "node:path";

/** A running nginx. */
export interface Nginx extends AsyncDisposable {
  /** The proxied MCP endpoint, `http://127.0.0.1:PORT/mcp`. */
  readonly url: string;
  /** The configuration it runs with (what docs/operations.md shows, minus TLS). */
  readonly config: string;
  close(): Promise<void>;
}

/** The nginx binary: `NGINX` if set, else the first of PATH and /usr/sbin. */
export function nginxBinary(): string | undefined {
  const explicit = Deno.env.get("NGINX");
  const dirs = [...(Deno.env.get("PATH") ?? "").split(":"), "/usr/sbin", "/usr/local/sbin"];
  for (const candidate of explicit ? [explicit] : dirs.map((d) => join(d, "nginx"))) {
    try {
      if (Deno.statSync(candidate).isFile) return candidate;
    } catch { /* next */ }
  }
  return undefined;
}

/** A free loopback TCP port (bound and released; nginx binds it right after). */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

/**
 * The configuration for a round-robin balancer on `port` over `upstreams` (host:port).
 * `headerTimeoutS` is how long a client may take to send its request headers: devserver
 * itself cannot bound that (Deno.serve 2.9.6 has no header timeout, ADR-075), so the proxy does.
 */
export function nginxConfig(
  prefix: string,
  port: number,
  upstreams: string[],
  headerTimeoutS = 10,
): string {
  const servers = upstreams.map((u) => `    server ${u};`).join("\n");
  return `# devserver behind nginx: identical stateless instances, round-robin.
daemon off;
master_process on;
worker_processes 1;
pid ${prefix}/nginx.pid;
error_log ${prefix}/error.log warn;
events { worker_connections 1024; }
http {
  access_log ${prefix}/access.log;
  client_header_timeout ${headerTimeoutS}s;
  client_body_timeout 10s;
  client_body_temp_path ${prefix}/client_body;
  proxy_temp_path ${prefix}/proxy;
  fastcgi_temp_path ${prefix}/fastcgi;
  uwsgi_temp_path ${prefix}/uwsgi;
  scgi_temp_path ${prefix}/scgi;
  upstream devserver {
${servers}
    keepalive 16;
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://devserver;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      proxy_buffering off;
      proxy_read_timeout 120s;
      client_max_body_size 1m;
      add_header X-Upstream $upstream_addr always;
    }
  }
}
`;
}

/** Starts nginx in a fresh temp prefix in front of `upstreams` (host:port each). */
export async function startNginx(
  upstreams: string[],
  timeoutMs = 20_000,
  headerTimeoutS = 10,
): Promise<Nginx> {
  const binary = nginxBinary();
  if (binary === undefined) {
    throw new Error("nginx not found (Debian package nginx; or NGINX=path)");
  }
  const prefix = await Deno.makeTempDir({ prefix: "devserver-nginx-" });
  const port = freePort();
  const config = nginxConfig(prefix, port, upstreams, headerTimeoutS);
  await Deno.writeTextFile(join(prefix, "nginx.conf"), config);
  const child = new Deno.Command(binary, {
    // -e: the error log before the configuration is read (the compiled-in one is under /var/log).
    args: ["-p", prefix, "-c", join(prefix, "nginx.conf"), "-e", join(prefix, "error.log")],
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const stderr = child.stderr.pipeTo(new WritableStream()).catch(() => {});
  const url = `http://127.0.0.1:${port}/mcp`;
  const deadline = Date.now() + timeoutMs;
  const close = async () => {
    try {
      child.kill("SIGQUIT");
    } catch { /* gone */ }
    await child.status;
    await stderr;
    await Deno.remove(prefix, { recursive: true }).catch(() => {});
  };
  for (;;) {
    try {
      const conn = await Deno.connect({ hostname: "127.0.0.1", port });
      conn.close();
      break;
    } catch {
      if (Date.now() > deadline) {
        const log = await Deno.readTextFile(join(prefix, "error.log")).catch(() => "");
        await close();
        throw new Error(`nginx did not listen on ${port}:\n${log}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return { url, config, close, [Symbol.asyncDispose]: close };
}
