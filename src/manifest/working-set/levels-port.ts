import { sha256Hex } from '../../util/hash.js';
import type { Config } from '../../config/schema.js';
import type { RunContext } from '../../types.js';
import { countLines } from '../../tokenize/truncate.js';
import type { LevelsPort } from './fit-file.js';

/**
 * Adapt the summarizer's LevelsStage (src/summarize/levels-stage.ts: cached detailed,
 * summary and stub levels) to the one-file LevelsPort of the working-set assembly. The stage
 * is imported lazily: a working set that fits whole never loads the summarizer.
 */
export function createLevelsPort(options: { root: string; config: Config; ctx: RunContext }): LevelsPort {
  let stage: Promise<import('../../stages.js').LevelsStage> | undefined;
  return async ({ path, content }) => {
    stage ??= import('../../summarize/levels-stage.js').then((mod) => mod.createLevelsStage({ root: options.root, config: options.config }));
    const run = await stage;
    const file = {
      path,
      content,
      size: Buffer.byteLength(content),
      mtimeMs: options.ctx.nowMs,
      hash: sha256Hex(content),
      lineCount: countLines(content),
    };
    const levels = await run({ root: options.root, files: [file], lastModifiedMs: new Map() }, options.ctx);
    return levels.get(path) ?? [];
  };
}
