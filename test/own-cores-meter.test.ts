// The CPU a placement report carries (src/placement/messages.ts ownCoresMeter): this process's
// cores since the previous reading. The interval is on a clock the test moves, so that a machine
// busy with other tests (this process off the CPU while it spins) cannot change the figures.
import { ownCoresMeter } from '../src/placement/messages';

/** Spins until this process has used `ms` of CPU. */
const spendCpu = (ms: number) => {
  const start = process.cpuUsage();
  for (;;) {
    const used = process.cpuUsage(start);
    if ((used.user + used.system) / 1000 >= ms) return;
  }
};

test('CPU over the interval since the reading before: a busy one near one core, an idle one near none, then half', () => {
  let t = 0;
  const ownCores = ownCoresMeter(() => t);
  spendCpu(100);
  t = 100;
  const busy = ownCores();
  // A second with no CPU spent on purpose: only the reading's own few microseconds.
  t = 1_100;
  const idle = ownCores();
  spendCpu(50);
  t = 1_200;
  const half = ownCores();
  expect(busy).toBeGreaterThanOrEqual(1);
  expect(busy).toBeLessThan(1.5);
  expect(idle).toBeLessThan(0.01);
  expect(half).toBeGreaterThanOrEqual(0.5);
  expect(half).toBeLessThan(0.75);
});
