import fs from 'node:fs';
import { InvalidArgumentError, type Command } from 'commander';
import cliProgress from 'cli-progress';
import { exitCodeOf, runCompare } from './run';
import { jsonReport, textReport } from './report';
import type { Credential } from './calls';
import { isXsdInt } from '../xsd/values';

interface CompareCliOptions {
  svapi: string;
  legacyDevid?: string;
  legacyDevkey?: string;
  legacyDevkeyFile?: string;
  devid?: string;
  devkey?: string;
  devkeyFile?: string;
  samples: number;
  rate: number;
  timeout: number;
  maxTime: number;
  json: boolean;
}

/** `svapi compare <legacy base URL>`: the legacy service and svapi, side by side (README: Switching from the legacy service). */
export function registerCompareCommand(program: Command): void {
  program
    .command('compare')
    .description('compare svapi with the legacy service it replaces: the WSDLs, then the answers of the eight operations on every binding both offer (read-only, rate-capped)')
    .argument('<legacy-url>', 'base URL of the legacy service (the part before /api/weapons.asmx)', parseUrl)
    .option('--svapi <url>', 'base URL of svapi', parseUrl, `http://localhost:${process.env.PORT || 8080}`)
    .option('--legacy-devid <n>', 'DevID for the legacy service', parseDevId)
    .option('--legacy-devkey <key>', 'DevKey for the legacy service (visible in the process list and shell history: prefer --legacy-devkey-file)')
    .option('--legacy-devkey-file <file>', 'file holding the DevKey for the legacy service')
    .option('--devid <n>', 'DevID for svapi', parseDevId)
    .option('--devkey <key>', 'DevKey for svapi (prefer --devkey-file)')
    .option('--devkey-file <file>', 'file holding the DevKey for svapi')
    .option('--samples <n>', 'values of each kind to call with (monster, player and land area IDs, search words), besides the edge cases', parseCount, 5)
    .option('--rate <n>', 'requests a second to each service, at most', parseRate, 20)
    .option('--timeout <seconds>', 'time-out of each call', parseSeconds, 10)
    .option('--max-time <seconds>', 'bound on the whole run; calls not made by then are reported missing', parseSeconds, 600)
    .option('--json', 'print the report as JSON', false)
    // Exit 1 means "differs": a usage error (already printed by commander) is 2, as an unusable option is.
    .exitOverride((err) => process.exit(err.exitCode === 0 ? 0 : 2))
    .addHelpText('after', `
Exit status: 0 nothing a client of the legacy service would notice differs, 1 something does
(or could not be checked), 2 a side is unreachable or the options are unusable.
Only ?wsdl and the eight read operations are sent. Credentials are never printed.`)
    .action(async (legacyUrl: string, opts: CompareCliOptions) => {
      let legacy: Credential;
      let svapi: Credential;
      try {
        legacy = credential('legacy', opts.legacyDevid, opts.legacyDevkey, opts.legacyDevkeyFile, '--legacy-devid', '--legacy-devkey');
        svapi = credential('svapi', opts.devid, opts.devkey, opts.devkeyFile, '--devid', '--devkey');
      } catch (e) {
        console.error(`svapi compare: ${(e as Error).message}`);
        process.exitCode = 2;
        return;
      }
      const bar = process.stderr.isTTY
        ? new cliProgress.SingleBar({ format: ' comparing [{bar}] {value}/{total} calls', stream: process.stderr, hideCursor: true }, cliProgress.Presets.shades_classic)
        : undefined;
      let started = false;
      const result = await runCompare({
        legacyUrl, svapiUrl: opts.svapi, legacy, svapi,
        samples: opts.samples, rate: opts.rate, timeoutMs: opts.timeout * 1000, maxTimeMs: opts.maxTime * 1000,
        onProgress: bar && ((done, total) => {
          if (!started) bar.start(total, done);
          started = true;
          bar.setTotal(total);
          bar.update(done);
        }),
      }).finally(() => bar?.stop());
      process.stdout.write(redact(opts.json ? jsonReport(result) : textReport(result), [legacy.devKey, svapi.devKey]));
      process.exitCode = exitCodeOf(result);
    });
}

/** A DevID and a DevKey, given or read from a file (its first line). */
function credential(side: string, devId: string | undefined, key: string | undefined, file: string | undefined, idOption: string, keyOption: string): Credential {
  if (devId === undefined) throw new Error(`the ${side} DevID is missing (${idOption})`);
  if (key !== undefined && file !== undefined) throw new Error(`give ${keyOption} or ${keyOption}-file, not both`);
  if (file !== undefined) {
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch (e) {
      throw new Error(`cannot read ${keyOption}-file ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
    key = text.split(/\r?\n/)[0].trim();
    if (!key) throw new Error(`${keyOption}-file ${file} holds no key on its first line`);
  }
  if (key === undefined) throw new Error(`the ${side} DevKey is missing (${keyOption}-file or ${keyOption})`);
  return { devId, devKey: key };
}

/** Any DevKey that a service echoed back (in a fault message, say) is not printed either. */
function redact(text: string, keys: string[]): string {
  let out = text;
  for (const key of keys) {
    if (key.length < 4) continue;
    for (const form of new Set([key, encodeURIComponent(key), JSON.stringify(key).slice(1, -1)])) out = out.split(form).join('***');
  }
  return out;
}

function parseUrl(v: string): string {
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    throw new InvalidArgumentError('a URL such as http://legacy.example.com');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new InvalidArgumentError('an http or https URL');
  if (u.username || u.password) throw new InvalidArgumentError('a URL without user or password');
  return v.replace(/\/+$/, '');
}

function parseDevId(v: string): string {
  const n = Number(v);
  if (!/^[+-]?\d+$/.test(v.trim()) || !isXsdInt(n)) throw new InvalidArgumentError('a DevID is a 32-bit integer');
  return v.trim();
}

function parseCount(v: string): number {
  const n = Number(v);
  if (!/^\d+$/.test(v) || n < 1 || n > 1000) throw new InvalidArgumentError('an integer 1..1000');
  return n;
}

function parseRate(v: string): number {
  const n = Number(v);
  if (!/^\d*\.?\d+$/.test(v) || !(n > 0) || n > 10_000) throw new InvalidArgumentError('requests a second, more than 0');
  return n;
}

function parseSeconds(v: string): number {
  const n = Number(v);
  if (!/^\d*\.?\d+$/.test(v) || !(n > 0) || n > 86_400) throw new InvalidArgumentError('seconds, more than 0');
  return n;
}
