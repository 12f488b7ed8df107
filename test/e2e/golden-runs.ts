import { cpSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../helpers/fakes.js';
import { makeFixtureRepo, makeTempDir, type Fixture } from '../helpers/fixture-repo.js';
import { SERVICE_FILES, SERVICE_TASK } from '../scoring/calibration-fixture.js';

/**
 * Fixed command runs whose output is pinned byte for byte in test/fixtures/golden/: the
 * refactors of issue 10 (one engine under every front end) must not change a byte of what the
 * front ends print. chars4 counts depend only on text length, and the repository root (printed
 * in boot headers) is padded to a fixed length, so the bytes do not depend on the temp dir.
 * Commits are dated 2010 so recency sits at its floor whatever the real clock says.
 */
export const GOLDEN_ROOT_LENGTH = 160;
const ROOT_MARK = '<ROOT>';

const WORKING_SET = `protocol: CONTEXT-ASSEMBLY/0.1
budget:
  max_tokens: 1400
  reserved_for_response: 200
trusted_roles: [system]
files:
  - path: docs/architecture.md
    priority: 1.0
    role: system
    truncate_strategy: never
  - path: src/http/client.ts
    priority: 0.9
    truncate_strategy: middle
  - path: src/http/retry.ts
    priority: 0.8
    max_lines: 6
  - path: src/auth/oauth.ts
    priority: 0.5
  - path: src/main.ts
    priority: 0.4
    truncate_strategy: end
  - path: README.md
    priority: 0.2
    truncate_strategy: start
  - path: notes/missing.md
    priority: 0.1
`;

export interface GoldenRepo {
  root: string;
  cleanup(): void;
}

/** The service fixture at a root of exactly GOLDEN_ROOT_LENGTH characters, one file dirty. */
export function goldenRepo(): GoldenRepo {
  const repo: Fixture = makeFixtureRepo([{ files: { ...SERVICE_FILES, 'working-set.yml': WORKING_SET }, date: '2010-01-01T00:00:00Z' }]);
  repo.write('src/http/retry.ts', `${SERVICE_FILES['src/http/retry.ts']}// TODO: jitter\n`);
  const holder = makeTempDir('aiwg-golden-');
  const pad = GOLDEN_ROOT_LENGTH - holder.root.length - 1;
  if (pad < 8) throw new Error(`temp dir ${holder.root} is too long for a ${GOLDEN_ROOT_LENGTH}-character root`);
  const root = join(holder.root, 'r'.repeat(pad));
  renameSync(repo.root, root);
  const handoffs = join(root, 'handoffs');
  mkdirSync(handoffs);
  cpSync(join(import.meta.dirname, '../../.aiwg/examples/handoffs'), handoffs, { recursive: true });
  writeFileSync(join(root, '.gitignore'), 'handoffs/\n.aiwg/\n');
  return { root, cleanup: () => holder.cleanup() };
}

/** Each pinned run: a name (the golden file) and the CLI argv. */
export const GOLDEN_RUNS: Array<[string, string[]]> = [
  ['context-budget-report.txt', ['context-budget', SERVICE_TASK, ...budget(2600), '--show-allocation']],
  ['context-budget-record.json', ['context-budget', SERVICE_TASK, ...budget(2600), '--json']],
  ['context-budget-xml.txt', ['context-budget', SERVICE_TASK, ...budget(2600), '--output', 'out.txt']],
  ['context-budget-markdown.txt', ['context-budget', SERVICE_TASK, ...budget(2600), '--format', 'markdown', '--output', 'out.txt']],
  ['context-budget-json.txt', ['context-budget', SERVICE_TASK, ...budget(2600), '--format', 'json', '--output', 'out.txt']],
  ['context-budget-greedy-truncate.txt', ['context-budget', `${SERVICE_TASK}; see @src/auth/oauth.ts`, ...budget(1900), '--strategy', 'greedy', '--overflow', 'truncate', '--output', 'out.txt']],
  ['context-budget-large.txt', ['context-budget', SERVICE_TASK, ...budget(60000), '--output', 'out.txt']],
  ['context-budget-tiny.txt', ['context-budget', SERVICE_TASK, ...budget(700), '--output', 'out.txt']],
  ['assemble.txt', ['assemble', '--tokenizer', 'chars4', '--no-log']],
  ['assemble-markdown.json', ['assemble', '--tokenizer', 'chars4', '--no-log', '--no-levels', '--format', 'markdown', '--json']],
  ['handoff-context.json', ['handoff-context', '--phase', '3', '--dir', 'handoffs', '--tokenizer', 'chars4', '--no-log', '--json']],
  ['handoff-context.txt', ['handoff-context', '--phase', '3', '--dir', 'handoffs', '--tokenizer', 'chars4', '--no-log']],
];

function budget(maxTokens: number): string[] {
  return ['--scoring', 'keyword', '--tokenizer', 'chars4', '--max-tokens', String(maxTokens), '--reserve-output', '300', '--reserve-system', '100', '--no-record'];
}

/** Run one pinned command in the repo: stdout, the --output file when asked, stderr and the exit code, normalised. */
export async function goldenOutput(repo: GoldenRepo, argv: string[]): Promise<string> {
  const { readFileSync, rmSync } = await import('node:fs');
  const out = join(repo.root, 'out.txt');
  rmSync(out, { force: true });
  const { code, stdout, stderr } = await runCli([...argv, '--root', repo.root], repo.root, { NO_COLOR: '1' });
  const written = argv.includes('--output') ? readFileSync(out, 'utf8') : null;
  const text = [`exit ${code}`, '--- stdout', stdout, '--- stderr', stderr, ...(written === null ? [] : ['--- output', written])].join('\n');
  return normalise(text, repo.root);
}

function normalise(text: string, root: string): string {
  return text
    .split(root)
    .join(ROOT_MARK)
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<RUN-ID>')
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g, (iso) => (iso.startsWith('2010-') ? iso : '<NOW>'))
    .replace(/"(total|tokenizer|collect|score|summarize|allocate)": \d+(\.\d+)?/g, (m, name: string) => `"${name}": <MS>`)
    .replace(/\b\d+(\.\d+)? ?ms\b/g, '<MS>');
}
