import { MAX_INPUT_FILE_BYTES, readRegularFile } from '../../security/read-guard.js';
import type { Command } from '../command.js';
import { CONTEXT_BUDGET_TASK, runContextBudget } from '../../pipeline.js';
import { requireTask } from '../../scoring/task-facts.js';
import { writeRecord } from '../../record/write-record.js';
import { parseHistory } from '../../assemble/history.js';
import { createStderrReporter } from '../../util/reporter.js';
import { createColors, shouldColor } from '../../util/color.js';
import { InputError, UsageError } from '../../errors.js';
import { stageFileAtomic } from '../../util/atomic-write.js';
import { redactSecrets } from '../../security/redact-secrets.js';
import { loadCommandConfig } from '../command-config.js';
import { resolveFromCwd } from '../resolve-root.js';
import { budgetFlags, BUDGET_FLAG_HELP, BUDGET_FLAG_OPTIONS, parseFormat } from '../budget-flags.js';
import type { HistoryMessage } from '../../stages.js';
import { displayPath } from '../../util/display-path.js';
import { RUN_ID_HELP, runIdFlag } from '../run-id-flag.js';
import { createTokenizer } from '../../tokenize/tokenizer.js';
import type { Config, ConfigInput } from '../../config/schema.js';

/** `--output -`: the context on stdout instead of a file (the Unix convention). */
const STDOUT_PATH = '-';

/** `aiwg context-budget <task>`: the main door. */
export const contextBudgetCommand: Command = {
  name: 'context-budget',
  usage: 'aiwg context-budget "<task>" [options]',
  allowPositionals: true,
  options: {
    ...BUDGET_FLAG_OPTIONS,
    json: { type: 'boolean' },
    output: { type: 'string', short: 'o' },
    format: { type: 'string' },
    'no-record': { type: 'boolean' },
    history: { type: 'string' },
    'show-allocation': { type: 'boolean' },
    verbose: { type: 'boolean' },
    'run-id': { type: 'string' },
    include: { type: 'string', multiple: true },
    tree: { type: 'boolean' },
  },
  help: {
    ...BUDGET_FLAG_HELP,
    '--json': 'print exactly one JSON budget record on stdout (logs go to stderr)',
    '--output FILE': 'write the assembled context to FILE, or to stdout with "-" (the report then goes to stderr; not with --json)',
    '--format F': 'format of the assembled context: xml (default), markdown or json',
    '--no-record': 'do not write the record to .aiwg/rag/budget-records/ nor the log line',
    '--history FILE': 'conversation history (JSON, JSONL or text) for the history tier',
    '--show-allocation': 'also list every excluded file with its reason',
    '--verbose': 'debug logs on stderr',
    '--run-id ID': RUN_ID_HELP,
    '--include GLOB': 'only files matching GLOB are candidates (repeat for more; config collect.include; `dir/` is everything under dir); collect.ignore still applies',
    '--tree': 'after the report, tokens per folder: what the context includes and what every candidate file holds (like repomix --token-count-tree)',
  },
  async run({ values, positionals }, io) {
    const task = requireTask(positionals.join(' '), CONTEXT_BUDGET_TASK);
    const toStdout = values.output === STDOUT_PATH;
    if (toStdout && values.json === true) {
      throw new UsageError('--output - and --json both want stdout: drop --json to get the context, or write the context to a file with --output FILE');
    }
    if (values.tree === true && values.json === true) throw new UsageError('--tree prints a table after the report and --json prints only the record: pass one');
    const { root, config, warnings } = await loadCommandConfig(values, io, { flags: { ...budgetFlags(values), ...includeFlags(values.include) } });
    const format = parseFormat(values.format);
    const history = await redactHistory(await readHistory(values.history, io.cwd), config.collect.include_secrets);
    const reporter = createStderrReporter({ write: io.stderr, isTTY: io.isTTY, verbose: values.verbose === true });

    // The human report lists the record's warnings; with --json they would be seen nowhere else.
    if (values.json === true) for (const warning of warnings) reporter.warn(warning);
    const runId = runIdFlag(values['run-id']);
    const outputPath = typeof values.output === 'string' && !toStdout ? resolveFromCwd(values.output, io.cwd) : undefined;
    const outputSink = toStdout ? 'stdout' : outputPath !== undefined ? displayPath(root, outputPath) : undefined;
    const result = await runContextBudget({
      task,
      root,
      config,
      history,
      format,
      reporter,
      warnings,
      env: io.env,
      ...(io.gitAhead ? { gitAhead: io.gitAhead } : {}),
      ...(runId !== undefined ? { runId } : {}),
      ...(outputSink !== undefined ? { outputSink } : {}),
    });
    const { record } = result;

    // Nothing partial on disk: the record came back validated (buildRecord) and the output is
    // staged (every write check done) before anything becomes visible; the output appears only
    // once the record is written.
    const output = outputPath !== undefined ? await stageFileAtomic(outputPath, result.rendered, '--output') : undefined;
    try {
      if (values['no-record'] !== true) await writeRecord(record, { root });
    } catch (error) {
      await output?.abort();
      throw error;
    }
    await output?.commit();

    if (values.json === true) {
      io.stdout(`${JSON.stringify(record, null, 2)}\n`);
      return 0;
    }
    // the report's table code (display widths of every script) loads only for a report: --json and agents skip it
    const { renderAllocationReport } = await import('../render-allocation.js');
    const report = renderAllocationReport(record, {
      showExcluded: values['show-allocation'] === true,
      includeMinimum: config.relevance_scoring.thresholds.include_minimum,
      colors: createColors(shouldColor(io.env, toStdout ? io.isTTY : io.stdoutIsTTY === true)),
    });
    let tree = '';
    if (values.tree === true) {
      const { buildTokenTree, renderTokenTree } = await import('../../record/token-tree.js');
      tree = `\n${renderTokenTree(buildTokenTree(record, await candidateTokens(result.candidates ?? [], config)))}`;
    }
    // stdout carries only the result: with `--output -` that is the context, so the report moves to stderr.
    if (toStdout) {
      io.stdout(result.rendered);
      io.stderr(report + tree);
    } else {
      io.stdout(report + tree);
    }
    return 0;
  },
};

