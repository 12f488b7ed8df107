import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { InputError } from '../errors.js';
import type { GitRunner } from './git.js';
import type { EvalInstance, MineResult } from './mine-commits.js';
import { SKIP_REASONS, type SkipReason } from './mine-commits.js';

/**
 * One line of a `--tasks FILE` (JSONL): a task text (e.g. a bug report), the commit that fixed
 * it, and the files the fix changed. The replay runs at the commit's first parent.
 */
const TASK_LINE = z
  .object({
    id: z.string().min(1),
    task: z.string().min(1),
    commit: z.string().regex(/^[0-9a-f]{7,40}$/i, 'a commit hash'),
    answer: z.array(z.string().min(1)).min(1),
  })
  .passthrough();

/**
 * Read a task file into evaluation instances. A line that is not valid JSON or misses a field is
 * an input error naming the file and line. Answer files that did not exist at the parent cannot
 * be retrieved and are left out of the gold set; a task left with none is skipped
 * (`only-added-files`), as are tasks whose commit is not in the repository (`root-commit` when it
 * has no parent).
 */
export async function loadTaskFile(file: string, root: string, git: GitRunner): Promise<MineResult & { missingCommits: string[] }> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new InputError(`--tasks ${file}: cannot read the task file (pass a JSONL file with one {"id","task","commit","answer"} object per line)`, { cause: error });
  }
  const skipped = Object.fromEntries(SKIP_REASONS.map((r) => [r, 0])) as Record<SkipReason, number>;
  const instances: EvalInstance[] = [];
  const missingCommits: string[] = [];
  const lines = text.split('\n');
  for (const [index, line] of lines.entries()) {
    if (line.trim() === '') continue;
    const parsed = parseLine(line, file, index + 1);
    let header: string;
    try {
      header = await git(root, ['log', '-1', '--format=%H %P%x1f%at', parsed.commit]);
    } catch {
      missingCommits.push(parsed.commit);
      continue;
    }
    const [ids = '', at = '0'] = header.trim().split('\x1f');
    const [commit = parsed.commit, parent] = ids.split(' ');
    if (parent === undefined) {
      skipped['root-commit'] += 1;
      continue;
    }
    const existing = (await git(root, ['ls-tree', '-r', '--name-only', parent, '--', ...parsed.answer])).split('\n').filter((p) => p !== '');
    const gold = [...new Set(parsed.answer.filter((p) => existing.includes(p)))].sort();
    if (gold.length === 0) {
      skipped['only-added-files'] += 1;
      continue;
    }
    instances.push({
      commit,
      parent,
      dateMs: Number(at) * 1000,
      subject: `${parsed.id}: ${firstLine(parsed.task)}`,
      task: parsed.task,
      sources: [...new Set(parsed.answer)].sort(),
      gold,
    });
  }
  return { instances, scanned: instances.length + missingCommits.length + Object.values(skipped).reduce((a, b) => a + b, 0), skipped, missingCommits };
}

function parseLine(line: string, file: string, lineNo: number): z.infer<typeof TASK_LINE> {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch {
    throw new InputError(`${file}:${lineNo}: not a JSON object; each line must be {"id","task","commit","answer":[paths]}`);
  }
  const result = TASK_LINE.safeParse(json);
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new InputError(`${file}:${lineNo}: ${issue?.path.join('.') || 'line'}: ${issue?.message ?? 'invalid'}; each line must be {"id","task","commit","answer":[paths]}`);
  }
  return result.data;
}

function firstLine(text: string): string {
  return (text.trim().split('\n')[0] ?? '').slice(0, 80);
}
