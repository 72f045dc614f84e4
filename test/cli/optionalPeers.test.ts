// The failure of a command whose optional peer dependencies are not installed: a real failed
// import (Node's own error, from a folder with no node_modules) becomes `missing_dependency` naming
// the package and the install line; any other failure passes through unchanged. The installed
// package without the MCP SDK is exercised by `npm run test:package`.
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CliFailure } from '../../src/cli/command.ts';
import { main } from '../../src/cli/main.ts';
import { MCP_PEERS } from '../../src/cli/mcp.ts';
import { loadWithPeers, MISSING_DEPENDENCY, missingPackage } from '../../src/cli/optionalPeers.ts';

/** The error Node gives an ES module importing `name` from a folder where no package is installed. */
async function importFailure(name: string): Promise<Error> {
  const dir = await mkdtemp(join(tmpdir(), 'agent-schedule-peers-'));
  try {
    const script = join(dir, 'probe.mjs');
    await writeFile(
      script,
      `await import(${JSON.stringify(name)}).catch((e) => process.stdout.write(JSON.stringify({ code: e.code, message: e.message })));\n`,
    );
    const r = spawnSync(process.execPath, [script], { cwd: dir, encoding: 'utf8' });
    const { code, message } = JSON.parse(r.stdout) as { code: string; message: string };
    return Object.assign(new Error(message), { code });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('optional peer dependencies', () => {
  it.each(MCP_PEERS)('a missing %s is missing_dependency with the install line', async (name) => {
    const error = await importFailure(name === 'zod' ? 'zod' : `${name}/server/index.js`);
    expect(missingPackage(error, MCP_PEERS)).toBe(name);
    const failure = await loadWithPeers('agent-schedule mcp', MCP_PEERS, () => Promise.reject(error)).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(CliFailure);
    expect(failure).toMatchObject({
      code: MISSING_DEPENDENCY,
      message: `agent-schedule mcp needs @modelcontextprotocol/sdk and zod, optional peer dependencies of agent-schedule, and ${name} is not installed. Install them in your project: npm install @modelcontextprotocol/sdk zod`,
    });
  });

  it('passes any other failure through: another missing package, or an error of the module itself', async () => {
    const other = await importFailure('left-pad');
    expect(missingPackage(other, MCP_PEERS)).toBeUndefined();
    expect(await loadWithPeers('x', MCP_PEERS, () => Promise.reject(other)).catch((e: unknown) => e)).toBe(other);
    const own = new TypeError('boom');
    expect(await loadWithPeers('x', MCP_PEERS, () => Promise.reject(own)).catch((e: unknown) => e)).toBe(own);
    expect(await loadWithPeers('x', MCP_PEERS, async () => 7)).toBe(7);
  });

  it('mcp --help names the packages to install and the missing_dependency code', async () => {
    const out: string[] = [];
    expect(await main(['mcp', '--help'], { out: (l) => out.push(l), err: () => undefined })).toBe(0);
    expect(out.join('\n')).toContain('npm install @modelcontextprotocol/sdk zod');
    expect(out.join('\n')).toContain('missing_dependency');
  });
});
