import { solveMultipleChoiceKnapsack, choiceValue } from '../src/allocate/optimise.js';
import { degradeGreedy, prioritizeGreedy } from '../src/allocate/degrade-greedy.js';
import { solveKnapsack, totalValue } from '../src/allocate/overflow.js';
import { optionValue, type Candidate, type LevelOption } from '../src/allocate/candidates.js';
import { allocateContext } from '../src/allocate/allocate-context.js';
import { planBudget } from '../src/allocate/budget-plan.js';
import { defaultConfig, type Level } from '../src/config/schema.js';
import { createTokenizer, type Tokenizer } from '../src/tokenize/tokenizer.js';
import { FACTOR_NAMES, type RunContext, type ScoredFile, type LevelContent } from '../src/types.js';
import { silentReporter } from '../src/util/reporter.js';
import { cpus, loadavg } from 'node:os';

/**
 * `node dist/bench/allocate-bench.js`: the level chooser on 10,000 candidate files.
 * 1. Time of the knapsack optimiser and of the greedy degrade loop on precomputed costs
 *    (the budget-fitting step alone; the target is < 50 ms for 10,000 candidates).
 * 2. Value of the optimiser on its own (no greedy fallback) against the greedy loop on 500
 *    random tiers: how often it wins, ties, loses, and by how much.
 * 3. allocateContext end to end on 10,000 scored files (block rendering and exact counting
 *    included), chars4 and o200k.
 * Seeded, so every run sees the same inputs. Prints Markdown.
 */

const CANDIDATES = 10_000;
const REPEATS = 15;

