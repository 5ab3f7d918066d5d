/**
 * A TCP proxy a test can cut: it forwards 127.0.0.1:`port` to a target (Postgres here), and
 * {@link TcpProxy.cut} drops every connection and stops listening — to the app exactly what a
 * crashed or unreachable database looks like (connections reset, new ones refused) — until
 * {@link TcpProxy.restore} listens again on the same port. Used by the outage tests.
 */
import net from "node:net";

/** A running proxy. */
export interface TcpProxy {
  readonly port: number;
  /** Resets every open connection and refuses new ones. */
  cut(): Promise<void>;
  /** Accepts connections again (same port). */
  restore(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts a proxy to `target` on a free port (or `port`).
 * @param target `{ host, port }` to forward to
 */
export async function startTcpProxy(target: { host: string; port: number }, port = 0): Promise<TcpProxy> {
  /** Each connection's two sockets: the app's side and the target's. */
  const pairs = new Set<{ client: net.Socket; upstream: net.Socket }>();
  const make = () =>
    net.createServer((client) => {
      const upstream = net.connect(target.port, target.host);
      const pair = { client, upstream };
      pairs.add(pair);
      const drop = () => {
        client.destroy();
        upstream.destroy();
        pairs.delete(pair);
      };
      client.on("error", drop).on("close", drop);
      upstream.on("error", drop).on("close", drop);
      client.pipe(upstream).pipe(client);
    });
  let server = make();
  const listen = (p: number) =>
    new Promise<number>((resolve, reject) => {
      server.once("error", reject);
      server.listen(p, "127.0.0.1", () => resolve((server.address() as net.AddressInfo).port));
    });
  const bound = await listen(port);
  const closeServer = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return {
    port: bound,
    async cut() {
      const closed = closeServer();
      // The app's side first, with a TCP reset (what a crashed server's kernel sends), before the
      // close handlers could end it politely.
      const all = [...pairs];
      pairs.clear();
      for (const p of all) p.client.resetAndDestroy();
      for (const p of all) p.upstream.destroy();
      await closed;
    },
    async restore() {
      server = make();
      await listen(bound);
    },
    async close() {
      for (const p of pairs) {
        p.client.destroy();
        p.upstream.destroy();
      }
      await closeServer().catch(() => {});
    },
  };
}
