export interface ProgressEvent {
  file: string;
  done: number;
  total: number;
  /** read: validating, counted in bytes of the file; write: loading, counted in rows. */
  phase: 'read' | 'write';
  unit: 'bytes' | 'rows';
}

export type ProgressListener = (e: ProgressEvent) => void;

const INTERVAL_MS = 100;

/** Calls `listener` at most every 100 ms per file and phase, and always for the first and last step. */
export function throttle(listener: ProgressListener | undefined) {
  let last = '';
  let lastDone = -1;
  let lastAt = 0;
  return (file: string, phase: ProgressEvent['phase'], done: number, total: number): void => {
    if (!listener) return;
    const key = `${phase}:${file}`;
    const now = Date.now();
    if (key === last && (done === lastDone || (done !== total && now - lastAt < INTERVAL_MS))) return;
    last = key;
    lastDone = done;
    lastAt = now;
    listener({ file, phase, done, total, unit: phase === 'read' ? 'bytes' : 'rows' });
  };
}

/** How long one phase of a load took: a file's read (checked and staged), write or delete, or the commit or final ANALYZE (file ''). */
export interface PhaseTiming {
  file: string;
  phase: 'read' | 'write' | 'delete' | 'commit' | 'analyze';
  ms: number;
}

export type PhaseListener = (t: PhaseTiming) => void;

/** Runs `fn`, then tells `listener` how long it took (also when it failed: the phase ended there). */
export function timer(listener: PhaseListener | undefined) {
  return async <T>(file: string, phase: PhaseTiming['phase'], fn: () => Promise<T>): Promise<T> => {
    const start = performance.now();
    try {
      return await fn();
    } finally {
      listener?.({ file, phase, ms: performance.now() - start });
    }
  };
}
