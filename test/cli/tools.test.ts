// `agent-schedule tools` with no Host anywhere: the table of the four tools, their definitions
// with --json (the Host's GET /api/tools shape by default, each provider's with --format), --url
// accepted and ignored, and an unknown format refused as bad usage.
import { main } from '../../src/cli/main.ts';
import { TOOL_DEFINITIONS, TOOL_FORMATS, toolDefinitionsFor } from '../../src/index.ts';

async function cli(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** A URL nothing listens on: port 9 (discard) on loopback. */
const NO_HOST = 'http://127.0.0.1:9';

describe('agent-schedule tools, without a Host', () => {
  it('lists the four tools with the first sentence of each description', async () => {
    const r = await cli('tools');
    expect(r.code).toBe(0);
    expect(r.err).toBe('');
    const lines = r.out.split('\n');
    expect(lines.map((l) => l.split(/\s+/)[0])).toEqual(['TOOL', 'schedule_create', 'schedule_list', 'schedule_update', 'schedule_delete']);
    expect(lines[1]).toMatch(/^schedule_create\s+\S.*\.$/);
  });

  it('--json prints the definitions a Host offers: name, description and JSON Schema', async () => {
    const r = await cli('tools', '--json');
    expect(r.code).toBe(0);
    const defs = JSON.parse(r.out) as Array<{ name: string; inputSchema: object }>;
    expect(defs).toEqual(JSON.parse(JSON.stringify(TOOL_DEFINITIONS)));
    expect(defs[0]?.inputSchema).toMatchObject({ type: 'object', required: ['prompt', 'title'] });
  });

  it.each(TOOL_FORMATS)('--json --format %s prints the definitions in that format', async (format) => {
    const r = await cli('tools', '--json', '--format', format);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toEqual(JSON.parse(JSON.stringify(toolDefinitionsFor(format))));
  });

  it('accepts --url before or after the name and asks no Host', async () => {
    const after = await cli('tools', '--url', NO_HOST, '--json');
    const before = await cli('--url', NO_HOST, 'tools', '--json');
    expect(after).toEqual({ code: 0, out: JSON.stringify(TOOL_DEFINITIONS, null, 2), err: '' });
    expect(before).toEqual(after);
  });

  it('refuses an unknown format as bad usage (exit 2)', async () => {
    const r = await cli('tools', '--json', '--format', 'gemini');
    expect(r.code).toBe(2);
    expect(r.out).toBe(
      JSON.stringify({ code: 'usage_error', message: `--format must be one of ${TOOL_FORMATS.join(', ')}; got "gemini".` }),
    );
  });
});