function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function randomCandidates(n: number, random: () => number): Candidate[] {
  return Array.from({ length: n }, (_, i) => {
    const full = 50 + Math.floor(random() * random() * 8000);
    const detailed = Math.max(12, Math.floor(full * (0.15 + random() * 0.5)));
    const summary = Math.max(8, Math.min(detailed - 1, 40 + Math.floor(random() * 400)));
    const stub = 6 + Math.floor(random() * 20);
    const weight = 0.3 + random() * 0.7;
    const costs: [Level, number][] = [['full', full], ['detailed', detailed], ['summary', summary], ['stub', Math.min(stub, summary - 1)]];
    const options: LevelOption[] = costs.map(([level, cost]) => ({ level, content: '', contentTokens: cost, block: '', cost }));
    return { path: `src/f${String(i).padStart(5, '0')}.ts`, tier: 'primary', relevance: weight, weight, category: 'source_code', factors: { task_alignment: 0, recency: 0, mention_density: 0, dependency_depth: 0, file_type: 0 }, options };
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Wall and CPU milliseconds of one call. CPU time is the honest figure on a shared machine. */
function time(fn: () => void): { wall: number; cpu: number } {
  const cpu = process.cpuUsage();
  const started = performance.now();
  fn();
  const used = process.cpuUsage(cpu);
  return { wall: performance.now() - started, cpu: (used.user + used.system) / 1000 };
}

function timing(): string[] {
  const candidates = randomCandidates(CANDIDATES, rng(1));
  const demand = candidates.reduce((n, c) => n + c.options[0]!.cost, 0);
  const budget = Math.floor(demand * 0.1);
  const items = candidates.map((c) => ({ options: c.options.map((o, k) => ({ cost: o.cost, value: optionValue(c, k) })) }));
  const rows: string[] = ['| step (10,000 candidates, 4 levels, budget 10% of demand) | median CPU ms | median wall ms |', '| --- | ---: | ---: |'];
  const measure = (name: string, fn: () => void) => {
    fn();
    const runs = Array.from({ length: REPEATS }, () => time(fn));
    rows.push(`| ${name} | ${median(runs.map((r) => r.cpu)).toFixed(1)} | ${median(runs.map((r) => r.wall)).toFixed(1)} |`);
  };
  measure('optimiser: hull greedy + repair (solveMultipleChoiceKnapsack)', () => void solveMultipleChoiceKnapsack(items, budget));
  measure('optimiser incl. building items from candidates (solveKnapsack)', () => void solveKnapsack(candidates, budget));
  measure('greedy degrade loop (degradeGreedy)', () => void degradeGreedy(candidates, budget));
  measure('prioritize greedy (prioritizeGreedy)', () => void prioritizeGreedy(candidates, budget));
  const opt = choiceValue(items, solveMultipleChoiceKnapsack(items, budget));
  const greedy = totalValue(candidates, degradeGreedy(candidates, budget));
  rows.push('', `value at this budget: optimiser ${opt.toFixed(1)}, greedy loop ${greedy.toFixed(1)} (+${(((opt - greedy) / greedy) * 100).toFixed(1)}%)`);
  return rows;
}

function quality(): string[] {
  const random = rng(7);
  let wins = 0;
  let ties = 0;
  let losses = 0;
  let gain = 0;
  const INSTANCES = 500;
  for (let k = 0; k < INSTANCES; k++) {
    const candidates = randomCandidates(5 + Math.floor(random() * 60), random);
    const demand = candidates.reduce((n, c) => n + c.options[0]!.cost, 0);
    const budget = Math.floor(demand * (0.02 + random() * 0.9));
    const opt = totalValue(candidates, solveKnapsack(candidates, budget));
    const greedy = totalValue(candidates, degradeGreedy(candidates, budget));
    if (opt > greedy + 1e-9) wins++;
    else if (opt < greedy - 1e-9) losses++;
    else ties++;
    gain += greedy > 0 ? (opt - greedy) / greedy : 0;
  }
  return [
    `| optimiser alone vs greedy loop (${INSTANCES} random tiers, 5-65 files, budget 2-92% of demand) | count |`,
    '| --- | ---: |',
    `| optimiser worth more | ${wins} |`,
    `| equal | ${ties} |`,
    `| greedy worth more (the stage then keeps greedy's answer) | ${losses} |`,
    '',
    `mean value gain of the optimiser: +${((gain / INSTANCES) * 100).toFixed(1)}%`,
  ];
}

function endToEnd(tokenizer: Tokenizer): string {
  const random = rng(3);
  const scored: ScoredFile[] = [];
  const levels = new Map<string, LevelContent[]>();
  for (let i = 0; i < CANDIDATES; i++) {
    const path = `src/m${String(i).padStart(5, '0')}.ts`;
    const lines = 5 + Math.floor(random() * 60);
    const full = Array.from({ length: lines }, (_, k) => `export function f${k}(x: number): number { return x * ${k}; }`).join('\n');
    const detailed = full.split('\n').filter((_, k) => k % 4 === 0).join('\n');
    const contents: [Level, string][] = [['full', full], ['detailed', detailed], ['summary', `${path}: ${lines} numeric helpers.`], ['stub', `${path} (${lines} lines)`]];
    levels.set(path, contents.map(([level, content]) => ({ level, content, tokens: tokenizer.count(content) })));
    const factors = Object.fromEntries(FACTOR_NAMES.map((n) => [n, { raw: 0, score: random() }])) as ScoredFile['factors'];
    scored.push({ path, category: 'source_code', factors, relevance: 0.3 + random() * 0.7, mentionedInTask: false });
  }
  const config = defaultConfig();
  config.budget_config.overflow_strategy = 'summarize';
  const ctx: RunContext = { config, tokenizer, reporter: silentReporter(), nowMs: 0, warnings: [] };
  const plan = planBudget(config);
  let rendered = 0;
  const { wall, cpu } = time(() => {
    rendered = allocateContext({ task: 'bench', root: '/bench', scored, levels, history: [], plan, format: 'xml' }, ctx).renderedTokens;
  });
  return `| allocateContext, 10,000 scored files, ${tokenizer.id}, summarize | ${cpu.toFixed(0)} ms CPU, ${wall.toFixed(0)} ms wall | ${rendered} of 90000 tokens rendered |`;
}

async function main(): Promise<void> {
  const out: string[] = ['## Allocation benchmark', '', `load average ${loadavg().map((l) => l.toFixed(1)).join(' ')} on ${cpus().length} cores`, '', ...timing(), '', ...quality(), '', '| end to end | time | result |', '| --- | ---: | --- |'];
  for (const id of ['chars4', 'o200k'] as const) out.push(endToEnd(await createTokenizer(id)));
  process.stdout.write(`${out.join('\n')}\n`);
}

await main();
