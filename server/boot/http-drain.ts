import type { Server } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';

// A connection that has not sent its first request is given this long before a draining server
// closes it: it was accepted, so its request is answered (Go's http.Server.Shutdown waits 5 s).
const NEW_CONNECTION_GRACE_MS = 2000;
const SWEEP_MS = 50;

interface Connection {
  openedAt: number;
  requests: number;
  active: number;
}

export interface HttpDrain {
  /** True from the start of drain(). */
  readonly draining: boolean;
  readonly inFlight: number;
  /**
   * Stops accepting, answers every request on connections already open (with `connection: close`),
   * closes connections as they go idle, and at the deadline closes what is left.
   */
  drain(deadlineMs: number): Promise<{ requestsAnswered: number; requestsCutOff: number }>;
}

/** Counts a server's connections and requests, so that it can be drained without resetting any request it accepted. */
export function trackForDrain(server: Server): HttpDrain {
  const connections = new Map<Socket, Connection>();
  let draining = false;
  let inFlight = 0;
  let answered = 0;
  server.on('connection', (socket: Socket) => {
    connections.set(socket, { openedAt: performance.now(), requests: 0, active: 0 });
    socket.once('close', () => connections.delete(socket));
  });
  // Before the front door's listener, which may answer at once (/readyz): the header must be set first.
  server.prependListener('request', (req, res) => {
    const connection = connections.get(req.socket);
    if (connection) {
      connection.requests++;
      connection.active++;
    }
    inFlight++;
    // Answered, then the connection closed: the client opens its next one elsewhere.
    if (draining) res.setHeader('connection', 'close');
    res.once('close', () => {
      inFlight--;
      if (connection) connection.active--;
      if (draining) answered++;
    });
  });

  const closeIdle = (all: boolean) => {
    const now = performance.now();
    for (const [socket, c] of connections) {
      if (all || (c.active === 0 && (c.requests > 0 || now - c.openedAt >= NEW_CONNECTION_GRACE_MS))) socket.destroy();
    }
  };

  return {
    get draining() {
      return draining;
    },
    get inFlight() {
      return inFlight;
    },
    async drain(deadlineMs) {
      draining = true;
      answered = 0;
      // Connections the kernel completed before the signal wait in the listen backlog until a poll of
      // the event loop accepts them (libuv accepts until the backlog is empty); closing the listener
      // first resets them. One turn was thought enough (the signal and the ready listener seen in the
      // same poll), but with the suite's other files loading both cores, 7 requests connected 48 ms
      // before the signal were reset (test/ops/drain.test.ts, twice in four runs): so wait until a
      // whole poll phase has run after the signal's, which accepts whatever was queued by then.
      for (let turn = 0; turn < 2; turn++) await new Promise<void>((resolve) => setImmediate(resolve));
      // net.Server's close, not http.Server's: Node's also closes every connection whose request it
      // has not parsed yet, so a client that connected a moment before the signal would be reset.
      const closed = new Promise<void>((resolve) => NetServer.prototype.close.call(server, () => resolve()));
      closeIdle(false);
      const sweep = setInterval(() => closeIdle(false), SWEEP_MS);
      let timer: NodeJS.Timeout | undefined;
      const timedOut = await Promise.race([
        closed.then(() => false),
        new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), Math.max(0, deadlineMs)))),
      ]);
      clearTimeout(timer);
      clearInterval(sweep);
      const requestsCutOff = timedOut ? inFlight : 0;
      if (timedOut) {
        closeIdle(true);
        await closed;
      }
      return { requestsAnswered: answered - requestsCutOff, requestsCutOff };
    },
  };
}
