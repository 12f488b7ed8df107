import type { Command } from '../command.js';
import { createStderrReporter } from '../../util/reporter.js';
import { loadCommandConfig } from '../command-config.js';

/** `aiwg mcp`: the engine as a Model Context Protocol server over stdio, for one root. */
export const mcpCommand: Command = {
  name: 'mcp',
  usage: 'aiwg mcp [--root DIR] [--config FILE] [--verbose]',
  options: {
    root: { type: 'string' },
    config: { type: 'string' },
    verbose: { type: 'boolean' },
  },
  help: {
    '--root DIR': 'the repository served; no tool reads outside it (default: the current directory)',
    '--config FILE': 'config file (default: <root>/.aiwg/rag/config.yaml), loaded once at start',
    '--verbose': 'debug logs on stderr',
  },
  async run({ values }, io) {
    const { root, config, warnings } = await loadCommandConfig(values, io);
    // stdout carries the protocol: logs go to stderr, and never a progress bar.
    const reporter = createStderrReporter({ write: io.stderr, isTTY: false, verbose: values.verbose === true });
    // The SDK and the tool modules load only when a server starts, not for every CLI command.
    const [{ openRepoProvider }, { serveMcpStdio }, { MCP_TOOLS }] = await Promise.all([
      import('../../provider/repo-provider.js'),
      import('../../mcp/server.js'),
      import('../../mcp/tools/index.js'),
    ]);
    const provider = await openRepoProvider({ root, config, configWarnings: warnings, reporter, record: true, env: io.env });
    reporter.info(`aiwg mcp: serving ${root} over stdio (${MCP_TOOLS.length} tools)`);
    await serveMcpStdio({ provider, env: io.env, reporter, stdin: process.stdin, stdout: process.stdout });
    return 0;
  },
};
