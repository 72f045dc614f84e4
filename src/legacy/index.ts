// The legacy session-local schedule log (docs/storage.md): its records and events, the strict decoder,
// the fold to active reminders, and the warning that asks to recreate them.
export { decodeScheduleChange, MAX_LEGACY_ID_LENGTH } from './decodeScheduleChange.ts';
export { type FoldOptions, foldScheduleChanges } from './foldScheduleChanges.ts';
export { type LegacyRecreateWarning, legacyRecreateWarning } from './recreateWarning.ts';
export type {
  LegacyAfterRecord,
  LegacyAtRecord,
  LegacyEveryRecord,
  LegacyScheduleChange,
  LegacyScheduleCreateChange,
  LegacyScheduleDeleteChange,
  LegacyScheduleDispatchChange,
  LegacyScheduleRecord,
} from './types.ts';
