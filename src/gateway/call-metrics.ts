/**
 * The per-call metrics of forwarded requests (requests, errors, latency histogram, by upstream and
 * method) kept as plain numbers, and turned into prom-client metrics only when scraped.
 *
 * prom-client's own counters and histograms hash their label object on every `inc`/`observe`,
 * pre-bound children included: 5% of a gateway's CPU per forwarded call. Here a call costs a few
 * additions on the series it belongs to, found once per (upstream, method); the exposition is the
 * same as prom-client's own (same names, help, labels, bucket bounds and series order), because the
 * registry formats the values these metrics hand it exactly as it formats its own.
 */
import type { Histogram, MetricValueWithName, Registry } from 'prom-client';

/** One (upstream, method) pair's figures. */
export class CallSeries {
  requests = 0;
  errors = 0;
  /** Observations per bucket (not cumulative); the last slot counts those above every bound. */
  readonly buckets: number[];
  sum = 0;
  count = 0;

  constructor(
    readonly labels: Readonly<Record<'upstream' | 'method', string>>,
    private readonly metrics: CallMetrics,
  ) {
    this.buckets = new Array<number>(metrics.bounds.length + 1).fill(0);
  }

  /** A call began. */
  started(): void {
    if (this.requests++ === 0) this.metrics.requested.push(this);
  }

  /** A call ended after `seconds`, failed or not. */
  ended(seconds: number, failed: boolean): void {
    const { bounds } = this.metrics;
    let at = 0;
    while (at < bounds.length && seconds > bounds[at]!) at++;
    this.buckets[at]!++;
    this.sum += seconds;
    if (this.count++ === 0) this.metrics.timed.push(this);
    if (failed && this.errors++ === 0) this.metrics.failed.push(this);
  }
}

/**
 * What a metric's `get()` hands the registry; a histogram's values carry prom-client's `exemplar`
 * (null on buckets, undefined on sum and count), so that even `getMetricsAsJSON()` reads the same.
 */
type Values = (MetricValueWithName<string> & { exemplar?: null | undefined })[];

/** A metric whose values are computed at each scrape, registered like prom-client's own. */
function collected(
  registry: Registry,
  name: string,
  help: string,
  type: 'counter' | 'histogram',
  values: () => Values,
): void {
  const metric = {
    name,
    help,
    type,
    aggregator: 'sum',
    get: async () => ({ name, help, type, aggregator: 'sum', values: values() }),
    // Counted since the gateway started, as prom-client's are: nothing to reset.
    reset: () => undefined,
  };
  // A registry needs only a metric's name and `get()` (and `reset()`), which this has.
  registry.registerMetric(metric as unknown as Histogram);
}

export class CallMetrics {
  /** Series in the order of their first request, first error and first answer (prom-client's order). */
  readonly requested: CallSeries[] = [];
  readonly failed: CallSeries[] = [];
  readonly timed: CallSeries[] = [];

  constructor(
    registry: Registry,
    names: { requests: string; errors: string; duration: string },
    help: { requests: string; errors: string; duration: string },
    readonly bounds: readonly number[],
  ) {
    collected(registry, names.requests, help.requests, 'counter', () =>
      this.requested.map((s) => ({ value: s.requests, labels: s.labels })),
    );
    collected(registry, names.errors, help.errors, 'counter', () =>
      this.failed.map((s) => ({ value: s.errors, labels: s.labels })),
    );
    collected(registry, names.duration, help.duration, 'histogram', () => this.histogram(names.duration));
  }

  /** A new series (for one upstream and method). */
  series(upstream: string, method: string): CallSeries {
    return new CallSeries({ upstream, method }, this);
  }

  private histogram(name: string): Values {
    const values: Values = [];
    for (const series of this.timed) {
      let total = 0;
      this.bounds.forEach((le, i) => {
        total += series.buckets[i]!;
        values.push({
          metricName: `${name}_bucket`,
          labels: { le, ...series.labels },
          value: total,
          exemplar: null,
        });
      });
      values.push(
        {
          metricName: `${name}_bucket`,
          labels: { le: '+Inf', ...series.labels },
          value: series.count,
          exemplar: null,
        },
        { metricName: `${name}_sum`, labels: series.labels, value: series.sum, exemplar: undefined },
        { metricName: `${name}_count`, labels: series.labels, value: series.count, exemplar: undefined },
      );
    }
    return values;
  }
}
