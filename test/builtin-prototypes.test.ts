// A dependency that subclasses a built-in (ioredis 6 has `class VerbatimString extends String`)
// makes V8 turn that built-in's prototype into a dictionary, from then on in the whole process:
// every `s.charCodeAt`, `s.slice` or `s.indexOf` in optimized code became a generic property
// lookup, 7% of a worker's CPU on cached SOAP answers (docs/performance.md, issue 18). Loading
// every module of the service must leave the built-in prototypes as V8 made them.
import path from 'node:path';
import { ROOT, run } from './support/cli';

test('loading every module of the service keeps the built-in prototypes fast', async () => {
  const result = await run(process.execPath, ['--allow-natives-syntax', path.join(ROOT, 'bin/run-ts.js'), path.join(ROOT, 'test/support/builtin-prototypes-run.ts')]);
  expect(result.stderr).toBe('');
  const fast = JSON.parse(result.stdout) as Record<string, boolean>;
  expect(Object.keys(fast).length).toBeGreaterThan(5);
  expect(Object.entries(fast).filter(([, isFast]) => !isFast).map(([name]) => name)).toEqual([]);
}, 60_000);
