// The request durations wait in batches before prom-client's histogram sees them (src/metrics.ts
// Durations): a scrape still shows every duration observed so far, in the right buckets, with the
// exact count and sum, as a histogram given each one at once would.

import knexFactory from 'knex';
import client from 'prom-client';
import { createMetrics } from '../src/metrics';

const NAME = 'svapi_request_duration_seconds';
const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** The histogram's lines (buckets, sum, count) of a Prometheus text exposition. */
const histogramLines = (text: string) => text.split('\n').filter((l) => l.startsWith(`${NAME}_`));

test('every duration observed is in the scrape, whether it waited in a batch or not', async () => {
  const knex = knexFactory({ client: 'pg' });
  const metrics = createMetrics(knex);
  const references = new client.Registry();
  const reference = new client.Histogram({ name: NAME, help: 'reference', labelNames: ['operation', 'binding'], buckets: BUCKETS, registers: [references] });
  const bindings = ['http-get', 'soap11', 'soap12'];
  let n = 0;
  // Several batches of each series before the first scrape, a few durations before the next ones.
  for (const count of [2000, 3, 0, 900]) {
    for (let i = 0; i < count; i++, n++) {
      const durationMs = (n % 97) * 0.37 + (n % 5) * 250;
      const labels = { operation: n % 7 ? 'GetMonster' : 'FindItems', binding: bindings[n % 3] };
      metrics.observe({ ...labels, outcome: 'OK', durationMs });
      reference.observe(labels, durationMs / 1000);
    }
    const scraped = histogramLines(await metrics.registry.metrics());
    const expected = histogramLines(await references.metrics());
    expect(scraped.length).toBeGreaterThan(0);
    expect(scraped.sort()).toEqual(expected.sort());
  }
  await knex.destroy();
});
