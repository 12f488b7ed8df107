/**
 * Minimal gitignore-flavoured glob matching for config overrides: `*` (no slash), `**`
 * (any depth), `?`, `{a,b}` alternatives and `[...]` classes. A pattern without a slash
 * matches the file name at any depth, as in .gitignore.
 */
export function globToRegExp(glob: string): RegExp {
  const anchored = glob.includes('/');
  let source = '';
  let inBraces = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] as string;
    if (c === '*') {
      if (glob[i + 1] === '*') {
        const slashAfter = glob[i + 2] === '/';
        source += slashAfter ? '(?:.*/)?' : '.*';
        i += slashAfter ? 2 : 1;
      } else source += '[^/]*';
    } else if (c === '?') source += '[^/]';
    else if (c === '{') {
      inBraces++;
      source += '(?:';
    } else if (c === '}' && inBraces > 0) {
      inBraces--;
      source += ')';
    } else if (c === ',' && inBraces > 0) source += '|';
    else if (c === '[') {
      const end = glob.indexOf(']', i + 1);
      if (end === -1) source += '\\[';
      else {
        source += `[${glob.slice(i + 1, end).replace(/^!/, '^').replace(/\\/g, '\\\\')}]`;
        i = end;
      }
    } else source += c.replace(/[.+^$()|\\]/g, '\\$&');
  }
  const body = source.replace(/^\//, '');
  return new RegExp(anchored ? `^${body}$` : `(?:^|/)${body}$`);
}

/** Compile once, match many. */
export function createGlobMatcher(globs: string[]): (path: string) => number {
  const compiled = globs.map(globToRegExp);
  return (path) => compiled.findIndex((re) => re.test(path));
}
