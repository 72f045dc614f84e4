// Benchmark (tools): what the four tool definitions cost a model on every request, in tokens —
// each tool as `toolDefinitionsFor(format)` gives it, serialised as compact JSON and counted with
// gpt-tokenizer's o200k_base (the GPT-4o / GPT-5 family's encoding) and cl100k_base. Providers
// wrap tools in their own framing and Anthropic's tokenizer differs, so these are estimates of the
// definitions' own size, comparable between formats and between versions of the descriptions.
import { encode as encodeCl100k } from 'gpt-tokenizer/encoding/cl100k_base';
import { encode as encodeO200k } from 'gpt-tokenizer/encoding/o200k_base';
import { TOOL_DEFINITIONS } from '../src/tools/definitions.ts';
import { TOOL_FORMATS, type ToolFormat, toolDefinitionsFor } from '../src/tools/formats.ts';

const tokens = (value: unknown, encode: (text: string) => number[]) => encode(JSON.stringify(value)).length;
const names = TOOL_DEFINITIONS.map((t) => t.name);

function row(label: string, cells: readonly (string | number)[]): string {
  return `| ${label} | ${cells.map((c) => (typeof c === 'number' ? c.toLocaleString('en-US') : c)).join(' | ')} |`;
}

function table(encode: (text: string) => number[]): string[] {
  const perFormat = new Map<ToolFormat, number[]>(TOOL_FORMATS.map((f) => [f, toolDefinitionsFor(f).map((t) => tokens(t, encode))]));
  const lines = [
    row(
      'tool',
      TOOL_FORMATS.map((f) => `\`${f}\``),
    ),
    `|---|${TOOL_FORMATS.map(() => '---:').join('|')}|`,
  ];
  names.forEach((name, i) => {
    lines.push(
      row(
        `\`${name}\``,
        TOOL_FORMATS.map((f) => perFormat.get(f)?.[i] ?? 0),
      ),
    );
  });
  lines.push(
    row(
      '**all four**',
      TOOL_FORMATS.map((f) => (perFormat.get(f) ?? []).reduce((a, b) => a + b, 0)),
    ),
  );
  return lines;
}

console.log('Tokens per tool definition (compact JSON of the whole definition: name, description, schema).\n');
console.log('o200k_base:\n');
for (const line of table(encodeO200k)) console.log(line);
console.log('\ncl100k_base:\n');
for (const line of table(encodeCl100k)) console.log(line);

console.log('\nWhere the MCP-format tokens go (o200k_base):\n');
console.log(row('tool', ['description', 'input schema', 'characters']));
console.log('|---|---:|---:|---:|');
for (const tool of toolDefinitionsFor('mcp')) {
  console.log(
    row(`\`${tool.name}\``, [tokens(tool.description, encodeO200k), tokens(tool.inputSchema, encodeO200k), JSON.stringify(tool).length]),
  );
}
