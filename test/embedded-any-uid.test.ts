import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, SVAPI_SOURCE } from './support/cli';
import { inCi, need } from './support/needs';

// The container image's data folder is owned by another user and writable by root's group, for a
// uid the image does not know: `docker run --user 12345` (as OpenShift runs images) gets gid 0.
// Here the same, as root: a folder nobody owns, 0770, group 0, used by uid 12345 of group 0.
const ANY_UID = 12345;
const NOBODY = 65534;
const asRoot = process.getuid?.() === 0;

let parent: string;
beforeAll(() => {
  parent = fs.mkdtempSync(path.join(os.tmpdir(), 'svapi-any-uid-'));
  fs.chmodSync(parent, 0o755);
});
afterAll(() => fs.rmSync(parent, { recursive: true, force: true }));

/** Runs `command` as uid ANY_UID, group 0. */
const asAnyUid = (command: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) =>
  spawnSync('setpriv', [`--reuid=${ANY_UID}`, '--regid=0', '--clear-groups', ...command], { encoding: 'utf8', ...options });

// That uid runs this checkout's code: a clone in a folder only its owner may enter (mktemp -d's
// 0700) or a Node only root can reach leaves it nothing to run. Outside CI the test is skipped then.
const CHECKOUT_UNREACHABLE = `uid ${ANY_UID} of group 0 cannot run ${process.execPath} on ${SVAPI_SOURCE[0]}: clone into a folder other users may enter`;
const checkoutReachable = asRoot && asAnyUid([process.execPath, '-e', `require('fs').accessSync(${JSON.stringify(SVAPI_SOURCE[0])}, require('fs').constants.R_OK)`]).status === 0;
if (asRoot && !checkoutReachable && !inCi) console.warn(`skipped: ${CHECKOUT_UNREACHABLE}`);

/** Runs `svapi ...args` as uid ANY_UID, group 0, on the embedded database in `dataDir`. */
function svapiAsAnyUid(dataDir: string, ...args: string[]) {
  return asAnyUid([process.execPath, ...SVAPI_SOURCE, ...args], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: '', SVAPI_DATA_DIR: dataDir, LOG_LEVEL: 'silent', HOME: '/' },
  });
}

(asRoot && (checkoutReachable || inCi) ? test : test.skip)('an arbitrary uid of group 0 creates and uses the embedded database in a group-writable folder another user owns', () => {
  need(checkoutReachable, CHECKOUT_UNREACHABLE);
  const dataDir = path.join(parent, 'data');
  fs.mkdirSync(dataDir);
  fs.chownSync(dataDir, NOBODY, 0);
  fs.chmodSync(dataDir, 0o770);
  for (const round of ['created', 'reopened']) {
    const result = svapiAsAnyUid(dataDir, 'keys', 'list', '--json');
    expect({ round, status: result.status, stdout: result.stdout, error: result.stderr.split('\n').filter((l) => /error|EPERM|EACCES/i.test(l)) })
      .toEqual({ round, status: 0, stdout: '[]\n', error: [] });
  }
  // The folder keeps its owner's mode; all that the uid wrote in it is its own, owner-only.
  const folder = fs.statSync(dataDir);
  expect({ uid: folder.uid, gid: folder.gid, mode: folder.mode & 0o777 }).toEqual({ uid: NOBODY, gid: 0, mode: 0o770 });
  const entries = fs.readdirSync(dataDir, { recursive: true, withFileTypes: true }).filter((e) => !e.isSymbolicLink());
  expect(entries.length).toBeGreaterThan(100);
  const notOwnerOnly = entries
    .map((e) => path.join(e.parentPath, e.name))
    .filter((f) => fs.statSync(f).uid !== ANY_UID || (fs.statSync(f).mode & 0o077) !== 0);
  expect(notOwnerOnly).toEqual([]);
}, 180_000);
