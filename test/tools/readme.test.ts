// docs/models.md ("Give the tools to your model") quotes examples/models/* character for character
// (the .ts files are the ones the typecheck compiles), and the MCP client config it shows runs this
// project's `mcp` command.
import { readdir, readFile } from 'node:fs/promises';

const read = (path: string) => readFile(new URL(`../../${path}`, import.meta.url), 'utf8');

const page = () => read('docs/models.md');

const FENCES: Record<string, string> = { ts: 'ts', json: 'json', sh: 'sh' };

describe('docs/models.md: Give the tools to your model', () => {
  it('quotes every file of examples/models verbatim, each in its own code block', async () => {
    const text = await page();
    const files = (await readdir(new URL('../../examples/models/', import.meta.url))).sort();
    expect(files).toEqual(['aiSdk.ts', 'anthropic.ts', 'claude-code.sh', 'claude_desktop_config.json', 'openai.ts']);
    for (const file of files) {
      const fence = FENCES[file.slice(file.lastIndexOf('.') + 1)];
      const content = await read(`examples/models/${file}`);
      expect(text, file).toContain(`\`\`\`${fence}\n${content}\`\`\``);
    }
  });

  it('says that delivery needs the Host’s SessionController, which MCP does not provide', async () => {
    const text = (await page()).replace(/\s+/g, ' ');
    expect(text).toContain("Delivery back into a conversation needs the Host's `SessionController`");
    expect(text).toContain('MCP gives a server no way to add a message');
  });

  it('is the page the README links for the tools', async () => {
    expect(await read('README.md')).toContain('[docs/models.md](docs/models.md)');
  });

  it('the Claude Desktop config runs `agent-schedule mcp` with a Session', async () => {
    const config = JSON.parse(await read('examples/models/claude_desktop_config.json')) as {
      mcpServers: Record<string, { command: string; args: string[] }>;
    };
    const server = config.mcpServers['agent-schedule'];
    expect(server?.args.slice(1, 4)).toEqual(['mcp', '--session', 'claude-desktop']);
    expect(server?.args[0]).toMatch(/bin\/agent-schedule\.js$/);
  });
});
