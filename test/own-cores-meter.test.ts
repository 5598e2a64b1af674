// The CPU a placement report carries (src/placement/messages.ts ownCoresMeter): this process's
// cores since the previous reading.
import { setTimeout as sleep } from 'node:timers/promises';
import { ownCoresMeter } from '../src/placement/messages';

const spin = (ms: number) => {
  const end = Date.now() + ms;
  while (Date.now() < end);
};

test('a busy interval reads near one core, an idle one near none, each since the reading before', async () => {
  const ownCores = ownCoresMeter();
  spin(200);
  const busy = ownCores();
  // Idle is what is measured here: a timer, with nothing to wait for instead.
  await sleep(200);
  const idle = ownCores();
  expect(busy).toBeGreaterThan(0.6);
  expect(busy).toBeLessThan(1.5);
  expect(idle).toBeLessThan(0.3);
});

test('the time between readings comes from the clock it is given', () => {
  let t = 0;
  const ownCores = ownCoresMeter(() => t);
  spin(50);
  t = 1_000_000; // a long interval on the given clock: 50 ms of CPU over 1,000 s
  expect(ownCores()).toBeLessThan(0.01);
});
