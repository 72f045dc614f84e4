#!/usr/bin/env node
// The `agent-schedule` command from the sources, for development in this repository (`npm run cli
// -- <command>`; the CLI tests run it): loads the TypeScript CLI through tsx. The installed package's
// command is the built dist/src/cli/bin.js (package.json `bin`), which needs neither.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
