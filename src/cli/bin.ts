#!/usr/bin/env node
// The installed `agent-schedule` executable (package.json `bin`): runs the CLI from the package's
// built JavaScript with plain Node. In a clone of the repository, bin/agent-schedule.js runs the
// same `main` from the sources through tsx.
import { main } from './main.ts';

process.exitCode = await main(process.argv.slice(2));
