// SeriesHistogram (src/metrics-histogram.ts) must scrape as prom-client's own Histogram does.

import client from 'prom-client';
import { SeriesHistogram } from '../src/metrics-histogram';

const config = (registry: client.Registry) => ({
  name: 'svapi_request_duration_seconds',
  help: 'Time to answer',
  labelNames: ['operation', 'binding'] as const,
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

test('the scrape (text and JSON) is the one prom-client gives for the same observations', async () => {
  const theirs = new client.Registry();
  const ours = new client.Registry();
  const reference = new client.Histogram(config(theirs));
  const histogram = new SeriesHistogram(config(ours));
  const series = new Map<string, ReturnType<typeof histogram.seriesFor>>();
  let seed = 7;
  const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
  const labelSets = [['GetMonster', 'soap11'], ['GetMonster', 'http-get'], ['FindItems', 'soap12'], ['none', 'other']];
  expect(await ours.metrics()).toBe(await theirs.metrics());
  for (let i = 0; i < 5000; i++) {
    const [operation, binding] = labelSets[Math.floor(random() * random() * labelSets.length)];
    // Values on the bounds, between them, and beyond the last.
    const value = i % 7 === 0 ? config(ours).buckets[i % 13] : random() ** 3 * 20;
    reference.labels({ operation, binding }).observe(value);
    const key = `${operation} ${binding}`;
    if (!series.has(key)) series.set(key, histogram.seriesFor({ operation, binding }));
    histogram.observeIn(series.get(key)!, value);
  }
  expect(await ours.metrics()).toBe(await theirs.metrics());
  expect(await ours.getMetricsAsJSON()).toEqual(await theirs.getMetricsAsJSON());
  reference.reset();
  histogram.reset();
  expect(await ours.metrics()).toBe(await theirs.metrics());
});
