// What the package test's stages share: running a program to its end, npm and npx as the runner
// itself was started (the same npm), and the form a stage reports a check in.
import { spawnSync } from 'node:child_process';

export interface Result {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** How the runner records one check; returns `ok`. */
export type Check = (name: string, ok: boolean, detail?: string) => boolean;

/** Runs `command` to its end in `cwd`; a program that could not start answers status null. */
export function run(command: string, args: readonly string[], cwd: string): Result {
  const r = spawnSync(command, args, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.error !== undefined) return { status: null, stdout: '', stderr: String(r.error) };
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** npm itself: the one running this script when there is one, else `npm` on the PATH. */
const npmExecPath = process.env.npm_execpath;
export const npm = (args: readonly string[], cwd: string): Result =>
  npmExecPath?.endsWith('.js') ? run(process.execPath, [npmExecPath, ...args], cwd) : run('npm', args, cwd);
/** A program installed in the project at `cwd` (never one fetched from the registry). */
export const npx = (args: readonly string[], cwd: string): Result => npm(['exec', '--no', '--', ...args], cwd);
/** A result as a check's detail. */
export const output = (r: Result): string => `exit ${r.status}\n${r.stdout}${r.stderr}`;
