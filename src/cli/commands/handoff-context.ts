import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { Command } from '../command.js';
import { UsageError } from '../../errors.js';
import { loadConfig } from '../../config/load.js';
import { resolveBudgetLogPath } from '../../cache/cache-dir.js';
import { createTokenizer } from '../../tokenize/tokenizer.js';
import { budgetFlags, intFlag } from '../budget-flags.js';
import { resolveFromCwd, resolveRoot } from '../resolve-root.js';
import { createJsonlAppender } from '../../manifest/fs-io.js';
import { buildHandoffContext } from '../../manifest/handoff/build-context.js';
import { loadPhaseManifestOverrides, resolveManifest } from '../../manifest/handoff/manifests.js';
import { readPriorHandoffs } from '../../manifest/handoff/read-handoffs.js';

/** Default handoff directory under the root. */
export const DEFAULT_HANDOFF_DIR = join('.aiwg', 'rag', 'handoffs');

/** `aiwg handoff-context --phase N`: spec 000's manifest-driven context from prior phases' handoffs. */
export const handoffContextCommand: Command = {
  name: 'handoff-context',
  summary: "Build a phase's context from the handoffs of the phases before it (spec 000)",
  usage: 'aiwg handoff-context --phase N [--dir DIR] [--root DIR] [--json] [--tokenizer T] [--no-log]',
  options: {
    phase: { type: 'string' },
    dir: { type: 'string' },
    root: { type: 'string' },
    config: { type: 'string' },
    json: { type: 'boolean' },
    tokenizer: { type: 'string' },
    'no-log': { type: 'boolean' },
  },
  help: {
    '--phase N': 'the phase about to run; handoffs of phases 1..N-1 are read (required)',
    '--dir DIR': `directory of phase-<N>.json handoff files (default <root>/${DEFAULT_HANDOFF_DIR.split('\\').join('/')})`,
    '--root DIR': 'repository root: config, .aiwg/rag/phase-manifests.yaml and the budget log (default: current directory)',
    '--config FILE': 'config file (default: <root>/.aiwg/rag/config.yaml)',
    '--json': 'print one JSON object {phase, manifest, context, budget, warnings} on stdout',
    '--tokenizer T': 'token counter for max_tokens: o200k (default), cl100k or chars4 (spec 000 estimateTokens)',
    '--no-log': 'do not append the budget line to .aiwg/rag/context-budget-log.jsonl',
  },
  async run({ values }, io) {
    const phase = intFlag(values, 'phase');
    if (phase === undefined || phase < 1) throw new UsageError('--phase N is required: the phase about to run, 1 or more');
    const root = await resolveRoot(values.root, io.cwd);
    const configFile = typeof values.config === 'string' ? resolveFromCwd(values.config, io.cwd) : undefined;
    const { config } = await loadConfig({ root, env: io.env, flags: budgetFlags(values), configFile, cwd: io.cwd });
    const dir = typeof values.dir === 'string' ? resolveFromCwd(values.dir, io.cwd) : join(root, DEFAULT_HANDOFF_DIR);

    const manifest = resolveManifest(phase, await loadPhaseManifestOverrides(root));
    const handoffs = await readPriorHandoffs(dir, phase);
    const result = await buildHandoffContext(handoffs, manifest, {
      tokenizer: await createTokenizer(config.tokenizer),
      runId: randomUUID(),
      now: () => Date.now(),
      ...(values['no-log'] === true ? {} : { log: createJsonlAppender(resolveBudgetLogPath(root), { root }) }),
    });

    if (values.json === true) {
      io.stdout(`${JSON.stringify({ phase, manifest, handoffs: handoffs.length, context: result.text, budget: result.budget, fields: result.fields, warnings: result.warnings }, null, 2)}\n`);
      return 0;
    }
    for (const warning of result.warnings) io.stderr(`warning: ${warning}\n`);
    if (handoffs.length === 0) io.stderr(`no handoffs before phase ${phase} in ${dir} (files named phase-<N>.json)\n`);
    if (result.budget) {
      const b = result.budget;
      io.stderr(`budget: ${b.truncated_tokens}/${b.budget_tokens} tokens (${b.original_tokens} before${b.was_truncated ? ', truncated' : ''})\n`);
    }
    io.stdout(result.text);
    return 0;
  },
};
