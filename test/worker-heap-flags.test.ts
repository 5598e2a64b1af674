// The V8 heap flags `svapi serve --workers N` starts its workers with (src/cluster.ts), and the
// operator's own flag of the same name winning over ours, in any of node's spellings.

import { workerHeapFlags } from '../src/cluster';

test('workers get bounded semi-spaces, an old space of 128 MB plus the answer cache, no allocation-site pretenuring, and a heap that may double between full collections', () => {
  expect(workerHeapFlags(0, [])).toEqual(['--max-semi-space-size=32', '--max-old-space-size=128', '--no-allocation-site-pretenuring', '--heap-growing-percent=100']);
  expect(workerHeapFlags(64, ['--enable-source-maps'])).toEqual(['--max-semi-space-size=32', '--max-old-space-size=192', '--no-allocation-site-pretenuring', '--heap-growing-percent=100']);
});

test("the operator's flag replaces ours, from node's arguments or NODE_OPTIONS, with - or _", () => {
  expect(workerHeapFlags(0, ['--max-semi-space-size=16'])).toEqual(['--max-old-space-size=128', '--no-allocation-site-pretenuring', '--heap-growing-percent=100']);
  expect(workerHeapFlags(0, [], '--inspect --max_old_space_size=2048')).toEqual(['--max-semi-space-size=32', '--no-allocation-site-pretenuring', '--heap-growing-percent=100']);
  expect(workerHeapFlags(0, ['--max-old-space-size=512', '--allocation-site-pretenuring', '--heap_growing_percent=50'], ' --max-semi-space-size=8 ')).toEqual([]);
  expect(workerHeapFlags(0, ['--no_allocation_site_pretenuring'])).toEqual(['--max-semi-space-size=32', '--max-old-space-size=128', '--heap-growing-percent=100']);
});

test('a flag that only contains the name is not taken for it', () => {
  expect(workerHeapFlags(0, ['--min-semi-space-size=1'], '--trace-old-space-sizes --trace-pretenuring')).toEqual(['--max-semi-space-size=32', '--max-old-space-size=128', '--no-allocation-site-pretenuring', '--heap-growing-percent=100']);
});
