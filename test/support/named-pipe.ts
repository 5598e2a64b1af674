import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

/**
 * A named pipe made at `file` (mkfifo: Node makes no anonymous pipe), opened at both ends: the read
 * end non-blocking, the write end with `writeFlags` added (O_NONBLOCK, or 0 for a blocking one).
 */
export function namedPipe(file: string, writeFlags = 0): { readEnd: number; writeEnd: number } {
  execFileSync('mkfifo', [file]);
  const readEnd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  const writeEnd = fs.openSync(file, fs.constants.O_WRONLY | writeFlags);
  return { readEnd, writeEnd };
}

/** Up to `max` bytes waiting in the non-blocking `fd` (none: an empty buffer). */
export function readWaiting(fd: number, max: number): Buffer {
  const chunk = Buffer.alloc(max);
  try {
    return chunk.subarray(0, fs.readSync(fd, chunk, 0, max, null));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EAGAIN') return Buffer.alloc(0);
    throw e;
  }
}
