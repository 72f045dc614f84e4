// Types of the acceptance suite's brute-force reference (../shared/acceptance/oracle.ts), which
// vitest resolves for the module name 'acceptance-oracle' (see vitest.config.ts). The oracle is
// written for a looser compiler setting, so the typecheck reads these declarations instead.
declare module 'acceptance-oracle' {
  export type OracleRule =
    | { kind: 'daily'; time: string; timeZone: string }
    | { kind: 'weekly'; time: string; timeZone: string; weekdays: number[] }
    | { kind: 'cron'; expression: string; timeZone: string };
  export interface ParsedCron {
    sets: Array<Set<number>>;
    star: boolean[];
  }
  export const MAX_TARGET_MS: number;
  export const HORIZON_MS: number;
  export const CRON_HORIZON_MS: number;
  export function parseCron(expression: string): ParsedCron;
  export function nextDailyMs(time: string, zone: string, now: string | number): number | null;
  export function nextWeeklyMs(time: string, zone: string, weekdays: number[], now: string | number): number | null;
  export function nextCronMs(expression: string, zone: string, now: string | number): number | null;
  export function nextCronNaiveMs(expression: string, zone: string, now: string | number, maxMinutes: number): number | null;
  export function nextTarget(rule: OracleRule, now: string | number): string | null;
  export function oracleDaily(time: string, timeZone: string, now: string | number): string | null;
  export function oracleWeekly(time: string, timeZone: string, weekdays: number[], now: string | number): string | null;
  export function oracleCron(expression: string, timeZone: string, now: string | number): string | null;
}
