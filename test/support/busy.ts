import { performance } from 'node:perf_hooks';

/** Keeps this thread's event loop busy for `ms` (nothing else in the process runs meanwhile). */
export function busyFor(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) { /* busy */ }
}
