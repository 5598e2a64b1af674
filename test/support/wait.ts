// Waiting for something to happen, in tests: never a fixed pause, always a condition checked
// until it holds, within a bound that fails the test when it never does.

/** Between two checks: long enough not to flood the service a check calls, short next to any bound. */
const POLL_MS = 20;

/** Checks `probe` until it gives true, for at most `ms` (a probe that throws counts as false); false if it never did. */
export async function eventually(probe: () => boolean | Promise<boolean>, ms = 15_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await Promise.resolve().then(probe).catch(() => false)) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/** Checks `probe` until it gives true; the milliseconds that took. Throws naming `what` after `ms`. */
export async function until(what: string, probe: () => boolean | Promise<boolean>, ms: number): Promise<number> {
  const started = Date.now();
  if (!(await eventually(probe, ms))) throw new Error(`not within ${ms} ms: ${what}`);
  return Date.now() - started;
}
