import { afterEach, describe, expect, it } from 'vitest';
import { parseHandoff, readPriorHandoffs } from '../../../src/manifest/handoff/read-handoffs.js';
import { InputError } from '../../../src/errors.js';
import { makeTempDir, type Fixture } from '../../helpers/fixture-repo.js';

describe('parseHandoff', () => {
  it('keeps the PhaseHandoff fields, drops producer bookkeeping and JSON nulls', () => {
    const text = JSON.stringify({ goal: 'g', status: 'done', schema_version: 1, open_risks: null, verdicts: { a: 'PASS' } });
    expect(parseHandoff(text, 'phase-2.json', 2)).toEqual({ phase: 2, goal: 'g', verdicts: { a: 'PASS' } });
  });

  it.each([
    ['invalid JSON', '{', /phase-1\.json: not valid JSON/],
    ['a list where a string belongs', '{"goal": ["x"]}', /phase-1\.json: goal: /],
    ['a verdict that is not a string', '{"verdicts": {"a": 1}}', /phase-1\.json: verdicts\.a: /],
    ['a phase that contradicts the file name', '{"phase": 3}', /phase is 3 but the file name says 1/],
    ['an array at the top level', '[]', /phase-1\.json: \(top level\)/],
  ])('refuses %s naming the file and key', (_name, text, message) => {
    expect(() => parseHandoff(text, 'phase-1.json', 1)).toThrow(InputError);
    expect(() => parseHandoff(text, 'phase-1.json', 1)).toThrow(message);
  });
});

describe('readPriorHandoffs', () => {
  let fixture: Fixture | undefined;
  afterEach(() => fixture?.cleanup());

  it('reads phase-<N>.json for phases before N, in phase order, ignoring other files', async () => {
    fixture = makeTempDir();
    fixture.write('h/phase-10.json', '{"goal": "ten"}');
    fixture.write('h/phase-2.json', '{"goal": "two"}');
    fixture.write('h/phase-1.json', '{"goal": "one"}');
    fixture.write('h/phase-3.json', '{"goal": "three"}');
    fixture.write('h/notes.json', 'not a handoff');
    fixture.write('h/phase-0.json', 'not a phase');
    const dir = `${fixture.root}/h`;
    expect((await readPriorHandoffs(dir, 3)).map((h) => [h.phase, h.goal])).toEqual([
      [1, 'one'],
      [2, 'two'],
    ]);
    expect((await readPriorHandoffs(dir, 11)).map((h) => h.phase)).toEqual([1, 2, 3, 10]);
    expect(await readPriorHandoffs(dir, 1)).toEqual([]);
  });

  it('a missing directory means no handoffs', async () => {
    fixture = makeTempDir();
    expect(await readPriorHandoffs(`${fixture.root}/absent`, 3)).toEqual([]);
  });
});
