import type { Command } from '../command.js';
import { loadConfig } from '../../config/load.js';
import { UsageError } from '../../errors.js';
import { createStderrReporter } from '../../util/reporter.js';
import { budgetFlags } from '../budget-flags.js';
import { resolveRoot, resolveFromCwd } from '../resolve-root.js';
import { renderExplanation } from '../../scoring/explain.js';
import { CONTEXT_SCORE_TASK, scoreOneFile } from '../../context-score.js';
import { requireTask } from '../../scoring/task-facts.js';

/** `aiwg context-score <file> --task "..."`: why one file scores what it scores. */
export const contextScoreCommand: Command = {
  name: 'context-score',
  summary: 'Show the relevance score of one file for a task: every factor, its weight and the tier',
  usage: 'aiwg context-score <file> --task "<task>" [--root DIR] [--json]',
  allowPositionals: true,
  options: {
    task: { type: 'string', short: 't' },
    root: { type: 'string' },
    config: { type: 'string' },
    scoring: { type: 'string' },
    json: { type: 'boolean' },
    verbose: { type: 'boolean' },
  },
  help: {
    '--task TEXT': 'the task to score against (required)',
    '--root DIR': 'repository root (default: the current directory); <file> is relative to it',
    '--config FILE': 'config file (default: <root>/.aiwg/rag/config.yaml)',
    '--scoring M': 'task alignment: keyword, semantic or hybrid (default from config: hybrid)',
    '--json': 'print the explanation as one JSON object on stdout',
    '--verbose': 'debug logs on stderr',
  },
  async run({ values, positionals }, io) {
    if (positionals.length !== 1) throw new UsageError('give exactly one file: aiwg context-score src/auth/login.ts --task "fix the login redirect"');
    const task = requireTask(values.task, CONTEXT_SCORE_TASK);
    const root = await resolveRoot(values.root, io.cwd);
    const configFile = typeof values.config === 'string' ? resolveFromCwd(values.config, io.cwd) : undefined;
    const { config } = await loadConfig({ root, env: io.env, flags: budgetFlags(values), configFile, cwd: io.cwd });
    const reporter = createStderrReporter({ write: io.stderr, isTTY: io.isTTY, verbose: values.verbose === true });
    const { explanation, warnings } = await scoreOneFile({ root, task, file: positionals[0] as string, config, reporter });
    if (values.json === true) {
      io.stdout(`${JSON.stringify({ task, ...explanation, warnings }, null, 2)}\n`);
    } else {
      for (const w of warnings) reporter.warn(w);
      io.stdout(renderExplanation(explanation, task));
    }
    return 0;
  },
};
