// The service's configuration (docs/api.md, docs/delivery.md) with its defaults, validated once at creation: a bad
// value makes `createScheduleService` reject with `invalid_rule` naming the setting. The type of
// `config` (`ScheduleConfig`) is a plain type of the domain, which the ports name too.
import { describeValue } from '../domain/args/argShape.ts';
import { ScheduleError } from '../domain/errors.ts';
import { DEFAULT_RETENTION, type RetentionLimits } from '../domain/tasks/retention.ts';
import { DEFAULT_RETRY, type RetryPolicy } from '../domain/tasks/retry.ts';

export type { RetryPolicy } from '../domain/tasks/retry.ts';

/** The largest delay a platform timer accepts: 2^31 − 1 ms. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** `ScheduleConfig` validated, with every default filled in. */
export interface ResolvedConfig {
  readonly retention: RetentionLimits;
  readonly retry: RetryPolicy | false;
  readonly maxWaitMs: number;
  readonly maxConcurrentRestores: number;
  /** The passivation horizon (ms), or null when every active task keeps a live actor. */
  readonly passivationHorizonMs: number | null;
  readonly deliverySummaryIntervalMs: number;
}

export const DEFAULT_MAX_WAIT_MS = 60_000;
export const DEFAULT_MAX_CONCURRENT_RESTORES = 8;
export const DEFAULT_PASSIVATION_HORIZON_MS = 3_600_000;
export const DEFAULT_DELIVERY_SUMMARY_INTERVAL_MS = 60_000;
/** Bounds the latenesses one summary holds in memory. */
const MAX_DELIVERY_SUMMARY_INTERVAL_MS = 86_400_000;

const CONFIG_KEYS = [
  'deliveryHistoryDays',
  'deliveryHistoryRecords',
  'retry',
  'maxWaitMs',
  'maxConcurrentRestores',
  'passivationHorizonMs',
  'deliverySummaryIntervalMs',
];

function integer(value: unknown, name: string, min: number, max: number, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new ScheduleError('invalid_rule', `config.${name} must be an integer from ${min} to ${max}; got ${describeValue(value)}.`);
  }
  return value;
}

function retryPolicy(value: unknown): RetryPolicy | false {
  if (value === undefined) return DEFAULT_RETRY;
  if (value === false) return false;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ScheduleError('invalid_rule', 'config.retry must be false or {initialMs, maxMs} with positive integer milliseconds.');
  }
  const { initialMs, maxMs, ...rest } = value as Record<string, unknown>;
  const extra = Object.keys(rest);
  if (extra.length > 0) throw new ScheduleError('invalid_rule', `config.retry accepts only initialMs and maxMs; got ${extra.join(', ')}.`);
  const initial = integer(initialMs ?? Number.NaN, 'retry.initialMs', 1, MAX_TIMER_MS, 0);
  const max = integer(maxMs ?? Number.NaN, 'retry.maxMs', initial, Number.MAX_SAFE_INTEGER, 0);
  return { initialMs: initial, maxMs: max };
}

/** Validates `config` and fills in the defaults. */
export function resolveConfig(config: unknown): ResolvedConfig {
  if (config === undefined) config = {};
  if (typeof config !== 'object' || config === null || Array.isArray(config)) {
    throw new ScheduleError('invalid_rule', 'config must be an object.');
  }
  const c = config as Record<string, unknown>;
  const unknown = Object.keys(c).filter((k) => !CONFIG_KEYS.includes(k));
  if (unknown.length > 0)
    throw new ScheduleError('invalid_rule', `Unknown config setting ${unknown.join(', ')}; accepted: ${CONFIG_KEYS.join(', ')}.`);
  return {
    retention: {
      days: integer(c.deliveryHistoryDays, 'deliveryHistoryDays', 1, 36_500, DEFAULT_RETENTION.days),
      records: integer(c.deliveryHistoryRecords, 'deliveryHistoryRecords', 1, 1_000_000, DEFAULT_RETENTION.records),
    },
    retry: retryPolicy(c.retry),
    maxWaitMs: integer(c.maxWaitMs, 'maxWaitMs', 1, MAX_TIMER_MS, DEFAULT_MAX_WAIT_MS),
    maxConcurrentRestores: integer(c.maxConcurrentRestores, 'maxConcurrentRestores', 1, 10_000, DEFAULT_MAX_CONCURRENT_RESTORES),
    passivationHorizonMs:
      c.passivationHorizonMs === null
        ? null
        : integer(c.passivationHorizonMs, 'passivationHorizonMs', 0, Number.MAX_SAFE_INTEGER, DEFAULT_PASSIVATION_HORIZON_MS),
    deliverySummaryIntervalMs: integer(
      c.deliverySummaryIntervalMs,
      'deliverySummaryIntervalMs',
      1,
      MAX_DELIVERY_SUMMARY_INTERVAL_MS,
      DEFAULT_DELIVERY_SUMMARY_INTERVAL_MS,
    ),
  };
}
