// Running the `agent-schedule` command in-process against a Host, capturing what it prints.
import { main } from '../../src/cli/main.ts';

/** What one run of the command printed and its exit code. */
export interface CliRun {
  readonly code: number;
  readonly out: string;
  readonly err: string;
}

/** Runs the command with `argv` against the Host at `url`. */
export async function runCli(url: string, ...argv: string[]): Promise<CliRun> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main([...argv, '--url', url], { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}
