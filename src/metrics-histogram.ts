import client from 'prom-client';

/** One label set's counts: per bucket (not cumulative), the sum and the count. */
export interface HistogramSeries {
  readonly labels: Readonly<Record<string, string>>;
  readonly buckets: number[];
  sum: number;
  count: number;
}

/**
 * A prom-client histogram that is observed through series kept by the caller: an observation adds
 * to plain numbers, where prom-client's own observe builds and hashes the label set every time
 * (a visible share of a cached answer's cost). What the registry reads (get, getForPromString:
 * the scrape and the cluster's aggregation) is made from these series in prom-client's own form,
 * so the text of /metrics is the same (test/metrics-histogram.test.ts compares the two).
 */
export class SeriesHistogram<T extends string> extends client.Histogram<T> {
  private readonly bounds: readonly number[];
  private readonly series: HistogramSeries[] = [];
  private readonly config: client.HistogramConfiguration<T>;

  constructor(config: client.HistogramConfiguration<T> & { buckets: number[] }) {
    super(config);
    this.config = config;
    this.bounds = [...config.buckets];
  }

  /** A new series for these labels (the caller keeps it and observes through it). */
  seriesFor(labels: Record<T, string>): HistogramSeries {
    const s: HistogramSeries = { labels: { ...labels }, buckets: this.bounds.map(() => 0), sum: 0, count: 0 };
    this.series.push(s);
    return s;
  }

  observeIn(s: HistogramSeries, value: number): void {
    const { bounds } = this;
    for (let i = 0; i < bounds.length; i++) {
      if (value <= bounds[i]) {
        s.buckets[i]++;
        break;
      }
    }
    s.sum += value;
    s.count += 1;
  }

  // The shapes below are prom-client's Histogram's (lib/histogram.js, getForPromString and get).
  async getForPromString(): Promise<never> {
    const { name, help, aggregator = 'sum' } = this.config;
    const values: object[] = [];
    // Like prom-client's, a series shows once it has an observation.
    for (const s of this.series) {
      if (s.count === 0) continue;
      let acc = 0;
      this.bounds.forEach((le, i) => {
        acc += s.buckets[i];
        values.push({ labels: { le }, sharedLabels: s.labels, value: acc, metricName: `${name}_bucket`, exemplar: null });
      });
      values.push(
        { labels: { le: '+Inf' }, sharedLabels: s.labels, value: s.count, metricName: `${name}_bucket`, exemplar: null },
        { labels: {}, sharedLabels: s.labels, value: s.sum, metricName: `${name}_sum`, exemplar: undefined },
        { labels: {}, sharedLabels: s.labels, value: s.count, metricName: `${name}_count`, exemplar: undefined },
      );
    }
    return { name, help, type: 'histogram', values, aggregator } as never;
  }

  override async get(): Promise<client.MetricObjectWithValues<client.MetricValueWithName<T>>> {
    const data = (await this.getForPromString()) as { values: { labels: object; sharedLabels: object }[] };
    data.values = data.values.map(({ labels, sharedLabels, ...rest }) => ({ ...rest, labels: Object.assign(labels, sharedLabels) })) as never;
    return data as never;
  }

  /** Like prom-client's reset: every series gone until its next observation. */
  override reset(): void {
    // prom-client's constructor calls reset() before this class's fields are set.
    for (const s of (this.series as HistogramSeries[] | undefined) ?? []) {
      s.buckets.fill(0);
      s.sum = 0;
      s.count = 0;
    }
  }
}
