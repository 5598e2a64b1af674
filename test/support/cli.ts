import { spawn } from 'node:child_process';
import path from 'node:path';

export const ROOT = path.resolve(__dirname, '../..');

/**
 * How tests start `svapi`: `node <these> ...args`. From source (tsx), so a test runs the code as it
 * is now whatever dist/ holds; test/compiled-bin.test.ts builds dist/ and runs SVAPI_COMPILED.
 */
export const SVAPI_SOURCE = [path.join(ROOT, 'bin/run-ts.js'), path.join(ROOT, 'src/cli.ts')];
export const SVAPI_COMPILED = [path.join(ROOT, 'bin/svapi.js')];

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `svapi ...args` as a user would, with `env` added. */
export function runCli(args: string[], env: NodeJS.ProcessEnv = {}, svapi = SVAPI_SOURCE): Promise<CliResult> {
  return run(process.execPath, [...svapi, ...args], env);
}

/** Runs a command in the project folder, with `env` added, to its end. */
export function run(command: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: ROOT,
      env: { ...process.env, LOG_LEVEL: 'silent', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}
