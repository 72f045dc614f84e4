# Claude Code: add the server from the project folder (the Host must be running: npm start).
claude mcp add agent-schedule -- npx agent-schedule mcp --session claude-code
