import type { Command } from '../command.js';
import { RUN_ID_HELP, runIdFlag } from '../run-id-flag.js';
import { UsageError } from '../../errors.js';
import { budgetFlags, intFlag } from '../budget-flags.js';
import { loadCommandConfig } from '../command-config.js';
import { resolveFromCwd } from '../resolve-root.js';
import { buildPhaseContext, DEFAULT_HANDOFF_DIR } from '../../manifest/handoff/phase-context.js';

export { DEFAULT_HANDOFF_DIR };

/** `aiwg handoff-context --phase N`: spec 000's manifest-driven context from prior phases' handoffs. */
export const handoffContextCommand: Command = {
  name: 'handoff-context',
  usage: 'aiwg handoff-context --phase N [--dir DIR] [--root DIR] [--json] [--tokenizer T] [--no-log] [--run-id ID]',
  options: {
    phase: { type: 'string' },
    dir: { type: 'string' },
    root: { type: 'string' },
    config: { type: 'string' },
    json: { type: 'boolean' },
    tokenizer: { type: 'string' },
    'no-log': { type: 'boolean' },
    'run-id': { type: 'string' },
  },
  help: {
    '--phase N': 'the phase about to run; handoffs of phases 1..N-1 are read (required)',
    '--dir DIR': `directory of phase-<N>.json handoff files (default <root>/${DEFAULT_HANDOFF_DIR.split('\\').join('/')})`,
    '--root DIR': 'repository root: config, .aiwg/rag/phase-manifests.yaml and the budget log (default: current directory)',
    '--config FILE': 'config file (default: <root>/.aiwg/rag/config.yaml)',
    '--json': 'print one JSON object {phase, manifest, context, budget, warnings} on stdout',
    '--tokenizer T': 'token counter for max_tokens: o200k (default), cl100k or chars4 (spec 000 estimateTokens)',
    '--no-log': 'do not append the budget line to .aiwg/rag/context-budget-log.jsonl',
    '--run-id ID': RUN_ID_HELP,
  },
  async run({ values }, io) {
    const phase = intFlag(values, 'phase', { unit: 'the phase (1 or more)', example: '2' });
    if (phase === undefined) throw new UsageError('--phase N is required: the phase about to run, 1 or more (e.g. --phase 2)');
    if (phase < 1) throw new UsageError(`--phase ${phase}: phases start at 1; pass the phase about to run, e.g. --phase 2`);
    const runId = runIdFlag(values['run-id']);
    const { root, config } = await loadCommandConfig(values, io, { flags: budgetFlags(values) });
    const { manifest, dir, handoffs, result } = await buildPhaseContext({
      root,
      config,
      phase,
      dir: typeof values.dir === 'string' ? resolveFromCwd(values.dir, io.cwd) : undefined,
      log: values['no-log'] !== true,
      ...(runId !== undefined ? { runId } : {}),
    });

    if (values.json === true) {
      io.stdout(`${JSON.stringify({ phase, manifest, handoffs, context: result.text, budget: result.budget, fields: result.fields, warnings: result.warnings }, null, 2)}\n`);
      return 0;
    }
    for (const warning of result.warnings) io.stderr(`warning: ${warning}\n`);
    if (handoffs === 0) io.stderr(`no handoffs before phase ${phase} in ${dir} (files named phase-<N>.json)\n`);
    if (result.budget) {
      const b = result.budget;
      io.stderr(`budget: ${b.truncated_tokens}/${b.budget_tokens} tokens (${b.original_tokens} before${b.was_truncated ? ', truncated' : ''})\n`);
    }
    io.stdout(result.text);
    return 0;
  },
};
