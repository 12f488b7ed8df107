import type { CliIo, Command, OptionValues } from '../command.js';
import { UsageError } from '../../errors.js';
import { createStderrReporter } from '../../util/reporter.js';
import { budgetFlags } from '../budget-flags.js';
import { loadCommandConfig } from '../command-config.js';
import { resolveRoot } from '../resolve-root.js';
import { renderExplanation } from '../../scoring/explain.js';
import { CONTEXT_SCORE_TASK, scoreOneFile } from '../../context-score.js';
import { requireTask } from '../../scoring/task-facts.js';
import { readRecords } from '../../record/read-records.js';
import { explainRecorded, renderRecordedExplanation } from '../../record/explain-recorded.js';
import { toRootRelative } from '../../scoring/explain.js';
import { isAbsolute } from 'node:path';

/** `aiwg context-score <file> --task "..."`: why one file scores what it scores. */
export const contextScoreCommand: Command = {
  name: 'context-score',
  usage: 'aiwg context-score <file> (--task "<task>" | --run RUN_ID) [--root DIR] [--json]',
  allowPositionals: true,
  options: {
    task: { type: 'string', short: 't' },
    run: { type: 'string' },
    root: { type: 'string' },
    config: { type: 'string' },
    scoring: { type: 'string' },
    json: { type: 'boolean' },
    verbose: { type: 'boolean' },
  },
  help: {
    '--task TEXT': 'the task to score against (required unless --run)',
    '--run RUN_ID': 'explain the file as a recorded run saw it (factors, tier, level and why), not against today\'s tree; a unique prefix is enough',
    '--root DIR': 'repository root (default: the current directory); <file> is relative to it',
    '--config FILE': 'config file (default: <root>/.aiwg/rag/config.yaml)',
    '--scoring M': 'task alignment: keyword, semantic or hybrid (default from config: hybrid)',
    '--json': 'print the explanation as one JSON object on stdout',
    '--verbose': 'debug logs on stderr',
  },
  async run({ values, positionals }, io) {
    if (positionals.length !== 1) throw new UsageError('give exactly one file: aiwg context-score src/auth/login.ts --task "fix the login redirect"');
    if (typeof values.run === 'string') return explainFromRun(positionals[0] as string, values, io);
    const task = requireTask(values.task, CONTEXT_SCORE_TASK);
    const { root, config } = await loadCommandConfig(values, io, { flags: budgetFlags(values) });
    const reporter = createStderrReporter({ write: io.stderr, isTTY: io.isTTY, verbose: values.verbose === true });
    const { explanation, warnings } = await scoreOneFile({ root, task, file: positionals[0] as string, config, reporter, env: io.env });
    if (values.json === true) {
      io.stdout(`${JSON.stringify({ task, ...explanation, warnings }, null, 2)}\n`);
    } else {
      for (const w of warnings) reporter.warn(w);
      io.stdout(renderExplanation(explanation, task));
    }
    return 0;
  },
};

/** `--run`: the file as a recorded run saw it. */
async function explainFromRun(file: string, values: OptionValues, io: CliIo): Promise<number> {
  const runId = String(values.run).trim();
  if (runId === '') throw new UsageError('--run needs a run id, e.g. --run 3f2a9c1e (see "aiwg context-report")');
  if (typeof values.task === 'string') throw new UsageError('--run explains a recorded run with its own task: drop --task');
  const root = await resolveRoot(values.root, io.cwd);
  const { records } = await readRecords(root, { session: runId });
  if (records.length === 0) throw new UsageError(`--run ${runId}: no recorded run has this id; run "aiwg context-report" to list the runs`);
  if (records.length > 1) throw new UsageError(`--run ${runId}: ${records.length} runs start with this id; give more of it`);
  const record = records[0]!;
  const path = toRootRelative(file, root, isAbsolute(file)) ?? file;
  const explanation = explainRecorded(record, path);
  if (!explanation) throw new UsageError(`${path} was not seen by run ${record.run_id}: it was neither included nor excluded; check the path (relative to --root)`);
  io.stdout(values.json === true ? `${JSON.stringify(explanation, null, 2)}\n` : renderRecordedExplanation(explanation));
  return 0;
}
