// Strict decoding and deterministic encoding of a row's failure status (docs/delivery.md): the
// failed attempts since the last committed delivery, when the latest one failed, where and why,
// and when the next retry was due. Keys are stored in the fixed order attempts, lastAt, stage,
// message, nextRetryAt (the last only when present).
import { MAX_FAILURE_MESSAGE_LENGTH } from '../tasks/retry.ts';
import type { DeliveryFailure, FailureStage } from '../tasks/types.ts';
import { readInstantMember } from './record.ts';
import { corrupt, describe, isSafeIntegerAtLeast, prefixed, readObject, type Where } from './strict.ts';

const REQUIRED = ['attempts', 'lastAt', 'stage', 'message'] as const;
const OPTIONAL = ['nextRetryAt'] as const;
const STAGES: readonly FailureStage[] = ['resolve', 'followup', 'flush', 'commit'];

/** Decodes the failure status at `field` of a row (in place), failing with `corrupt_schedule_log` naming the member. */
export function decodeFailure(value: unknown, where: Where, field: string): DeliveryFailure {
  const raw = readObject(value, where, field, REQUIRED, OPTIONAL);
  if (!isSafeIntegerAtLeast(raw.attempts, 1)) {
    corrupt(where, prefixed(field, 'attempts'), `must be a whole number of at least 1, found ${describe(raw.attempts)}`);
  }
  readInstantMember(raw, 'lastAt', where, field);
  if (!STAGES.includes(raw.stage as FailureStage)) {
    corrupt(where, prefixed(field, 'stage'), `must be one of ${STAGES.map((s) => `"${s}"`).join(', ')}, found ${describe(raw.stage)}`);
  }
  if (typeof raw.message !== 'string' || raw.message.length > MAX_FAILURE_MESSAGE_LENGTH) {
    corrupt(
      where,
      prefixed(field, 'message'),
      `must be a string of at most ${MAX_FAILURE_MESSAGE_LENGTH} characters, found ${describe(raw.message)}`,
    );
  }
  if (Object.hasOwn(raw, 'nextRetryAt')) readInstantMember(raw, 'nextRetryAt', where, field);
  return raw as unknown as DeliveryFailure;
}

/** The failure status as a plain object with its keys in the fixed stored order. */
export function encodeFailure(failure: DeliveryFailure): Record<string, unknown> {
  const out: Record<string, unknown> = {
    attempts: failure.attempts,
    lastAt: failure.lastAt,
    stage: failure.stage,
    message: failure.message,
  };
  if (failure.nextRetryAt !== undefined) out.nextRetryAt = failure.nextRetryAt;
  return out;
}
