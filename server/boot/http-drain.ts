import type { Server } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';

// A connection that has not sent its first request is given this long before a draining server
// closes it: it was accepted, so its request is answered (Go's http.Server.Shutdown waits 5 s).
const NEW_CONNECTION_GRACE_MS = 2000;
const SWEEP_MS = 50;
// How long a draining server still accepts what the kernel queued before the signal (see drain()).
const ACCEPT_WINDOW_MS = 20;

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
  let accepted = 0;
  server.on('connection', (socket: Socket) => {
    accepted++;
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
      // the event loop accepts them; closing the listener first resets them. One turn of the loop was
      // thought enough, but with the suite's other files loading both cores, requests that connected
      // 48 ms before the signal were reset: 7-9 of 40 with one turn, 2 with two (test/ops/drain.test.ts,
      // in the full suite; alone beside two CPU hogs, one turn failed 2 runs of 2 and two turns passed 3
      // of 3). So the listener stays open until a turn of the loop accepts nothing new and at least
      // ACCEPT_WINDOW_MS have passed (at most ten times that): what it accepts meanwhile is answered
      // with `connection: close`, like every request during the drain.
      const began = performance.now();
      for (;;) {
        const before = accepted;
        // Two: the second runs after a whole poll phase that began after this one.
        await nextTurn();
        await nextTurn();
        const waited = performance.now() - began;
        if (waited >= ACCEPT_WINDOW_MS * 10 || (accepted === before && waited >= ACCEPT_WINDOW_MS)) break;
        if (accepted === before) await sleep(1);
      }
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
