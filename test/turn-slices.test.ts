// TurnSlices: answers are rendered a slice of each event-loop turn at a time, in order, so that
// the loop polls (accepts connections, reads requests, answers /healthz) between slices.

import { TurnSlices } from '../src/pipeline/turn-slices';
import { busyFor } from './support/busy';

const BUDGET = 20;

/** A clock that only the jobs move: each job "takes" the milliseconds it is given. */
function slices() {
  let now = 0;
  const s = new TurnSlices(BUDGET, () => now);
  const job = (ms: number, name: string, log: string[]) => () => {
    now += ms;
    log.push(name);
    return name;
  };
  return { s, job };
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

test('jobs run at once while the turn is within its budget', async () => {
  const { s, job } = slices();
  const log: string[] = [];
  const a = s.run(job(5, 'a', log));
  const b = s.run(job(5, 'b', log));
  expect(log).toEqual(['a', 'b']);
  await expect(Promise.all([a, b])).resolves.toEqual(['a', 'b']);
});

test('once the turn has spent its budget, a job waits for a later turn, and jobs keep their order', async () => {
  const { s, job } = slices();
  const log: string[] = [];
  const runs = [s.run(job(BUDGET, 'a', log)), s.run(job(1, 'b', log)), s.run(job(1, 'c', log))];
  expect(log).toEqual(['a']);
  expect(s.waiting).toBe(2);
  await expect(Promise.all(runs)).resolves.toEqual(['a', 'b', 'c']);
  expect(s.waiting).toBe(0);
});

test('the event loop goes round between slices: a timer due runs between two slices', async () => {
  // From a timers phase, so that this turn's check phase is still to come.
  await new Promise((resolve) => setTimeout(resolve, 0));
  const { s, job } = slices();
  const log: string[] = [];
  setTimeout(() => log.push('timer'), 0);
  // The timer is due once a millisecond of real time has passed.
  const busy = () => busyFor(2);
  const runs = [
    s.run(() => { busy(); return job(BUDGET, 'a', log)(); }),
    s.run(job(BUDGET, 'b', log)),
    s.run(job(BUDGET, 'c', log)),
  ];
  await Promise.all(runs);
  // a: now; b: this turn's check phase; then the next turn (its timers first); c: its check phase.
  expect(log).toEqual(['a', 'b', 'timer', 'c']);
});

test('a job that comes while others wait goes behind them, even in a new turn', async () => {
  const { s, job } = slices();
  const log: string[] = [];
  const first = [s.run(job(BUDGET, 'a', log)), s.run(job(BUDGET, 'b', log)), s.run(job(BUDGET, 'c', log))];
  await nextTurn();
  const late = s.run(job(1, 'late', log));
  await Promise.all([...first, late]);
  expect(log).toEqual(['a', 'b', 'c', 'late']);
});

test('a job that throws rejects its own run only', async () => {
  const { s, job } = slices();
  const log: string[] = [];
  const failing = s.run(() => { throw new Error('render failed'); });
  const after = s.run(job(1, 'after', log));
  await expect(failing).rejects.toThrow('render failed');
  await expect(after).resolves.toBe('after');
});

test('a new turn starts a new budget', async () => {
  const { s, job } = slices();
  const log: string[] = [];
  await s.run(job(BUDGET, 'a', log));
  await nextTurn();
  await nextTurn();
  void s.run(job(1, 'b', log));
  expect(log).toEqual(['a', 'b']);
});

test('post: a job runs at once, told it waited 0, while the turn is within its budget; one put off is told how long it waited', async () => {
  const { s, job } = slices();
  const log: string[] = [];
  const waits: Record<string, number> = {};
  const told = (name: string, ms: number) => (waited: number) => {
    waits[name] = waited;
    job(ms, name, log)();
  };
  s.post(told('a', BUDGET - 1));
  s.post(told('b', 2));
  // The budget is spent: c and d are put off at the same time, and d also waits for c's slice.
  s.post(told('c', BUDGET));
  s.post(told('d', 1));
  expect(log).toEqual(['a', 'b']);
  await nextTurn();
  expect(log).toEqual(['a', 'b', 'c']);
  await nextTurn();
  expect(log).toEqual(['a', 'b', 'c', 'd']);
  expect(waits).toEqual({ a: 0, b: 0, c: 0, d: BUDGET });
});

test('beforeSlice runs before each later slice that has jobs, not for jobs run at once', async () => {
  let now = 0;
  const log: string[] = [];
  const s = new TurnSlices(BUDGET, () => now, () => log.push('before'));
  const job = (ms: number, name: string) => () => {
    now += ms;
    log.push(name);
  };
  const runs = [s.run(job(BUDGET, 'a')), s.run(job(BUDGET, 'b')), s.run(job(1, 'c'))];
  expect(log).toEqual(['a']);
  await Promise.all(runs);
  expect(log).toEqual(['a', 'before', 'b', 'before', 'c']);
  // With nothing waiting, a slice's turn runs nothing and calls nothing.
  await nextTurn();
  await nextTurn();
  expect(log).toEqual(['a', 'before', 'b', 'before', 'c']);
});
