import fc from 'fast-check';
import type { HistoryMessage } from '../../src/stages.js';
import type { Session } from '../../src/conversation/session.js';

/** Random agent sessions: turns, tool calls with results (some broken on purpose), noisy outputs. */

const WORDS = ['fix', 'the', 'retry', 'test', 'in', 'src/retry.ts', 'fails.', 'Why?', 'ok', 'npm', 'run', 'build', 'error:', 'TypeError', 'expected', '3', 'got', '2.'];
const sentence = fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 30 }).map((w) => w.join(' '));
const NOISE = ['Downloading 10%', 'Downloading 55%', '[=====>    ] 60%', 'ok 1 - passes', 'ok 1 - passes', '', 'FAIL src/retry.test.ts', '\u001b[31merror\u001b[0m: boom', 'step\rstep 2\rstep 3', '[3/120] Compiling a.ts'];
const toolOutput = fc.oneof(
  sentence,
  fc.array(fc.oneof(fc.constantFrom(...NOISE), sentence), { maxLength: 80 }).map((lines) => lines.join('\n')),
  fc.tuple(sentence, fc.integer({ min: 50, max: 400 })).map(([line, n]) => Array.from({ length: n }, (_, i) => `${line} ${i % 7}`).join('\n')),
);

type Turn = HistoryMessage[];
const id = fc.constantFrom('call_1', 'call_2', 'c3', 'toolu-4', 'weird id/5', '');

const call = fc
  .record({ ids: fc.uniqueArray(id, { minLength: 1, maxLength: 3 }), name: fc.constantFrom('read_file', 'run', 'grep'), outputs: fc.array(toolOutput, { minLength: 3, maxLength: 3 }) })
  .chain(({ ids, name, outputs }) =>
    fc.constantFrom<'ok' | 'interrupted' | 'dangling' | 'orphan' | 'partial' | 'reversed'>('ok', 'ok', 'ok', 'ok', 'ok', 'ok', 'interrupted', 'dangling', 'orphan', 'partial', 'reversed').map((shape): Turn => {
      const assistant: HistoryMessage = { role: 'assistant', content: '', tool_calls: ids.map((i) => ({ id: i, name, arguments: JSON.stringify({ path: 'src/retry.ts' }) })) };
      const results: HistoryMessage[] = ids.map((i, k) => ({ role: 'tool', tool_call_id: i, content: outputs[k % outputs.length]! }));
      switch (shape) {
        case 'ok':
          return [assistant, ...results];
        case 'reversed':
          return [assistant, ...[...results].reverse()];
        case 'interrupted':
          return [assistant, { role: 'user', content: 'Step 2: write the fix' }, ...results];
        case 'dangling':
          return [assistant];
        case 'orphan':
          return results;
        case 'partial':
          return [assistant, ...results.slice(1)];
      }
    }),
  );

const turn: fc.Arbitrary<Turn> = fc.oneof(
  sentence.map((content): Turn => [{ role: 'user', content }]),
  sentence.map((content): Turn => [{ role: 'assistant', content }]),
  fc.constant<Turn>([{ role: 'user', content: 'continue' }]),
  call,
  call,
);

export const sessionArb: fc.Arbitrary<Session> = fc
  .record({
    turns: fc.array(turn, { maxLength: 80, size: 'large' }),
    system: fc.constantFrom('', 'You are a coding agent. Use tools.'),
    plan: fc.option(fc.record({ steps: fc.array(sentence, { minLength: 0, maxLength: 25 }), current: fc.nat(26) }), { nil: undefined }),
    retrieved: fc.array(fc.record({ path: fc.constantFrom('src/retry.ts', 'src/a.ts', 'README.md'), content: toolOutput }), { maxLength: 3 }),
  })
  .map(({ turns, system, plan, retrieved }) => {
    const session: Session = { id: 'prop', system, messages: turns.flat(), retrieved };
    if (plan) session.plan = { steps: plan.steps, current: Math.min(plan.current, plan.steps.length) };
    return session;
  });
