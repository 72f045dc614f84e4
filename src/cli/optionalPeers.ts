// A subcommand that needs optional peer dependencies of the package (the MCP SDK and zod for
// `agent-schedule mcp`) imports its module when it runs, never when the CLI starts, so every other
// command works without them. When one is not installed, the command fails with the stable code
// `missing_dependency` and a message naming what to install, instead of Node's stack trace.
import { CliFailure } from './command.ts';

/** The code of a command whose optional peer dependencies are not installed. */
export const MISSING_DEPENDENCY = 'missing_dependency';

/** The package among `names` that a failed import could not find; undefined when it failed for another reason. */
export function missingPackage(error: unknown, names: readonly string[]): string | undefined {
  if (!(error instanceof Error) || (error as { code?: unknown }).code !== 'ERR_MODULE_NOT_FOUND') return undefined;
  const name = /Cannot find package '([^']+)'/.exec(error.message)?.[1];
  return names.find((n) => n === name);
}

/**
 * Runs `load` (a dynamic import); when it fails because one of `peers` is not installed, throws a
 * `missing_dependency` CliFailure that says which one and the `npm install` line for all of them.
 */
export async function loadWithPeers<T>(command: string, peers: readonly string[], load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const missing = missingPackage(error, peers);
    if (missing === undefined) throw error;
    throw new CliFailure(
      MISSING_DEPENDENCY,
      `${command} needs ${peers.join(' and ')}, optional peer dependencies of agent-schedule, and ${missing} is not installed. ` +
        `Install them in your project: npm install ${peers.join(' ')}`,
    );
  }
}