/** `--include GLOB` (repeatable) as the collect.include layer; no layer when absent, so the config file's list stands. */
function includeFlags(value: unknown): ConfigInput {
  if (value === undefined) return {};
  const globs = (Array.isArray(value) ? value : [value]).map((v) => String(v).trim());
  if (globs.some((g) => g === '')) throw new UsageError('--include needs a glob, e.g. --include "src/**" --include "*.md"');
  return { collect: { include: globs } };
}

/** Whole-content token counts of every candidate, for the tree's "considered" column. */
async function candidateTokens(files: ReadonlyArray<{ path: string; content: string }>, config: Config): Promise<Array<{ path: string; tokens: number }>> {
  const tokenizer = await createTokenizer(config.tokenizer);
  return files.map((f) => ({ path: f.path, tokens: tokenizer.count(f.content) }));
}

/** A conversation reaches the context like a file does: credentials in it are redacted. */
async function redactHistory(history: HistoryMessage[], keepSecrets: boolean): Promise<HistoryMessage[]> {
  if (keepSecrets) return history;
  return Promise.all(history.map(async (message) => ({ ...message, content: (await redactSecrets(message.content)).text })));
}

async function readHistory(path: unknown, cwd: string): Promise<HistoryMessage[]> {
  if (typeof path !== 'string') return [];
  const abs = resolveFromCwd(path, cwd);
  const read = await readRegularFile(abs, { maxBytes: MAX_INPUT_FILE_BYTES });
  if (read.kind === 'refused') throw new InputError(`--history ${path}: the file ${read.reason}; pass a JSON, JSONL or text file`);
  return parseHistory(read.file.bytes.toString('utf8'), path);
}
