import { describe, expect, it } from 'vitest';
import { ownString } from '../../src/util/own-string.js';

describe('ownString', () => {
  it.each([
    ['', 'empty'],
    ['abcdefghijkl', '12 characters (below the slice minimum)'],
    ['abcdefghijklm', '13 characters'],
    ['línea con acentos y 😀 fuera del plano básico', 'two-byte text with a surrogate pair'],
  ])('keeps the text of %j (%s)', (text) => {
    expect(ownString(text)).toBe(text);
  });

  it('keeps a slice of a long text equal to the slice', () => {
    const file = `${'x'.repeat(100_000)}\nconst answer = 42;\n${'y'.repeat(100_000)}`;
    const line = file.slice(100_001, 100_020);
    expect(ownString(line)).toBe('const answer = 42;\n');
  });
});
