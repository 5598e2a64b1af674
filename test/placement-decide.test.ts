// Which workers accept new connections (src/placement/decide.ts), on the readings the bench took
// on this 2-core machine (docs/performance.md, issue 18, twelfth pass): the service's workers'
// CPU, the machine's idle CPU, and whether calls waited for a database connection.
import { acceptingWorkers, workersToRelieve, type Reading } from '../src/placement/decide';

const reading = (idleCores: number, accepting: number, ...workers: [cpu: number, waited?: number][]): Reading =>
  ({ idleCores, accepting, workers: workers.map(([cpu, waited = 0]) => ({ cpu, waited })) });

test('cached answers split over two workers on a machine the clients keep busy: packed onto one', () => {
  expect(acceptingWorkers(reading(0.03, 2, [0.77, 0], [0.29, 0]))).toBe(1);
  expect(acceptingWorkers(reading(0.06, 2, [0.29, 0], [0.9, 0]))).toBe(1);
});

test('one worker with the cached load and a third of a core idle: stays packed (the other core is the clients\')', () => {
  expect(acceptingWorkers(reading(0.31, 1, [0.97, 0], [0.01, 0]))).toBe(1);
});

test('one worker whose calls wait for its database pool, with a quarter core idle: spread (another worker brings its own pool)', () => {
  expect(acceptingWorkers(reading(0.36, 1, [0.79, 40], [0.01, 0]))).toBe(2);
  expect(acceptingWorkers(reading(0.1, 1, [0.79, 40], [0.01, 0]))).toBe(1);
});

test('one CPU-bound worker with half a core idle or more: spread', () => {
  expect(acceptingWorkers(reading(0.9, 1, [0.95, 0], [0, 0]))).toBe(2);
  expect(acceptingWorkers(reading(0.9, 1, [0.5, 0], [0, 0]))).toBe(1);
});

test('never packed while calls wait for the database, while a core is idle, under light load, or beyond what fewer could carry', () => {
  expect(acceptingWorkers(reading(0.02, 2, [0.5, 3], [0.5, 0]))).toBe(2);
  expect(acceptingWorkers(reading(0.5, 2, [0.5, 0], [0.5, 0]))).toBe(2);
  expect(acceptingWorkers(reading(0.02, 2, [0.1, 0], [0.1, 0]))).toBe(2);
  expect(acceptingWorkers(reading(0.02, 2, [0.15, 0], [0.15, 0]))).toBe(1);
  expect(acceptingWorkers(reading(0.02, 2, [0.7, 0], [0.7, 0]))).toBe(2);
});

test('four workers: one more or one fewer at a time, never none and never more than there are', () => {
  expect(acceptingWorkers(reading(0.05, 4, [0.5, 0], [0.5, 0], [0.5, 0], [0.5, 0]))).toBe(3);
  expect(acceptingWorkers(reading(1.5, 2, [0.95, 0], [0.95, 0], [0, 0], [0, 0]))).toBe(3);
  expect(acceptingWorkers(reading(1.5, 4, [0.95, 0], [0.95, 0], [0.95, 0], [0.95, 0]))).toBe(4);
  expect(acceptingWorkers(reading(0, 1, [0.9, 0], [0, 0]))).toBe(1);
});

test('both accepting, but a burst landed on one whose calls wait for its pool while the other idles: that one gives up connections', () => {
  // The uncached bench's round where all 64 connections went to one worker (79 / 0.6% of a core).
  expect(workersToRelieve(reading(0.41, 2, [0.79, 120], [0.006, 0]))).toEqual([0]);
  expect(workersToRelieve(reading(0.41, 2, [0.006, 0], [0.79, 120]))).toEqual([1]);
  // CPU-bound, with a quarter of a core idle or more: the bench's cached rounds where one worker had the load (0.46 idle).
  expect(workersToRelieve(reading(0.6, 2, [0.95, 0], [0.01, 0]))).toEqual([0]);
  expect(workersToRelieve(reading(0.46, 2, [0.99, 0], [0.01, 0]))).toEqual([0]);
  expect(workersToRelieve(reading(0.3, 2, [0.01, 0], [0.95, 0]))).toEqual([1]);
  expect(workersToRelieve(reading(0.2, 2, [0.95, 0], [0.01, 0]))).toEqual([]);
  // Neither saturated: nothing.
  expect(workersToRelieve(reading(0.9, 2, [0.6, 0], [0.01, 0]))).toEqual([]);
  // Balanced, or no room on the machine, or the idle one is not accepting: nothing.
  expect(workersToRelieve(reading(0.41, 2, [0.55, 60], [0.5, 50]))).toEqual([]);
  expect(workersToRelieve(reading(0.1, 2, [0.79, 120], [0.006, 0]))).toEqual([]);
  expect(workersToRelieve(reading(0.9, 1, [0.95, 120], [0.006, 0]))).toEqual([]);
});
