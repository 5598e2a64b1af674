import type http from 'node:http';

type Body = string | Buffer | undefined;

let responses: http.ServerResponse[] = [];
let bodies: Body[] = [];

/**
 * Ends `res` with `body` after this turn of the event loop has polled, together with every other
 * response ended in the turn (setImmediate), instead of as soon as its handler is done. Each answer
 * written wakes its client. Where clients share the cores (a load generator beside two workers on
 * two), the woken client took the worker's core once every three answers, in the middle of the next
 * request's work, and a cached answer cost the worker 1.4-1.8 times the CPU it costs when the
 * turn's answers go out in one burst after its work (docs/performance.md, issue 18, thirty-seventh
 * pass). An answer waits at most for the rest of its turn, and not behind a slice of renders
 * (pipeline/turn-slices.ts calls endTurnAnswers first): held behind 20 ms of renders, uncached
 * answers under overload went out an eighth fewer a second.
 *
 * The caller has stored the headers (writeHead), so a bad header still throws in the caller and
 * `headersSent` is true from then on; only the bytes wait. A response whose connection closed,
 * or that was ended otherwise, meanwhile is left as it is.
 */
export function endInTurn(res: http.ServerResponse, body?: string | Buffer): void {
  bodies.push(body);
  // The turn's first answer schedules the end of them all.
  if (responses.push(res) === 1) setImmediate(endAll);
}

/** Ends now the answers waiting for the end of the turn: before long work later in the turn. */
export function endTurnAnswers(): void {
  if (responses.length > 0) endAll();
}

function endAll(): void {
  const ending = responses;
  const sent = bodies;
  responses = [];
  bodies = [];
  for (let i = 0; i < ending.length; i++) {
    const res = ending[i];
    if (res.destroyed || res.writableEnded) continue;
    try {
      res.end(sent[i]);
    } catch (e) {
      res.destroy(e as Error);
    }
  }
}
