import { OverloadReport } from '../src/pipeline/overload-report';
import { capturedLogger } from './support/captured-log';

describe('OverloadReport: refusals are counted, and logged at most once every 10 s', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('logs one warn line when refusals start, one summary per 10 s while they go on, and one line when they stop', () => {
    const { logger, lines } = capturedLogger();
    const report = new OverloadReport(logger, () => ({ waiting: 7 }));

    for (let i = 0; i < 50; i++) report.note('database-wait');
    report.note('event-loop');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 40, reason: 'database-wait', waiting: 7, msg: 'overloaded: refusing operation calls with ServiceUnavailable' });
    expect(report.refused).toEqual({ 'event-loop': 1, 'database-wait': 50, ceiling: 0 });

    jest.advanceTimersByTime(9_999);
    expect(lines).toHaveLength(1);
    jest.advanceTimersByTime(1);
    expect(lines).toHaveLength(2);
    // The summary counts every refusal of the period, the first one's included.
    expect(lines[1]).toMatchObject({ level: 40, refused: 51, waiting: 7, msg: 'still overloaded' });
    expect((lines[1].reasons as string[]).sort()).toEqual(['database-wait', 'event-loop']);

    for (let i = 0; i < 3; i++) report.note('ceiling');
    jest.advanceTimersByTime(10_000);
    expect(lines).toHaveLength(3);
    expect(lines[2]).toMatchObject({ refused: 3, reasons: ['ceiling'], msg: 'still overloaded' });

    // A period without a refusal ends the overload, with its total.
    jest.advanceTimersByTime(10_000);
    expect(lines).toHaveLength(4);
    expect(lines[3]).toMatchObject({ level: 30, refused: 54, seconds: 30, msg: 'no longer overloaded' });
    jest.advanceTimersByTime(60_000);
    expect(lines).toHaveLength(4);

    // The next refusal starts a new overload with its own first line.
    report.note('ceiling');
    expect(lines).toHaveLength(5);
    expect(lines[4]).toMatchObject({ level: 40, reason: 'ceiling', msg: 'overloaded: refusing operation calls with ServiceUnavailable' });
    report.stop();
    jest.advanceTimersByTime(60_000);
    expect(lines).toHaveLength(5);
  });
});
