// Builds docs/errors.md — the error catalog a person reads — from the one catalog in the code
// (`ERROR_CATALOG` in src/domain/errors.ts) and the reference Host's status for each code
// (src/console/failures.ts). Pure: `npm run docs` writes the text, and a test fails when the
// committed file differs from it.
import { statusOf } from '../src/console/failures.ts';
import { ERROR_CATALOG, ERROR_CODES, type ErrorCode } from '../src/domain/errors.ts';

/** Where the generated page lives, relative to the repository root. */
export const ERRORS_DOC_PATH = 'docs/errors.md';

const HEADER = `# Error codes

<!-- Generated from ERROR_CATALOG in src/domain/errors.ts by \`npm run docs\`; edit the catalog, not this file. -->

Every failure a caller can see carries one of these stable codes and a message that says what was
wrong and, where it helps, what is accepted. Messages quote at most a short excerpt of any value
the caller sent. How a failure arrives depends on the call:

* **Model tools** (\`callTool\`) and the **remote namespace** (\`remote.*\`) answer a refused request
  as \`{code, message}\` — \`schedule_delete\` and \`remote.delete\` as \`{id, deleted: false, code}\`
  (\`remote.delete\` adds the \`message\`, and leaves out an \`id\` that cannot be a task id). They
  never reject for what the arguments hold. They reject only when the call itself cannot be made:
  after \`close()\` (\`internal_error\`), with an aborted signal (its reason), or — \`callTool\` — with
  a Session id that is not a string of 1–256 characters (a \`TypeError\`).
* \`createScheduleService\`, \`close()\` and \`archive.sessionStop\` **reject** with a \`ScheduleError\`
  (\`error.code\`); \`decodeScheduleChange\`, \`foldScheduleChanges\`, \`noteLegacySession\` and
  \`parseTimingSelector\` **throw** one.
* The reference Host's HTTP API sends \`{code, message}\` with the status shown below; the CLI
  prints the code and the message and exits with status 1.
`;

const codeLink = (code: ErrorCode): string => `[\`${code}\`](#${code})`;

function summary(): string {
  const rows = ERROR_CODES.map((code) => `| ${codeLink(code)} | ${statusOf(code)} | ${firstSentence(ERROR_CATALOG[code].meaning)} |`);
  return ['| code | HTTP | in short |', '|---|---|---|', ...rows].join('\n');
}

/** The text up to the first full stop followed by a space or the end (a sentence of the meaning). */
function firstSentence(text: string): string {
  const end = text.search(/[.:;](\s|$)/);
  return end < 0 ? text : text.slice(0, end + 1).replace(/[:;]$/, '.');
}

function section(code: ErrorCode): string {
  const info = ERROR_CATALOG[code];
  return [
    `## ${code}`,
    '',
    info.meaning,
    '',
    `**Answered by:** ${info.answeredBy.map((call) => `\`${call}\``).join(', ')}.`,
    '',
    `**What to do next:** ${info.nextStep}`,
    '',
    `**HTTP status** (reference Host): ${statusOf(code)}.`,
  ].join('\n');
}

/** The whole page, deterministic. */
export function buildErrorsDoc(): string {
  return `${[HEADER, summary(), ...ERROR_CODES.map(section)].join('\n\n')}\n`.replace(/\n{3,}/g, '\n\n');
}
