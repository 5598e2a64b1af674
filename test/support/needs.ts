// Tests that need a program beyond Node (redis-server, haproxy, xmllint) or a privilege (root):
// where it is missing they are skipped with a message, except under CI=true, where they run and
// fail (.ci/run installs the programs, runs as root, and counts any skipped test as a failure).

export const inCi = process.env.CI === 'true';

/** `test` when `available` or under CI=true, else `test.skip`. */
export const testIf = (available: boolean): typeof test => (available || inCi ? test : test.skip);

/** Throws `missing` (what to install or change) unless `available`: the opening of a test that needs it. */
export function need(available: boolean, missing: string): void {
  if (!available) throw new Error(`${missing}${inCi ? ' (CI=true: nothing may be skipped)' : ''}`);
}
